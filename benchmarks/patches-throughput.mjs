// Per-object cost of the patch engine (every expression in the isolated-vm sandbox), next to the
// same transforms as plain functions in the main isolate, measured in the same run, rounds
// interleaved, medians of the rounds. Needs a build first: `npm run build`.
//
//   node --no-node-snapshot benchmarks/patches-throughput.mjs [--quick] [--seconds 2] [--rounds 3] [--concurrency 32]
//
// Cases, per round:
// - plain: the three transforms as plain functions (a copy of the object, then the writes);
// - engine, concurrent: `--concurrency` callers each awaiting applyPatches in a loop, as the
//   syncer's workers do (the engine may coalesce their calls into one sandbox crossing);
// - engine, one object at a time: a single caller and a sandbox with `coalesce: false`, so every
//   object is its own synchronous crossing;
// - engine, 0 patches: what the engine costs around the sandbox.
// The figure is CPU time per object (process.cpuUsage, every thread of the process, plus the
// sandbox's worker processes, where the expressions run), the ratio is
// against plain in the same round. Objects are Endpoints as a real API server returns them
// (managedFields included) for both `virtualObject` and `hostObject`.
//
// Writes benchmarks/results/patches-throughput.json and prints a summary.
import { cpuUsage } from 'node:process';
import { applyPatches, compilePatches, PatchSandbox } from '../dist/patches/index.js';
import { benchArgs, median, round, writeResult } from './lib/bench-run.mjs';

const { seconds, rounds, concurrency, quick } = benchArgs({
  usage:
    'usage: node --no-node-snapshot benchmarks/patches-throughput.mjs [--quick] [--seconds 2] [--rounds 3] [--concurrency 32]\n' +
    '(build first: npm run build)',
  numbers: { seconds: (q) => (q ? 0.2 : 2), rounds: (q) => (q ? 1 : 3), concurrency: 32 },
});

const managedFields = [
  {
    manager: 'kube-controller-manager',
    operation: 'Update',
    apiVersion: 'v1',
    time: '2026-11-20T10:00:00Z',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:metadata': { 'f:annotations': { '.': {}, 'f:endpoints.kubernetes.io/last-change-trigger-time': {}, 'f:team': {} }, 'f:labels': { '.': {}, 'f:app': {} } },
      'f:subsets': {},
    },
  },
];
const endpoints = (name, namespace, extra = {}) => ({
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: {
    name,
    namespace,
    uid: '0b0e3a56-3f1c-4c57-9f57-7c3a1d5d2f10',
    resourceVersion: '123456',
    creationTimestamp: '2026-11-20T10:00:00Z',
    labels: { app: 'web', ...extra.labels },
    annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': '2026-11-20T10:00:00Z', team: 'payments', ...extra.annotations },
    managedFields,
  },
  subsets: [
    {
      addresses: [1, 2, 3].map((n) => ({ ip: `10.0.0.${n}`, nodeName: `node-${n}`, targetRef: { kind: 'Pod', namespace, name: `web-${n}`, uid: `uid-${n}` } })),
      ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
    },
  ],
});
const translated = () => {
  const object = endpoints('web-x-default-x-vc1', 'vcluster-vc1', {
    labels: { 'vcluster.loft.sh/managed-by': 'vc1' },
    annotations: { 'vcluster.loft.sh/object-name': 'web' },
  });
  delete object.metadata.uid;
  delete object.metadata.resourceVersion;
  delete object.metadata.creationTimestamp;
  delete object.metadata.managedFields;
  return object;
};
const virtualObject = endpoints('web', 'default');
const hostObject = endpoints('web-x-default-x-vc1', 'vcluster-vc1');

const entries = [
  { path: 'subsets[*].addresses[*].ip', expression: 'value.replace(/^10\\./, "192.")' },
  { path: 'metadata.annotations.team', expression: 'value.toUpperCase() + "-" + context.vcluster.name' },
  { path: 'metadata.labels.app', expression: 'value + "-" + context.vcluster.name' },
];

// The same three transforms, written directly: what the engine's isolation costs is measured
// against this. The engine returns a new object, so the plain version copies too.
function plainTransforms(object) {
  const copy = structuredClone(object);
  for (const subset of copy.subsets) for (const address of subset.addresses) address.ip = address.ip.replace(/^10\./, '192.');
  copy.metadata.annotations.team = copy.metadata.annotations.team.toUpperCase() + '-' + 'vc1';
  copy.metadata.labels.app = copy.metadata.labels.app + '-' + 'vc1';
  return copy;
}

function compile(list) {
  const result = compilePatches(list, { configPath: 'sync.toHost.endpoints.patches', vcluster: { name: 'vc1', namespace: 'vcluster-vc1', config: {} } });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  return result.plan;
}

// The time limit guards against runaway expressions; on a loaded shared machine a scheduling
// stall can pass the default 50 ms, and a benchmark must measure, not fail on that.
const sandbox = new PatchSandbox({ timeoutMs: 5000 });
// One object at a time without coalescing: each call crosses at once (older builds ignore the option).
const singleSandbox = new PatchSandbox({ timeoutMs: 5000, coalesce: false });
const translators = {
  references: { toHost: (reference) => ({ name: reference.name, namespace: reference.namespace }) },
  labels: { toHostKey: (key) => key, toVirtualKey: (key) => key },
};
const env = { sandbox, ...translators };
const singleEnv = { sandbox: singleSandbox, ...translators };
const threePatches = compile(entries);
const noPatches = compile([]);
const object = translated();

