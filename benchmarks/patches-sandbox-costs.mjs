// Where the patch sandbox's CPU goes, per crossing (one worker round trip), for the three
// expression patches of patches-throughput.mjs on small items: this process (the engine and its
// side of the IPC channel), the engine alone (a stand-in sandbox that answers every call of a turn
// at once, with the answers the runtime gives, no worker), the worker processes (their side of
// the channel plus the isolate),
// and the isolate call alone (isolated-vm `applySync` in this process, with and without the time
// limit, and with lockdown.js as shipped, without it, without freezing `RegExp.prototype`,
// which is what takes V8 off its fast RegExp paths, or making it only non-extensible). Medians of the rounds. Needs a build first: `npm run build`.
//
//   node --no-node-snapshot benchmarks/patches-sandbox-costs.mjs [--quick] [--seconds 2] [--rounds 3]
//
// Writes benchmarks/results/patches-sandbox-costs.json and prints a summary.
import ivm from 'isolated-vm';
import { cpuUsage } from 'node:process';
import { applyPatches, compilePatches, PatchSandbox } from '../dist/patches/index.js';
import { sandboxSources } from '../dist/patches/sandbox-runtime.js';
import { benchArgs, median, round, writeResult } from './lib/bench-run.mjs';

const { seconds, rounds } = benchArgs({
  usage: 'usage: node --no-node-snapshot benchmarks/patches-sandbox-costs.mjs [--quick] [--seconds 2] [--rounds 3]\n(build first: npm run build)',
  numbers: { seconds: (q) => (q ? 0.2 : 2), rounds: (q) => (q ? 1 : 3) },
});

const result = compilePatches(
  [
    { path: 'subsets[*].addresses[*].ip', expression: 'value.replace(/^10\\./, "192.")' },
    { path: 'metadata.annotations.team', expression: 'value.toUpperCase() + "-" + context.vcluster.name' },
    { path: 'metadata.labels.app', expression: 'value + "-" + context.vcluster.name' },
  ],
  { configPath: 'sync.toHost.endpoints.patches', vcluster: { name: 'vc1', namespace: 'vcluster-vc1', config: {} } },
);
if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
const plan = result.plan;
const object = {
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: 'web-x-default-x-vc1', namespace: 'vcluster-vc1', labels: { app: 'web' }, annotations: { team: 'payments' } },
  subsets: [{ addresses: [1, 2, 3].map((n) => ({ ip: `10.0.0.${n}` })), ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }],
};
const translators = {
  references: { toHost: (reference) => ({ name: reference.name, namespace: reference.namespace }) },
  labels: { toHostKey: (key) => key, toVirtualKey: (key) => key },
};
// The item the engine sends for `object` (what forward-expressions.ts builds).
const item = '[null,null,0,"","10.0.0.1",0,"","10.0.0.2",0,"","10.0.0.3",1,"","payments",2,"","web"]';

