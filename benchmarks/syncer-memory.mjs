// Memory of the syncer process (`vcsync start`, its own process) holding N synced Endpoints (each
// with its selector-less Service, so the caches hold 2N virtual objects and N host objects): RSS
// from /proc/<pid>/status, for N = 0 (the baseline), 10,000 and 25,000, and per object
// (RSS_N − RSS_0) / N. Two readings per N: right after the syncer copied all N (what a fresh
// install sees), and after a restart against the already-synced clusters (steady state: lists,
// every key reconciled as unchanged, no creation burst behind it).
//
// The default sizes are the README table's (0, 10,000, 25,000, 50,000); populating 50,000 takes
// about 25 s since the devcluster's cluster-IP index, the whole run a few minutes.
//
//   npx tsc -p tsconfig.build.json
//   node benchmarks/syncer-memory.mjs [--quick] [--sizes 0,10000,25000,50000]
//
// Writes benchmarks/results/syncer-memory.json and prints a summary.
import { benchArgs, printSummary, round, sleep, tempDir, writeResult } from './lib/bench-run.mjs';
import { processMemory, scrapeMetrics, startDevClusterProcess, startSyncerProcess } from './lib/cluster-processes.mjs';
import { createNamespace, populateVirtual, unlimitedClient } from './lib/endpoints-fixtures.mjs';

const args = benchArgs({
  usage: 'usage: node benchmarks/syncer-memory.mjs [--quick] [--sizes 0,10000,25000,50000]\n(build first: npx tsc -p tsconfig.build.json)',
  strings: { sizes: (quick) => (quick ? '0,1000,3000' : '0,10000,25000,50000') },
});
const { quick } = args;
const sizes = args.sizes.split(',').map(Number);
if (sizes.some((size) => !Number.isInteger(size) || size < 0)) {
  console.error(`--sizes needs comma-separated whole numbers, got "${args.sizes}"`);
  process.exit(2);
}
if (!sizes.includes(0)) sizes.unshift(0);
const HIGH_QPS = 100_000;
const SETTLE_MS = 3000;
const VCLUSTER = 'bench';
const HOST_NAMESPACE = 'vcluster-bench';
const MiB = 2 ** 20;

/** Polls the syncer's metrics until `done(metrics)`; resolves with the last scrape. */
async function waitForMetrics(syncer, done, timeoutMs = 600_000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const metrics = await scrapeMetrics(syncer.metricsUrl);
    if (done(metrics)) return metrics;
    if (performance.now() > deadline) throw new Error(`syncer did not converge within ${timeoutMs} ms`);
    await sleep(250);
  }
}

const op = (metrics, result) => metrics[`vcsync_sync_operations_total{controller="endpoints",result="${result}"}`] ?? 0;
const depth = (metrics) => metrics['vcsync_workqueue_depth{name="endpoints"}'] ?? 0;
const managed = (metrics) => metrics['vcsync_managed_objects{controller="endpoints"}'] ?? 0;

async function reading(syncer) {
  await sleep(SETTLE_MS);
  const memory = await processMemory(syncer.pid);
  const metrics = await scrapeMetrics(syncer.metricsUrl);
  return {
    rssBytes: memory.rssBytes,
    peakRssBytes: memory.peakRssBytes,
    heapUsedBytes: metrics['nodejs_heap_size_used_bytes'],
    externalBytes: metrics['nodejs_external_memory_bytes'],
  };
}

async function measure(dir, n) {
  const virtual = await startDevClusterProcess(`virtual-${n}`, dir);
  const host = await startDevClusterProcess(`host-${n}`, dir);
  const virtualClient = unlimitedClient(virtual.kubeconfig, 'virtual');
  const hostClient = unlimitedClient(host.kubeconfig, 'host');
  let syncer;
  try {
    await createNamespace(hostClient, HOST_NAMESPACE);
    const populateStarted = performance.now();
    if (n > 0) await populateVirtual(virtualClient, 'default', { count: n });
    const populateSeconds = (performance.now() - populateStarted) / 1000;
    const start = () => startSyncerProcess({ dir, virtual, host, name: VCLUSTER, hostNamespace: HOST_NAMESPACE, hostQps: HIGH_QPS, hostBurst: HIGH_QPS });

    syncer = await start();
    await syncer.synced;
    await waitForMetrics(syncer, (m) => op(m, 'created') >= n && managed(m) >= n && depth(m) === 0);
    const copySeconds = (performance.now() - syncer.spawnedAt) / 1000;
    const afterSync = await reading(syncer);
    await syncer.stop();

    syncer = await start();
    await syncer.synced;
    await waitForMetrics(syncer, (m) => op(m, 'unchanged') + op(m, 'updated') >= n && depth(m) === 0);
    const restartSeconds = (performance.now() - syncer.spawnedAt) / 1000;
    const restarted = await reading(syncer);
    const final = await scrapeMetrics(syncer.metricsUrl);
    const errors = op(final, 'error') + op(final, 'terminal_error');
    console.log(
      `  N=${n}: RSS after sync ${round(afterSync.rssBytes / MiB, 1)} MiB, after restart ${round(restarted.rssBytes / MiB, 1)} MiB ` +
        `(populate ${round(populateSeconds, 1)} s, sync ${round(copySeconds, 1)} s, restart ${round(restartSeconds, 1)} s)`,
    );
    return { n, populateSeconds: round(populateSeconds), syncSeconds: round(copySeconds), restartSeconds: round(restartSeconds), errors, afterSync, restarted };
  } finally {
    await syncer?.stop();
    virtualClient.close();
    hostClient.close();
    await virtual.stop();
    await host.stop();
  }
}

