// CPU per object of `vcsync preview` with 3 expression patches per resource, against the same
// command on the same input without patches, and the patch engine's own figure for one such
// object, all measured in the same run, rounds interleaved, medians of the rounds. Needs a build
// first: `npm run build`.
//
//   node --no-node-snapshot benchmarks/preview-throughput.mjs [--quick] [--objects 3000] [--rounds 3] [--seconds 2]
//
// The input is what `kubectl get services,endpoints,endpointslices -A -o json` prints: one JSON
// List of `--objects` synced objects, half Endpoints (3 addresses with Pod references, one port)
// and half EndpointSlices (the same addresses, ready), each pair with its selector-less Service,
// over 10 namespaces. The config enables both resources; "3 expression patches" gives each the
// patches of patches-throughput.mjs (a regex replace on every address, an annotation, a label).
//
// Every case is a `vcsync preview -f input.json -o json` process (output thrown away), per round:
// - N objects without patches (the baseline), N objects with the patches;
// - N objects without patches, the same List as YAML in and YAML out (`-o yaml`, the default):
//   what reading and writing YAML costs per object;
// - 1 Endpoints (and its Service) without patches and with them: what the command costs before
//   and around its objects (process start, config, the sandbox's worker processes starting and
//   loading the patches), so the per-object figure can leave that fixed cost out (each the median
//   of 3 runs in the round: one short run varies too much for a figure it is subtracted from).
// CPU is the whole command's: the preview process (from /proc/self/stat's reaped-children times)
// plus its sandbox worker processes (sampled from /proc every 10 ms while they live: they are
// killed, not reaped, when the command ends, and sit idle while it prints its output).
// The figure the goal is about: (with − without − the fixed cost of the patches) / (N − 1), CPU
// µs per object; against the engine's figure for one object measured in this process in the same
// round: the same 3 patches through the syncer's patcher (`state.patcher.toHost`, as the controller
// and the preview call it) on the same translated object, with 32 concurrent callers (the figure the
// goal names; the preview patches 64 at a time) and, for reference, one object at a time without coalescing.
//
// Writes benchmarks/results/preview-throughput.json and prints a summary.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { cpuUsage } from 'node:process';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { parseConfig } from '../dist/config/index.js';
import { PatchSandbox } from '../dist/patches/index.js';
import { createHostPreview } from '../dist/syncer/host-preview.js';
import { registryConfigSchema, SYNCABLE_RESOURCES } from '../dist/syncer/resources.js';
import { benchArgs, mainJs, median, round, tempDir, writeResult } from './lib/bench-run.mjs';
import { endpoints, endpointSlice, service } from './lib/endpoints-fixtures.mjs';

const { objects, rounds, seconds, quick } = benchArgs({
  usage:
    'usage: node --no-node-snapshot benchmarks/preview-throughput.mjs [--quick] [--objects 3000] [--rounds 3] [--seconds 2]\n' +
    '  --objects N   synced objects in the input (half Endpoints, half EndpointSlices, each pair with its Service)\n' +
    '  --rounds R    rounds, every case once per round (figures are medians of the rounds)\n' +
    '  --seconds S   length of each in-process engine measurement\n' +
    '(build first: npm run build)',
  numbers: { objects: (q) => (q ? 300 : 3000), rounds: (q) => (q ? 1 : 3), seconds: (q) => (q ? 0.3 : 2) },
});
if (!(objects >= 2 && objects % 2 === 0)) throw new Error('--objects must be an even number ≥ 2');

const VCLUSTER = 'vc1';
const HOST_NAMESPACE = 'vcluster-vc1';
const NAMESPACES = 10;

