// Start to ready, and whether the syncer stays responsive during a large sync.
//
// 1. Start to ready: `vcsync start` (its own process, devclusters on both sides) spawned against
//    clusters holding 0 and N (default 10,000) Endpoints already synced; the times from spawn to
//    the first /readyz 200 (the process serves), to the first /syncz 200 (caches of both clusters
//    synced) and to every object reconciled (the syncer's vcsync_initial_sync_done_timestamp_seconds:
//    the first pass over the keys queued at start ended, nothing queued or in flight); the syncer's
//    CPU time to /syncz 200 and to every object reconciled. Median of --rounds. The same restart,
//    unsampled, against the M synced of part 2.
//    Baseline in the same run: a bare Node process (same flags) answering HTTP 200, spawn to first
//    200: what no daemon start can beat. And a bare Node process that only lists what the syncer
//    lists (lib/bare-lister.mjs), spawn to every list ended: what no restart's caches can beat,
//    one run before each timed start. Module-load share: a fresh Node importing what `vcsync
//    start` imports before it reads its config (run-cli, the logger, run-syncer), wall and CPU.
// 2. Never deaf: GET /readyz and GET /metrics sampled every 50 ms (one request of each kind in
//    flight at a time; a request that waits counts all its wait) while the syncer copies M
//    (default 50,000) Endpoints to an empty host (the initial sync), and while a restarted syncer
//    reconciles the M already-synced ones (the burst without I/O); baseline in the same run: the
//    same sampling against the idle, converged syncer. p50, p99 and max per phase; the restart
//    phase median of --rounds.
//
//   npx tsc -p tsconfig.build.json
//   node benchmarks/syncer-startup.mjs [--quick] [--synced 10000] [--large 50000] [--rounds 3] [--profile DIR]
//
// --profile DIR writes a CPU profile of every syncer process (node --cpu-prof, written at its exit) to DIR.
// Writes benchmarks/results/syncer-startup.json and prints a summary.
import { spawn } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchArgs, benchmarksDir, median, percentile, printSummary, repoDir, round, sleep, tempDir, writeResult } from './lib/bench-run.mjs';
import { scrapeMetrics, startDevClusterProcess, startSyncerProcess } from './lib/cluster-processes.mjs';
import { createNamespace, populateVirtual, unlimitedClient } from './lib/endpoints-fixtures.mjs';

const args = benchArgs({
  usage:
    'usage: node benchmarks/syncer-startup.mjs [--quick] [--synced 10000] [--large 50000] [--rounds 3] [--profile DIR]\n' +
    '(build first: npx tsc -p tsconfig.build.json)',
  numbers: { synced: (quick) => (quick ? 1000 : 10_000), large: (quick) => (quick ? 3000 : 50_000), rounds: (quick) => (quick ? 1 : 3) },
  strings: { profile: '' },
});
const { quick, synced: SYNCED, large: LARGE, rounds: ROUNDS } = args;
const HIGH_QPS = 100_000;
const SAMPLE_EVERY_MS = 50;
const IDLE_SAMPLE_MS = quick ? 2000 : 5000;
const VCLUSTER = 'bench';
const HOST_NAMESPACE = 'vcluster-bench';
const CLOCK_TICKS_PER_SECOND = 100; // Linux USER_HZ: /proc/<pid>/stat counts CPU time in these

const op = (metrics, result) => metrics[`vcsync_sync_operations_total{controller="endpoints",result="${result}"}`] ?? 0;
const depth = (metrics) => metrics['vcsync_workqueue_depth{name="endpoints"}'] ?? 0;
/** When the syncer's first pass over the keys queued at start ended, Unix ms; 0 before. */
const initialSyncDoneMs = (metrics) => (metrics['vcsync_initial_sync_done_timestamp_seconds{controller="endpoints"}'] ?? 0) * 1000;
/** ms from the syncer's spawn to a Unix time in ms (the metric's clock is the wall clock). */
const sinceSpawn = (syncer, unixMs) => unixMs - (performance.timeOrigin + syncer.spawnedAt);

/** User + system CPU time of a Linux process so far, ms. */
async function processCpuMs(pid) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** Resolves with `performance.now()` of the first GET `url` answering 200, polling every `everyMs`. */
async function firstOk(url, everyMs = 5, timeoutMs = 600_000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.status === 200) return performance.now();
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/**
 * Polls the syncer's metrics until `done(metrics)`; resolves with `performance.now()` then. A
 * failed scrape is retried (a keep-alive connection the server closed as it was reused); the
 * deadline still holds.
 */