/** End to end through a PatchSandbox: CPU per crossing here and in the workers. */
async function endToEnd(sandbox, callers, durationSeconds) {
  const env = { sandbox, ...translators };
  let count = 0;
  let stop = false;
  const startWorkers = await sandbox.workerCpuMicros();
  const startCrossings = sandbox.crossings;
  const startCpu = cpuUsage();
  const timer = setTimeout(() => { stop = true; }, durationSeconds * 1000);
  await Promise.all(Array.from({ length: callers }, async () => {
    while (!stop) {
      for (let i = 0; i < 50; i += 1) {
        const answer = await applyPatches(plan, { object, virtualObject: object, hostObject: object }, env);
        if (!answer.ok) throw answer.error;
      }
      count += 50;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }));
  clearTimeout(timer);
  const cpu = cpuUsage(startCpu);
  const workers = (await sandbox.workerCpuMicros()) - startWorkers;
  const crossings = sandbox.crossings - startCrossings;
  return { objectsPerCrossing: count / crossings, mainMicrosPerCrossing: (cpu.user + cpu.system) / crossings, workerMicrosPerCrossing: workers / crossings };
}

/**
 * Lockdown variants, for comparison only: the shipped script, none, or the shipped script leaving
 * `RegExp.prototype` unfrozen (the daemon never runs the last two).
 */
const lockdowns = {
  full: () => sandboxSources().lockdown,
  none: () => '',
  'regexp-prototype-unfrozen': () => {
    const marker = 'seen.add(item);';
    const source = sandboxSources().lockdown;
    if (!source.includes(marker)) throw new Error(`lockdown.js no longer contains "${marker}"; update this benchmark`);
    return source.replace(marker, `${marker} if (item === RegExp.prototype) continue;`);
  },
  // Not frozen but made non-extensible: V8's fast path needs the prototype's initial map, which
  // any integrity level (this one included) replaces.
  'regexp-prototype-non-extensible': () => {
    const marker = 'seen.add(item);';
    const source = sandboxSources().lockdown;
    if (!source.includes(marker)) throw new Error(`lockdown.js no longer contains "${marker}"; update this benchmark`);
    return source.replace(marker, `${marker} if (item === RegExp.prototype) { Object.preventExtensions(item); continue; }`);
  },
};

/** The isolate call alone, as a worker makes it, in this process. */
function isolateCall(batch, options, durationSeconds, lockdown = 'full') {
  const sources = sandboxSources();
  const isolate = new ivm.Isolate({ memoryLimit: 32 });
  try {
    const context = isolate.createContextSync();
    const lockdownSource = lockdowns[lockdown]();
    if (lockdownSource !== '') context.evalSync(lockdownSource);
    const createProgram = context.evalSync(sources.runtime, { reference: true });
    const factory = context.evalSync(plan.program.factorySource, { reference: true });
    const run = createProgram.applySync(undefined, [factory.derefInto(), plan.program.staticJson], { result: { reference: true } });
    const input = `[${Array(batch).fill(item).join(',')}]`;
    let calls = 0;
    const startCpu = cpuUsage();
    const end = performance.now() + durationSeconds * 1000;
    while (performance.now() < end) {
      for (let i = 0; i < 20; i += 1) run.applySync(undefined, ['forward', input], options);
      calls += 20;
    }
    const cpu = cpuUsage(startCpu);
    return { microsPerCall: (cpu.user + cpu.system) / calls };
  } finally {
    isolate.dispose();
  }
}

/**
 * A stand-in for PatchSandbox with no worker: the calls of one turn are answered together in the
 * next (as a crossing would coalesce them), with the runtime's answer for `object`. What is left is
 * the engine's own work on this side: matching, building items, parsing answers, copy-on-write.
 */
function answeringSandbox() {
  const answerJson = '[1,"192.0.0.1","192.0.0.2","192.0.0.3","PAYMENTS-vc1","web-vc1"]';
  let waiting = [];
  let crossings = 0;
  return {
    get crossings() {
      return crossings;
    },
    workerCpuMicros: async () => 0,
    evaluate: () => new Promise((resolve) => {
      waiting.push(resolve);
      if (waiting.length > 1) return;
      setImmediate(() => {
        const batch = waiting;
        waiting = [];
        crossings += 1;
        const answers = JSON.parse(`[${batch.map(() => answerJson).join(',')}]`);
        batch.forEach((settle, index) => settle({ ok: true, answer: answers[index] }));
      });
    }),
  };
}

const coalescing = new PatchSandbox({ timeoutMs: 5000 });
const single = new PatchSandbox({ timeoutMs: 5000, coalesce: false });
const cases = [
  { name: 'sandbox, 32 concurrent callers', run: (s) => endToEnd(coalescing, 32, s) },
  { name: 'sandbox, one object at a time (coalesce: false)', run: (s) => endToEnd(single, 1, s) },
  { name: 'engine alone (answering stand-in, no worker), 32 concurrent callers', run: (s) => endToEnd(answeringSandbox(), 32, s) },
  { name: 'isolate call, 32 objects, time limit', run: async (s) => isolateCall(32, { timeout: 5000 }, s) },
  { name: 'isolate call, 32 objects, no time limit', run: async (s) => isolateCall(32, {}, s) },
  { name: 'isolate call, 1 object, time limit', run: async (s) => isolateCall(1, { timeout: 5000 }, s) },
  { name: 'isolate call, 1 object, no time limit', run: async (s) => isolateCall(1, {}, s) },
  { name: 'isolate call, 32 objects, no time limit, no lockdown', run: async (s) => isolateCall(32, {}, s, 'none') },
  { name: 'isolate call, 32 objects, no time limit, RegExp.prototype unfrozen', run: async (s) => isolateCall(32, {}, s, 'regexp-prototype-unfrozen') },
  { name: 'isolate call, 32 objects, no time limit, RegExp.prototype only non-extensible', run: async (s) => isolateCall(32, {}, s, 'regexp-prototype-non-extensible') },
];
for (const entry of cases) await entry.run(0.3);
const perRound = cases.map(() => []);
for (let r = 0; r < rounds; r += 1) {
  for (const [index, entry] of cases.entries()) perRound[index].push(await entry.run(seconds));
}
coalescing.dispose();
single.dispose();

const results = cases.map((entry, index) => {
  const fields = Object.keys(perRound[index][0]);
  return { name: entry.name, ...Object.fromEntries(fields.map((field) => [field, round(median(perRound[index].map((m) => m[field])))])) };
});
const file = await writeResult('patches-sandbox-costs', { secondsPerCase: seconds, rounds, results });
for (const entry of results) {
  const { name, ...figures } = entry;
  console.log(`${name.padEnd(68)} ${Object.entries(figures).map(([key, value]) => `${key} ${value}`).join('  ')}`);
}
console.log(`CPU µs, medians of ${rounds} rounds; written to ${file}`);