// Same output from both paths, or the comparison means nothing.
const check = await applyPatches(threePatches, { object: translated(), virtualObject, hostObject }, env);
if (!check.ok || JSON.stringify(check.object) !== JSON.stringify(plainTransforms(translated()))) {
  throw new Error(`engine and plain transforms disagree: ${JSON.stringify(check)}`);
}

const engineOnce = (plan, through = env) => async () => {
  const result = await applyPatches(plan, { object, virtualObject, hostObject }, through);
  if (!result.ok) throw result.error;
};
const cases = [
  { name: 'plain JS functions (main isolate)', callers: 1, run: async () => plainTransforms(object) },
  { name: `engine, 3 expression patches, ${concurrency} concurrent callers`, callers: concurrency, run: engineOnce(threePatches) },
  { name: 'engine, 3 expression patches, one object at a time (coalesce: false)', callers: 1, run: engineOnce(threePatches, singleEnv) },
  { name: 'engine, 0 patches (no sandbox call)', callers: 1, run: engineOnce(noPatches) },
];

/** CPU µs the sandboxes' worker processes used so far (0 for builds that evaluate in-process). */
const workersCpu = async () => (await sandbox.workerCpuMicros?.() ?? 0) + (await singleSandbox.workerCpuMicros?.() ?? 0);

/** Runs `callers` loops of `run` for `seconds`; CPU and wall time per object. */
async function measure({ callers, run }, durationSeconds) {
  let count = 0;
  let stop = false;
  const startWorkers = await workersCpu();
  const startCpu = cpuUsage();
  const start = performance.now();
  const timer = setTimeout(() => { stop = true; }, durationSeconds * 1000);
  await Promise.all(Array.from({ length: callers }, async () => {
    while (!stop) {
      // Batches of 50 keep the timer check cheap but still give the timer a turn.
      for (let i = 0; i < 50; i += 1) await run();
      count += 50;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }));
  clearTimeout(timer);
  const wallMs = performance.now() - start;
  const cpu = cpuUsage(startCpu);
  const workers = (await workersCpu()) - startWorkers;
  return { objects: count, cpuMicrosPerObject: (cpu.user + cpu.system + workers) / count, wallMicrosPerObject: (wallMs * 1000) / count };
}

// Warm every path first (JIT, isolate setup), or whichever case runs first pays for it.
for (const entry of cases) await measure(entry, quick ? 0.1 : 0.5);
const perRound = cases.map(() => []);
for (let r = 0; r < rounds; r += 1) {
  for (const [index, entry] of cases.entries()) perRound[index].push(await measure(entry, seconds));
}
sandbox.dispose();
singleSandbox.dispose();

const results = cases.map((entry, index) => ({
  name: entry.name,
  callers: entry.callers,
  rounds: perRound[index].map((m) => ({ objects: m.objects, cpuMicrosPerObject: round(m.cpuMicrosPerObject), wallMicrosPerObject: round(m.wallMicrosPerObject) })),
  cpuMicrosPerObject: round(median(perRound[index].map((m) => m.cpuMicrosPerObject))),
  wallMicrosPerObject: round(median(perRound[index].map((m) => m.wallMicrosPerObject))),
}));
// Ratios per round (same round, same load), then the median of those.
const ratio = (index) => round(median(perRound[index].map((m, r) => m.cpuMicrosPerObject / perRound[0][r].cpuMicrosPerObject)), 2);
const [plain, concurrent, single, empty] = results;
const summary = {
  object: 'Endpoints with 3 addresses as a real API server returns them (virtualObject and hostObject with managedFields); patches: subsets[*].addresses[*].ip, metadata.annotations.team, metadata.labels.app',
  secondsPerCase: seconds,
  rounds,
  concurrency,
  results,
  engineVsPlain: ratio(1),
  singleObjectVsPlain: ratio(2),
  emptyEngineVsPlain: ratio(3),
  table: [
    { benchmark: 'patches', metric: `CPU µs/object, 3 expression patches, ${concurrency} concurrent callers (sandbox)`, value: concurrent.cpuMicrosPerObject, baseline: plain.cpuMicrosPerObject, ratio: ratio(1) },
    { benchmark: 'patches', metric: 'CPU µs/object, 3 expression patches, one object at a time, no coalescing (sandbox)', value: single.cpuMicrosPerObject, baseline: plain.cpuMicrosPerObject, ratio: ratio(2) },
    { benchmark: 'patches', metric: 'CPU µs/object, engine with 0 patches (no sandbox call)', value: empty.cpuMicrosPerObject, baseline: plain.cpuMicrosPerObject, ratio: ratio(3) },
  ],
};
const file = await writeResult('patches-throughput', summary);
for (const r of results) {
  console.log(`${r.name.padEnd(70)} ${String(r.cpuMicrosPerObject).padStart(8)} µs CPU/object ${String(r.wallMicrosPerObject).padStart(8)} µs wall/object`);
}
console.log(`engine vs plain (CPU, median of ${rounds} rounds): ${summary.engineVsPlain}x with ${concurrency} concurrent callers, ${summary.singleObjectVsPlain}x one object at a time; written to ${file}`);