async function converged(syncer, done, timeoutMs = 900_000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const metrics = await scrapeMetrics(syncer.metricsUrl).catch((error) => {
      console.error(`  (scrape failed, retrying: ${error.cause?.code ?? error.message})`);
      return undefined;
    });
    if (metrics !== undefined && done(metrics)) return performance.now();
    if (performance.now() > deadline) throw new Error(`syncer did not converge within ${timeoutMs} ms`);
    await sleep(SAMPLE_EVERY_MS);
  }
}

/**
 * Samples GET `<base>/readyz` and `<base>/metrics` every {@link SAMPLE_EVERY_MS}, each kind with
 * at most one request in flight, until `stop()`; resolves with the latencies in ms per path.
 */
function sampleLatency(base) {
  const latencies = { readyz: [], metrics: [] };
  let stopped = false;
  const loop = async (path) => {
    while (!stopped) {
      const started = performance.now();
      try {
        const response = await fetch(`${base}/${path}`);
        await response.arrayBuffer();
        latencies[path].push({ at: started, ms: performance.now() - started });
      } catch {
        // the syncer stopped under the sampler
      }
      const wait = SAMPLE_EVERY_MS - (performance.now() - started);
      if (wait > 0) await sleep(wait);
    }
  };
  const running = Promise.all([loop('readyz'), loop('metrics')]);
  return {
    stop: async () => {
      stopped = true;
      await running;
      return latencies;
    },
  };
}

function summarize(values) {
  return { samples: values.length, p50Ms: round(percentile(values, 50), 1), p99Ms: round(percentile(values, 99), 1), maxMs: values.length > 0 ? round(Math.max(...values), 1) : undefined };
}

/**
 * What a window without samples means: a phase can end before any request of it was answered (the
 * restart reconciled everything within one sampling interval after its caches synced), and then it
 * has no p50, p99 or max.
 */
const NO_SAMPLES = `no samples: no request was answered in this window (it ended within one ${SAMPLE_EVERY_MS} ms sampling interval, or every request failed)`;

/** One path's figures of a window as the summary prints them, or why there are none. */
function pathFigures(path, s) {
  if (s.p99Ms === undefined) return `/${path} ${NO_SAMPLES}`;
  return `/${path} p50 ${s.p50Ms} p99 ${s.p99Ms} max ${s.maxMs} ms`;
}

/** A figure for the results table: the number, or `no samples` (then no ratio either). */
const tableValue = (value) => value ?? 'no samples';
const tableRatio = (value, baseline) => (value === undefined || baseline === undefined ? undefined : round(value / baseline));

/** p50/p99/max per path of the samples answered at or after `from` (default all). */
function latencySummary(latencies, from = -Infinity) {
  const after = (samples) => samples.filter((sample) => sample.at + sample.ms >= from).map((sample) => sample.ms);
  return { readyz: summarize(after(latencies.readyz)), metrics: summarize(after(latencies.metrics)) };
}

/**
 * The whole window; the requests answered after the caches synced (their wait overlapped the
 * workers' burst; before it the lists run); and the 5 slowest, with when they were sent (ms after
 * the caches synced: negative while listing).
 */
async function phases(syncer, latencies) {
  const synced = await syncer.synced;
  const slowest = Object.fromEntries(
    Object.entries(latencies).map(([path, samples]) => [path, [...samples].sort((a, b) => b.ms - a.ms).slice(0, 5).map((sample) => ({ ms: round(sample.ms, 1), sentAfterSyncedMs: round(sample.at - synced.at, 0) }))]),
  );
  return { ...latencySummary(latencies), reconciling: latencySummary(latencies, synced.at), slowest };
}

/** Spawns Node with `script` (ESM) and resolves with its stdout's last line parsed as JSON. */
function nodeJson(script) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: repoDir, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1))) : reject(new Error(`node exited ${code}`))));
  });
}