/** Endpoints and slice `i` as a real cluster lists them: server fields, an annotation the patches rewrite, Pod references. */
function inputObjects(pairs) {
  const items = [];
  for (let i = 0; i < pairs; i += 1) {
    const namespace = `ns-${i % NAMESPACES}`;
    const server = (object, kind) => ({
      ...object,
      metadata: {
        ...object.metadata,
        uid: `00000000-0000-4000-8000-${kind}${String(i).padStart(11, '0')}`,
        resourceVersion: String(1000 + i),
        creationTimestamp: '2026-11-20T10:00:00Z',
        annotations: { team: 'payments' },
      },
    });
    const ep = server(endpoints(i, namespace), '0');
    for (const address of ep.subsets[0].addresses) address.targetRef = { kind: 'Pod', namespace, name: `${ep.metadata.name}-${address.ip.split('.').at(-1)}` };
    items.push(server(service(i, namespace), '1'), ep, server(endpointSlice(i, namespace), '2'));
  }
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items };
}

const patchesOf = (addressPath) => [
  `        - path: ${addressPath}`,
  '          expression: \'value.replace(/^10\\./, "192.")\'',
  '        - path: metadata.annotations.team',
  '          expression: \'value.toUpperCase() + "-" + context.vcluster.name\'',
  '        - path: metadata.labels.app',
  '          expression: \'value + "-" + context.vcluster.name\'',
];
const CONFIG_WITHOUT = 'sync:\n  toHost:\n    endpoints:\n      enabled: true\n    endpointSlices:\n      enabled: true\n';
const CONFIG_WITH = [
  'sync:', '  toHost:',
  '    endpoints:', '      enabled: true', '      patches:', ...patchesOf('subsets[*].addresses[*].ip'),
  '    endpointSlices:', '      enabled: true', '      patches:', ...patchesOf('endpoints[*].addresses[*]'),
  '',
].join('\n');

// ---- CPU of a process tree ----

const TICK_MICROS = 10_000; // USER_HZ is 100 on Linux
function statTimes(path) {
  try {
    const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
    // After "pid (comm) ": state ppid … utime(11) stime(12) cutime(13) cstime(14).
    return { ppid: Number(fields[1]), self: (Number(fields[11]) + Number(fields[12])) * TICK_MICROS, children: (Number(fields[13]) + Number(fields[14])) * TICK_MICROS };
  } catch {
    return undefined; // gone
  }
}

/** CPU µs of this process' reaped children so far. */
const reapedChildrenMicros = () => statTimes('/proc/self/stat').children;