const dir = await tempDir('syncer-memory');
try {
  console.log(`syncer-memory: sizes ${sizes.join(', ')}${quick ? ' (quick)' : ''}`);
  const runs = [];
  for (const n of sizes) runs.push(await measure(dir.path, n));
  const empty = runs.find((r) => r.n === 0);
  const perObject = (run, which) => (run.n === 0 ? undefined : round((run[which].rssBytes - empty[which].rssBytes) / run.n, 0));
  const rows = runs.filter((r) => r.n > 0).map((r) => ({
    n: r.n,
    rssAfterSyncMiB: round(r.afterSync.rssBytes / MiB, 1),
    rssRestartedMiB: round(r.restarted.rssBytes / MiB, 1),
    bytesPerObjectAfterSync: perObject(r, 'afterSync'),
    bytesPerObjectRestarted: perObject(r, 'restarted'),
  }));
  const largest = runs.filter((r) => r.n > 0).at(-1);
  const secondLargest = runs.filter((r) => r.n > 0).at(-2);
  const marginal =
    largest && secondLargest
      ? round((largest.restarted.rssBytes - secondLargest.restarted.rssBytes) / (largest.n - secondLargest.n), 0)
      : undefined;
  const result = {
    sizes,
    quick,
    hostQps: HIGH_QPS,
    setup: {
      syncer: '`vcsync start` in its own process, --no-leader-elect, 10 workers, host QPS/burst 100000, no patches; RSS = VmRSS of /proc/<pid>/status',
      objects: 'N Endpoints (3 addresses, 1 port) + N selector-less Services in the virtual cluster; N Endpoints on the host',
      readings: `afterSync: ${SETTLE_MS / 1000} s after the first copy of all N finished; restarted: a new syncer process against the synced clusters, ${SETTLE_MS / 1000} s after every key reconciled unchanged`,
      perObject: '(RSS_N − RSS_0) / N, RSS_0 = the same syncer with an empty virtual cluster',
    },
    raw: runs,
    rssEmptyMiB: round(empty.restarted.rssBytes / MiB, 1),
    perSize: rows,
    marginalBytesPerObjectRestarted: marginal,
    table: [
      { benchmark: 'syncer-memory', metric: 'syncer RSS, no objects, MiB', value: round(empty.restarted.rssBytes / MiB, 1) },
      ...rows.flatMap((row) => [
        { benchmark: 'syncer-memory', metric: `syncer RSS, ${row.n} Endpoints synced (restarted), MiB`, value: row.rssRestartedMiB, baseline: round(empty.restarted.rssBytes / MiB, 1), ratio: round(row.rssRestartedMiB / (empty.restarted.rssBytes / MiB)) },
        { benchmark: 'syncer-memory', metric: `bytes per synced Endpoints, N=${row.n}, restarted: (RSS_N − RSS_0) / N`, value: row.bytesPerObjectRestarted },
        { benchmark: 'syncer-memory', metric: `bytes per synced Endpoints, N=${row.n}, right after the first sync`, value: row.bytesPerObjectAfterSync },
      ]),
    ],
  };
  const file = await writeResult('syncer-memory', result);
  printSummary('syncer-memory (RSS of the syncer process)', [
    ['empty', `${result.rssEmptyMiB} MiB`],
    ...rows.map((row) => [`N=${row.n}`, `${row.rssRestartedMiB} MiB restarted (${row.bytesPerObjectRestarted} B/object), ${row.rssAfterSyncMiB} MiB after first sync (${row.bytesPerObjectAfterSync} B/object)`]),
    ...(marginal !== undefined ? [['marginal (restarted)', `${marginal} B/object between the two largest sizes`]] : []),
    ['results', file],
  ]);
} finally {
  await dir.dispose();
}