/** What `vcsync start` imports before it reads its config: wall and CPU ms, and Node's own bootstrap. */
function moduleLoad() {
  const dist = (file) => JSON.stringify(pathToFileURL(join(repoDir, 'dist', file)).href);
  return nodeJson(
    [
      'const bootstrapMs = performance.now();',
      'const cpu = process.cpuUsage();',
      `await import(${dist('cli/run-cli.js')});`,
      `await Promise.all([import(${dist('observe/logger.js')}), import(${dist('cli/run-syncer.js')})]);`,
      'const used = process.cpuUsage(cpu);',
      'console.log(JSON.stringify({ bootstrapMs, wallMs: performance.now() - bootstrapMs, cpuMs: (used.user + used.system) / 1000 }));',
    ].join('\n'),
  );
}

/** Spawn → first 200 of a bare Node HTTP server started with the syncer's Node flags. */
async function bareNodeReady() {
  const script = "import http from 'node:http'; const server = http.createServer((q, s) => s.end('ok')).listen(0, '127.0.0.1', () => console.log(server.address().port));";
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise((resolve) => child.stdout.once('data', (chunk) => resolve(String(chunk).trim())));
    const readyAt = await firstOk(`http://127.0.0.1:${port}/`);
    return readyAt - spawnedAt;
  } finally {
    child.kill();
  }
}

/**
 * Spawn → every collection the syncer lists listed by a bare Node process (lib/bare-lister.mjs:
 * the same pages, parsed whole, nothing kept, no vcsync module): what no restart's /syncz can beat.
 */
async function bareListed(fixture) {
  const managed = encodeURIComponent(`vcluster.loft.sh/managed-by=${VCLUSTER}`);
  const collections = [`${fixture.virtual.url}/api/v1/endpoints`, `${fixture.virtual.url}/api/v1/services`, `${fixture.host.url}/api/v1/namespaces/${HOST_NAMESPACE}/endpoints?labelSelector=${managed}`];
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [join(benchmarksDir, 'lib', 'bare-lister.mjs'), ...collections], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let out = '';
  const line = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve({ at: performance.now(), record: JSON.parse(out.split('\n')[0]) });
    });
    void exited.then((code) => reject(new Error(`bare-lister.mjs exited ${code} before printing`)));
  });
  await exited;
  return { listedMs: round(line.at - spawnedAt, 1), items: line.record.items, cpuMs: round(line.record.cpuMs, 0) };
}

async function startSyncer(dir, virtual, host, label) {
  const nodeArgs = args.profile !== '' ? ['--cpu-prof', `--cpu-prof-dir=${args.profile}`, `--cpu-prof-name=syncer-startup-${label}-${Date.now()}.cpuprofile`] : [];
  if (args.profile !== '') await mkdir(args.profile, { recursive: true });
  return startSyncerProcess({ dir, virtual, host, name: VCLUSTER, hostNamespace: HOST_NAMESPACE, hostQps: HIGH_QPS, hostBurst: HIGH_QPS, nodeArgs });
}

/** Clusters with `n` Endpoints (and Services) in the virtual cluster and an empty host namespace. */
async function clusters(dir, n) {
  const virtual = await startDevClusterProcess(`virtual-${n}`, dir);
  const host = await startDevClusterProcess(`host-${n}`, dir);
  const virtualClient = unlimitedClient(virtual.kubeconfig, 'virtual');
  const hostClient = unlimitedClient(host.kubeconfig, 'host');
  await createNamespace(hostClient, HOST_NAMESPACE);
  if (n > 0) await populateVirtual(virtualClient, 'default', { count: n });
  return {
    virtual,
    host,
    close: async () => {
      virtualClient.close();
      hostClient.close();
      await virtual.stop();
      await host.stop();
    },
  };
}

/**
 * One start against clusters already synced with `n`: spawn → /readyz 200, /syncz 200, every
 * object reconciled (the first pass the syncer reports, checked against the counted reconciles).
 */