/** Runs `vcsync preview` with `config` on `input`; CPU µs of the command and its sandbox workers, wall ms. */
async function runPreview(config, input, output = 'json') {
  const before = reapedChildrenMicros();
  const started = performance.now();
  const child = spawn(process.execPath, [mainJs, 'preview', '--config', config, '-f', input, '-o', output, '--name', VCLUSTER], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const workers = new Map(); // pid → last CPU µs seen
  let scans = 0;
  const sample = () => {
    // Look for new worker processes every 10th sample; read the known ones every time.
    if (scans % 10 === 0) {
      for (const entry of readdirSync('/proc')) {
        if (!/^\d+$/.test(entry) || workers.has(Number(entry))) continue;
        const times = statTimes(`/proc/${entry}/stat`);
        if (times?.ppid === child.pid) workers.set(Number(entry), times.self);
      }
    }
    scans += 1;
    for (const pid of workers.keys()) {
      const times = statTimes(`/proc/${pid}/stat`);
      if (times !== undefined) workers.set(pid, times.self);
    }
  };
  const timer = setInterval(sample, 10);
  const code = await new Promise((resolve) => child.on('exit', (exitCode) => resolve(exitCode)));
  clearInterval(timer);
  if (code !== 0) throw new Error(`vcsync preview --config ${config} -f ${input} exited ${code}:\n${stderr.split('\n').filter((l) => !l.includes('skipped Service')).slice(0, 10).join('\n')}`);
  const workerMicros = [...workers.values()].reduce((sum, micros) => sum + micros, 0);
  return { cpuMicros: reapedChildrenMicros() - before + workerMicros, workerMicros, workers: workers.size, wallMs: performance.now() - started };
}

/**
 * The run with the median CPU of FIXED_COST_RUNS runs of `run`. A 1-object command's CPU varies by
 * ±150 ms on a loaded machine, and the fixed cost is subtracted from an N-object figure: one run
 * moved the per-object result of N = 3,000 by ±50 µs. The fixed cost is short, so it is taken
 * more than once per round.
 */
const FIXED_COST_RUNS = 3;
async function medianRun(run) {
  const runs = [];
  for (let i = 0; i < FIXED_COST_RUNS; i += 1) runs.push(await run());
  runs.sort((a, b) => a.cpuMicros - b.cpuMicros);
  return { ...runs[Math.floor(runs.length / 2)], runsCpuMicros: runs.map((r) => r.cpuMicros) };
}

// ---- the engine in this process ----

function parsedConfig(text) {
  const parsed = parseConfig(text, 'vcluster.yaml', registryConfigSchema());
  if (!parsed.ok) throw new Error(`benchmark config invalid: ${JSON.stringify(parsed.errors)}`);
  return parsed.config;
}

/** The translated host Endpoints of the input's first Endpoints, without patches (what the patches get). */
async function translatedEndpoints(virtual, service) {
  const sandbox = new PatchSandbox();
  try {
    const built = createHostPreview(SYNCABLE_RESOURCES, { vclusterName: VCLUSTER, hostNamespace: HOST_NAMESPACE, config: parsedConfig(CONFIG_WITHOUT), sandbox });
    const [, outcome] = await built.preview.previewAll([service, virtual]);
    if (outcome?.kind !== 'host') throw new Error(`no host object for the engine's case: ${JSON.stringify(outcome)}`);
    return outcome.object;
  } finally {
    sandbox.dispose();
  }
}

/** The Endpoints patcher of the patched config, as the syncer builds it, on `sandbox`. */
function endpointsPatcher(sandbox) {
  const resource = SYNCABLE_RESOURCES.find((r) => r.kind === 'Endpoints');
  const built = resource.buildState({ vclusterName: VCLUSTER, hostNamespace: HOST_NAMESPACE, config: parsedConfig(CONFIG_WITH), sandbox });
  if (!built.ok) throw new Error(`patches invalid: ${JSON.stringify(built.errors)}`);
  return built.state.patcher;
}

/** `callers` loops of the patcher on one object for `duration` s; CPU µs per object (this process and the sandbox's workers). */
async function measureEngine(patcher, sandbox, input, callers, duration) {
  let count = 0;
  let stop = false;
  const startWorkers = await sandbox.workerCpuMicros();
  const start = cpuUsage();
  const timer = setTimeout(() => { stop = true; }, duration * 1000);
  await Promise.all(Array.from({ length: callers }, async () => {
    while (!stop) {
      for (let i = 0; i < 20; i += 1) await patcher.toHost(input);
      count += 20;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }));
  clearTimeout(timer);
  const cpu = cpuUsage(start);
  const workers = (await sandbox.workerCpuMicros()) - startWorkers;
  return (cpu.user + cpu.system + workers) / count;
}

// ---- the run ----

const dir = await tempDir('preview-throughput');
try {
  const list = inputObjects(objects / 2);
  const [firstService, firstEndpoints] = list.items;
  const files = {
    without: join(dir.path, 'without.yaml'),
    with: join(dir.path, 'with.yaml'),
    input: join(dir.path, 'input.json'),
    yaml: join(dir.path, 'input.yaml'),
    one: join(dir.path, 'one.json'),
  };
  await writeFile(files.without, CONFIG_WITHOUT);
  await writeFile(files.with, CONFIG_WITH);
  await writeFile(files.input, JSON.stringify(list, null, 4));
  await writeFile(files.yaml, stringify(list));
  await writeFile(files.one, JSON.stringify({ apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: [firstService, firstEndpoints] }, null, 4));

  const engineInput = { host: await translatedEndpoints(firstEndpoints, firstService), virtual: firstEndpoints, existingHost: undefined };
  // The time limit guards against runaway expressions; a scheduling stall on a loaded machine must not fail the benchmark.
  const sandbox = new PatchSandbox({ timeoutMs: 5000 });
  const singleSandbox = new PatchSandbox({ timeoutMs: 5000, coalesce: false });
  const patcher = endpointsPatcher(sandbox);
  const singlePatcher = endpointsPatcher(singleSandbox);

  const cases = [
    { name: `vcsync preview, ${objects} objects, no patches`, run: () => runPreview(files.without, files.input) },
    { name: `vcsync preview, ${objects} objects, 3 expression patches`, run: () => runPreview(files.with, files.input) },
    { name: 'vcsync preview, 1 object, no patches', run: () => medianRun(() => runPreview(files.without, files.one)) },
    { name: 'vcsync preview, 1 object, 3 expression patches', run: () => medianRun(() => runPreview(files.with, files.one)) },
    { name: `vcsync preview, ${objects} objects, no patches, YAML in and out`, run: () => runPreview(files.without, files.yaml, 'yaml') },
    { name: 'engine, 3 expression patches, 32 concurrent callers', run: async () => ({ cpuMicros: await measureEngine(patcher, sandbox, engineInput, 32, seconds) }) },
    { name: 'engine, 3 expression patches, one object at a time (coalesce: false)', run: async () => ({ cpuMicros: await measureEngine(singlePatcher, singleSandbox, engineInput, 1, seconds) }) },
  ];
  // Warm the engine (JIT, the workers' start): whichever case ran first would pay for it.
  await measureEngine(patcher, sandbox, engineInput, 32, quick ? 0.1 : 0.5);
  await measureEngine(singlePatcher, singleSandbox, engineInput, 1, quick ? 0.1 : 0.5);

  const perRound = cases.map(() => []);
  for (let r = 0; r < rounds; r += 1) {
    for (const [index, entry] of cases.entries()) {
      perRound[index].push(await entry.run());
      console.error(`round ${r + 1}: ${entry.name}: ${round(perRound[index].at(-1).cpuMicros / 1000)} ms CPU`);
    }
  }
  sandbox.dispose();
  singleSandbox.dispose();

  // Per round (same round, same load), then the median of the rounds.
  const perObject = perRound[0].map((_, r) => {
    const [without, withPatches, oneWithout, oneWith, yamlWithout, engine32, engine1] = perRound.map((values) => values[r].cpuMicros);
    const fixedPatches = oneWith - oneWithout;
    const marginal = (withPatches - without - fixedPatches) / (objects - 1);
    return {
      withoutPerObject: without / objects,
      withPerObject: withPatches / objects,
      overBaselinePerObject: (withPatches - without) / objects,
      startWithoutMs: oneWithout / 1000,
      startWithMs: oneWith / 1000,
      patchesStartMs: fixedPatches / 1000,
      marginalPerObject: marginal,
      baselineMarginalPerObject: (without - oneWithout) / (objects - 1),
      yamlMarginalPerObject: (yamlWithout - oneWithout) / (objects - 1),
      engine32,
      engine1,
      ratio: marginal / engine32,
      ratioSingle: marginal / engine1,
    };
  });
  const med = (field) => round(median(perObject.map((r) => r[field])));
  const summary = {
    input: `one JSON List (and the same as YAML for the YAML case): ${objects / 2} Endpoints (3 addresses with Pod references) and ${objects / 2} EndpointSlices (3 ready endpoints), each pair with its selector-less Service, over ${NAMESPACES} namespaces, as kubectl get -o json prints them`,
    patches: '3 expression patches per resource: every address (regex replace), metadata.annotations.team, metadata.labels.app',
    objects,
    rounds,
    cases: cases.map((entry, index) => ({
      name: entry.name,
      rounds: perRound[index].map((m) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, Array.isArray(v) ? v.map((x) => round(x)) : round(v)]))),
      cpuMicros: round(median(perRound[index].map((m) => m.cpuMicros))),
    })),
    perRound: perObject.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round(v)]))),
    previewWithoutPatchesMicrosPerObject: med('withoutPerObject'),
    previewWithPatchesMicrosPerObject: med('withPerObject'),
    patchesOverBaselineMicrosPerObject: med('overBaselinePerObject'),
    commandStartMs: med('startWithoutMs'),
    patchesStartMs: med('patchesStartMs'),
    patchesMarginalMicrosPerObject: med('marginalPerObject'),
    baselineMarginalMicrosPerObject: med('baselineMarginalPerObject'),
    yamlMarginalMicrosPerObject: med('yamlMarginalPerObject'),
    engineConcurrentMicrosPerObject: med('engine32'),
    engineSingleMicrosPerObject: med('engine1'),
    patchesVsEngine: round(median(perObject.map((r) => r.ratio)), 2),
    patchesVsEngineSingle: round(median(perObject.map((r) => r.ratioSingle)), 2),
  };
  summary.table = [
    { benchmark: 'preview', metric: 'CPU ms of vcsync preview of 1 object, no patches (the command\'s start)', value: summary.commandStartMs },
    { benchmark: 'preview', metric: `CPU µs/object of vcsync preview beyond its start, ${objects} objects, no patches, JSON in and out`, value: summary.baselineMarginalMicrosPerObject },
    { benchmark: 'preview', metric: `CPU µs/object of vcsync preview beyond its start, ${objects} objects, no patches, YAML in and out`, value: summary.yamlMarginalMicrosPerObject },
    { benchmark: 'preview', metric: 'CPU ms the patches add to a preview of 1 object (sandbox workers start, patches load)', value: summary.patchesStartMs },
    { benchmark: 'preview', metric: `CPU µs/object 3 expression patches add to vcsync preview, ${objects} objects, their start included`, value: summary.patchesOverBaselineMicrosPerObject, baseline: summary.engineConcurrentMicrosPerObject, ratio: round(summary.patchesOverBaselineMicrosPerObject / summary.engineConcurrentMicrosPerObject, 2) },
    { benchmark: 'preview', metric: 'CPU µs/object 3 expression patches add to vcsync preview beyond their start, vs the engine on one object (32 callers)', value: summary.patchesMarginalMicrosPerObject, baseline: summary.engineConcurrentMicrosPerObject, ratio: summary.patchesVsEngine },
    { benchmark: 'preview', metric: 'CPU µs/object 3 expression patches add to vcsync preview beyond their start, vs the engine on one object at a time (no coalescing)', value: summary.patchesMarginalMicrosPerObject, baseline: summary.engineSingleMicrosPerObject, ratio: summary.patchesVsEngineSingle },
  ];
  const file = await writeResult('preview-throughput', summary);
  for (const entry of summary.cases) console.log(`${entry.name.padEnd(72)} ${String(round(entry.cpuMicros / 1000)).padStart(9)} ms CPU`);
  console.log(
    `preview: ${summary.previewWithoutPatchesMicrosPerObject} µs/object without patches, ${summary.previewWithPatchesMicrosPerObject} with; ` +
      `the patches add ${summary.patchesStartMs} ms at start and ${summary.patchesMarginalMicrosPerObject} µs/object beyond it ` +
      `(${summary.patchesOverBaselineMicrosPerObject} µs/object with the start); the engine alone ${summary.engineConcurrentMicrosPerObject} µs/object ` +
      `(32 callers), ${summary.engineSingleMicrosPerObject} one at a time: ${summary.patchesVsEngine}x and ${summary.patchesVsEngineSingle}x; written to ${file}`,
  );
} finally {
  await dir.dispose();
}