async function timedStart(dir, fixture, n, label) {
  const syncer = await startSyncer(dir, fixture.virtual, fixture.host, label);
  try {
    const readyAt = await firstOk(`${syncer.metricsUrl}/readyz`);
    const syncedAt = await firstOk(`${syncer.metricsUrl}/syncz`);
    const cpuToSyncedMs = await processCpuMs(syncer.pid);
    let reconciled = 0;
    await converged(syncer, (m) => {
      reconciled = op(m, 'unchanged') + op(m, 'updated');
      return initialSyncDoneMs(m) > 0;
    });
    const cpuToReconciledMs = await processCpuMs(syncer.pid); // idle after the pass: no later work of note
    const metrics = await scrapeMetrics(syncer.metricsUrl);
    if (reconciled < n) throw new Error(`the first pass ended after ${reconciled} reconciles of ${n} synced objects`);
    return {
      readyMs: round(readyAt - syncer.spawnedAt, 1),
      syncedMs: round(syncedAt - syncer.spawnedAt, 1),
      reconciledMs: round(sinceSpawn(syncer, initialSyncDoneMs(metrics)), 1),
      cpuToSyncedMs: round(cpuToSyncedMs, 0),
      cpuToReconciledMs: round(cpuToReconciledMs, 0),
    };
  } finally {
    await syncer.stop();
  }
}

async function startToReady(dir, n) {
  const fixture = await clusters(dir, n);
  try {
    const first = await startSyncer(dir, fixture.virtual, fixture.host, `populate-${n}`);
    await converged(first, (m) => op(m, 'created') >= n && depth(m) === 0);
    await first.stop();
    const runs = [];
    const listerRuns = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      listerRuns.push(await bareListed(fixture));
      runs.push(await timedStart(dir, fixture, n, `synced-${n}`));
    }
    const bareLister = { listedMs: round(median(listerRuns.map((run) => run.listedMs)), 1), cpuMs: round(median(listerRuns.map((run) => run.cpuMs)), 0), runs: listerRuns };
    console.log(`  ${n} synced: a bare Node process lists what the syncer lists (${listerRuns[0].items} objects) in ${bareLister.listedMs} ms, ${bareLister.cpuMs} ms CPU (median of ${listerRuns.length})`);
    return { ...timedSummary(n, runs), bareLister };
  } finally {
    await fixture.close();
  }
}

/** Medians of {@link timedStart} runs against `n` synced, printed. */
function timedSummary(n, runs) {
  const med = (key) => round(median(runs.map((run) => run[key])), 1);
  const summary = { n, runs, readyMs: med('readyMs'), syncedMs: med('syncedMs'), reconciledMs: med('reconciledMs'), cpuToSyncedMs: med('cpuToSyncedMs'), cpuToReconciledMs: med('cpuToReconciledMs') };
  console.log(`  ${n} synced: ${startFigures(summary)} (median of ${runs.length})`);
  return summary;
}

const startFigures = (s) => `/readyz ${s.readyMs} ms, /syncz ${s.syncedMs} ms, every object reconciled ${s.reconciledMs} ms; CPU to /syncz ${s.cpuToSyncedMs} ms, to reconciled ${s.cpuToReconciledMs} ms`;

/** The sampled latencies during the initial sync of `m`, during restarts against the synced `m`, and idle. */
async function neverDeaf(dir, m) {
  const fixture = await clusters(dir, m);
  try {
    const syncer = await startSyncer(dir, fixture.virtual, fixture.host, `initial-${m}`);
    let initial;
    let idle;
    try {
      const sampler = sampleLatency(syncer.metricsUrl);
      const doneAt = await converged(syncer, (metrics) => op(metrics, 'created') >= m && depth(metrics) === 0);
      initial = { ...(await phases(syncer, await sampler.stop())), seconds: round((doneAt - syncer.spawnedAt) / 1000, 1) };
      const idleSampler = sampleLatency(syncer.metricsUrl);
      await sleep(IDLE_SAMPLE_MS);
      idle = latencySummary(await idleSampler.stop());
    } finally {
      await syncer.stop();
    }
    // The restart unsampled first (as part 1 against N): spawn → every object reconciled.
    const timedRuns = [];
    for (let i = 0; i < ROUNDS; i += 1) timedRuns.push(await timedStart(dir, fixture, m, `synced-${m}`));
    const timed = timedSummary(m, timedRuns);
    const restarts = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      const restarted = await startSyncer(dir, fixture.virtual, fixture.host, `restart-${m}`);
      try {
        const sampler = sampleLatency(restarted.metricsUrl);
        await converged(restarted, (metrics) => initialSyncDoneMs(metrics) > 0);
        const doneMs = sinceSpawn(restarted, initialSyncDoneMs(await scrapeMetrics(restarted.metricsUrl)));
        restarts.push({ ...(await phases(restarted, await sampler.stop())), seconds: round(doneMs / 1000, 2) });
      } finally {
        await restarted.stop();
      }
    }
    const medians = (pick) => {
      // A round whose window had no samples has no figure: the median is of the rounds that have one.
      const med = (path, key) => round(median(restarts.map((r) => pick(r)[path][key]).filter((value) => value !== undefined)), 1);
      return Object.fromEntries(['readyz', 'metrics'].map((path) => [path, { p50Ms: med(path, 'p50Ms'), p99Ms: med(path, 'p99Ms'), maxMs: med(path, 'maxMs') }]));
    };
    const restart = { ...medians((r) => r), reconciling: medians((r) => r.reconciling), rounds: restarts };
    const line = (label, s) => `  ${label}: ${pathFigures('readyz', s.readyz)}; ${pathFigures('metrics', s.metrics)}`;
    console.log(line(`initial sync of ${m}`, initial));
    console.log(line(`  of which after the caches synced`, initial.reconciling));
    console.log(line(`restart with ${m} synced (median of ${ROUNDS})`, restart));
    console.log(line(`  of which after the caches synced`, restart.reconciling));
    console.log(line('idle (baseline)', idle));
    return { m, timed, initial, restart, idle };
  } finally {
    await fixture.close();
  }
}

const dir = await tempDir('syncer-startup');
try {
  console.log(`syncer-startup: ${SYNCED} synced, ${LARGE} for the sampling, ${ROUNDS} round(s)${quick ? ' (quick)' : ''}`);
  const baselineRuns = [];
  const loadRuns = [];
  for (let i = 0; i < Math.max(3, ROUNDS); i += 1) {
    baselineRuns.push(await bareNodeReady());
    loadRuns.push(await moduleLoad());
  }
  const bareNodeMs = round(median(baselineRuns), 1);
  const modules = { wallMs: round(median(loadRuns.map((r) => r.wallMs)), 1), cpuMs: round(median(loadRuns.map((r) => r.cpuMs)), 1), bootstrapMs: round(median(loadRuns.map((r) => r.bootstrapMs)), 1), runs: loadRuns };
  console.log(`  bare Node spawn → 200: ${bareNodeMs} ms; vcsync start's modules: ${modules.wallMs} ms wall, ${modules.cpuMs} ms CPU`);
  const empty = await startToReady(dir.path, 0);
  const full = await startToReady(dir.path, SYNCED);
  const deaf = await neverDeaf(dir.path, LARGE);
  const result = {
    quick,
    synced: SYNCED,
    large: LARGE,
    rounds: ROUNDS,
    setup: {
      syncer: '`vcsync start` in its own process, --no-leader-elect, 10 workers, host QPS/burst 100000, no patches, devcluster processes (memory storage) on both sides',
      ready: 'spawn → first 200 of /readyz (the process serves) and of /syncz (caches of both clusters synced), polled every 5 ms; → every object reconciled: vcsync_initial_sync_done_timestamp_seconds (the first pass over the keys queued at start ended, nothing queued or in flight; its reconciles counted ≥ N); CPU from /proc at /syncz and once the pass is reported (polled every 50 ms)',
      baseline: 'a bare Node process with the same flags answering HTTP 200: spawn → first 200',
      bareLister: 'a bare Node process (benchmarks/lib/bare-lister.mjs, no vcsync module) listing what the syncer lists (virtual Endpoints and Services, the host namespace\'s managed Endpoints) concurrently, 500 per page, each page parsed whole: spawn → every list ended; interleaved with the timed starts',
      modules: "a fresh Node importing dist/cli/run-cli.js, then dist/observe/logger.js and dist/cli/run-syncer.js (what `vcsync start` loads before reading its config); bootstrap = Node's own start before the script",
      sampling: `GET /readyz and /metrics every ${SAMPLE_EVERY_MS} ms, one of each in flight; initial = while copying to an empty host; restart = a new syncer reconciling the already-synced objects; idle = ${IDLE_SAMPLE_MS / 1000} s against the converged syncer`,
    },
    bareNodeReadyMs: bareNodeMs,
    baselineRuns: baselineRuns.map((value) => round(value, 1)),
    modules,
    startEmpty: empty,
    startSynced: full,
    neverDeaf: deaf,
    table: [
      { benchmark: 'syncer-startup', metric: `start → /readyz 200, ${SYNCED} synced, ms`, value: full.readyMs, baseline: bareNodeMs, ratio: round(full.readyMs / bareNodeMs) },
      { benchmark: 'syncer-startup', metric: `start → /syncz 200 (caches synced), ${SYNCED} synced, ms`, value: full.syncedMs, baseline: empty.syncedMs, ratio: round(full.syncedMs / empty.syncedMs) },
      { benchmark: 'syncer-startup', metric: `start → /syncz 200 (caches synced), ${SYNCED} synced, vs a bare Node process listing the same, ms`, value: full.syncedMs, baseline: full.bareLister.listedMs, ratio: round(full.syncedMs / full.bareLister.listedMs) },
      { benchmark: 'syncer-startup', metric: `start → every object reconciled, ${SYNCED} synced, ms`, value: full.reconciledMs, baseline: bareNodeMs, ratio: round(full.reconciledMs / bareNodeMs) },
      { benchmark: 'syncer-startup', metric: `start → every object reconciled, ${SYNCED} synced, vs a bare Node process listing the same, ms`, value: full.reconciledMs, baseline: full.bareLister.listedMs, ratio: round(full.reconciledMs / full.bareLister.listedMs) },
      { benchmark: 'syncer-startup', metric: `start → every object reconciled, ${LARGE} synced, ms`, value: deaf.timed.reconciledMs, baseline: bareNodeMs, ratio: round(deaf.timed.reconciledMs / bareNodeMs) },
      { benchmark: 'syncer-startup', metric: `syncer CPU, start → every object reconciled, ${SYNCED} synced, ms`, value: full.cpuToReconciledMs, baseline: empty.cpuToReconciledMs, ratio: round(full.cpuToReconciledMs / empty.cpuToReconciledMs) },
      { benchmark: 'syncer-startup', metric: 'module loading of `vcsync start`, wall ms', value: modules.wallMs },
      { benchmark: 'syncer-startup', metric: 'module loading of `vcsync start`, CPU ms', value: modules.cpuMs },
      ...[
        [`/readyz p99 during the initial sync of ${LARGE}, ms`, deaf.initial.readyz.p99Ms, deaf.idle.readyz.p99Ms],
        [`/metrics p99 during the initial sync of ${LARGE}, ms`, deaf.initial.metrics.p99Ms, deaf.idle.metrics.p99Ms],
        [`/readyz p99 while a restart reconciles ${LARGE} synced, ms`, deaf.restart.reconciling.readyz.p99Ms, deaf.idle.readyz.p99Ms],
        [`/readyz max during a restart with ${LARGE} synced (lists included), ms`, deaf.restart.readyz.maxMs, deaf.idle.readyz.maxMs],
        [`/metrics max during a restart with ${LARGE} synced (lists included), ms`, deaf.restart.metrics.maxMs, deaf.idle.metrics.maxMs],
      ].map(([metric, value, baseline]) => ({ benchmark: 'syncer-startup', metric, value: tableValue(value), baseline, ratio: tableRatio(value, baseline) })),
    ],
  };
  const file = await writeResult('syncer-startup', result);
  printSummary('syncer-startup', [
    ['bare Node spawn → 200 (baseline)', `${bareNodeMs} ms`],
    ['modules of vcsync start', `${modules.wallMs} ms wall, ${modules.cpuMs} ms CPU`],
    ['start, 0 synced', startFigures(empty)],
    [`start, ${SYNCED} synced`, startFigures(full)],
    [`  bare Node lister, ${SYNCED} synced`, `every list ended ${full.bareLister.listedMs} ms, ${full.bareLister.cpuMs} ms CPU`],
    [`start, ${LARGE} synced`, startFigures(deaf.timed)],
    [`initial sync of ${LARGE}`, `${pathFigures('readyz', deaf.initial.readyz)}, ${pathFigures('metrics', deaf.initial.metrics)}`],
    [`restart, ${LARGE} synced`, `${pathFigures('readyz', deaf.restart.readyz)}, ${pathFigures('metrics', deaf.restart.metrics)}`],
    ['  after the caches synced', `${pathFigures('readyz', deaf.restart.reconciling.readyz)}, ${pathFigures('metrics', deaf.restart.reconciling.metrics)}`],
    ['idle (baseline)', `${pathFigures('readyz', deaf.idle.readyz)}, ${pathFigures('metrics', deaf.idle.metrics)}`],
    ['results', file],
  ]);
} finally {
  await dir.dispose();
}
