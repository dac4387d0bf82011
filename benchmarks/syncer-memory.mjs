// Memory of the syncer process (`vcsync start`, its own process) holding N synced Endpoints (each
// with its selector-less Service, so the caches hold 2N virtual objects and N host objects), for
// N = 0 (the baseline, measured in the same run), 50,000 and 100,000. Two figures per reading:
// RSS (VmRSS of /proc/<pid>/status) and the live heap (heapUsed after a full gc: the syncer runs
// with --expose-gc and benchmarks/lib/heap-probe.mjs, which collects and reports on SIGUSR2), and
// per object (X_N − X_0) / N. RSS is read 30 s after the syncer converged: the daemon gives the
// heap pages of its sync burst back once it is quiet (src/manager/heap-reclaimer.ts); the reading
// 3 s after (rssEarlyBytes) is kept beside it. The heap probe also reports the heap's committed
// size before the gc and each V8 space's size, to tell live objects from pages V8 holds. After the gc
// the anonymous RSS (RssAnon) less V8's resident heap pages is what the process holds outside the
// V8 heap (outsideHeap…: malloc, thread stacks), read per object like the rest.
//
// Per N the clusters are populated once; the syncer then copies all N (reading "afterSync": what
// a fresh install sees) and is restarted `--samples` times against the synced clusters (readings
// "restarted": lists, every key reconciled as unchanged; the figures are their medians).
//
// The objects are as a real kube-apiserver serves them: the devcluster keeps
// `metadata.managedFields` (one entry per writer, with its fieldsV1) like the real server, and the
// run checks that every cached kind carries them and records their served sizes.
//
// With --resource endpointslices the objects are N EndpointSlices (3 endpoints each, each naming
// its selector-less Service by the kubernetes.io/service-name label) and only their sync is on.
//
//   npx tsc -p tsconfig.build.json
//   node benchmarks/syncer-memory.mjs [--quick] [--sizes 0,50000,100000] [--samples 3] [--resource endpoints|endpointslices]
//
// Writes benchmarks/results/syncer-memory.json (syncer-memory-endpointslices.json with
// --resource endpointslices) and prints a summary.
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { benchArgs, benchmarksDir, median, printSummary, round, sleep, tempDir, writeResult } from './lib/bench-run.mjs';
import { processMemory, scrapeMetrics, startDevClusterProcess, startSyncerProcess } from './lib/cluster-processes.mjs';
import { collectionPath, createNamespace, objectName, objectPath, populateVirtual, resultName, servicesType, syncConfig, tableName, unlimitedClient, RESOURCE_CHOICES, RESOURCE_USAGE, SYNC_RESOURCES } from './lib/endpoints-fixtures.mjs';

const args = benchArgs({
  usage: `usage: node benchmarks/syncer-memory.mjs [--quick] [--sizes 0,50000,100000] [--samples 3] [--resource endpoints|endpointslices]\n${RESOURCE_USAGE}\n(build first: npx tsc -p tsconfig.build.json)`,
  strings: { sizes: (quick) => (quick ? '0,1000,3000' : '0,50000,100000'), resource: 'endpoints' },
  choices: { resource: RESOURCE_CHOICES },
  numbers: { samples: 3 },
});
/** The resource synced and measured. */
const RESOURCE = SYNC_RESOURCES[args.resource];
/** The name of this run's rows in the README table. */
const BENCHMARK = tableName('syncer-memory', RESOURCE);
const { quick } = args;
const sizes = args.sizes.split(',').map(Number);
if (sizes.some((size) => !Number.isInteger(size) || size < 0)) {
  console.error(`--sizes needs comma-separated whole numbers, got "${args.sizes}"`);
  process.exit(2);
}
if (!Number.isInteger(args.samples) || args.samples < 1) {
  console.error(`--samples needs a whole number ≥ 1, got ${args.samples}`);
  process.exit(2);
}
if (!sizes.includes(0)) sizes.unshift(0);
const HIGH_QPS = 100_000;
/** RSS is read this long after the syncer converged (the daemon gives back a burst's heap pages once it is quiet, ~10-20 s). */
const SETTLE_MS = 30_000;
/** And, for comparison, this soon after (what the readings were taken at before). */
const EARLY_MS = 3000;
const VCLUSTER = 'bench';
const HOST_NAMESPACE = 'vcluster-bench';
const MiB = 2 ** 20;
const HEAP_PROBE = join(benchmarksDir, 'lib', 'heap-probe.mjs');

/**
 * Polls the syncer's metrics until `done(metrics)`; resolves with the last scrape. A failed scrape
 * (a busy syncer on a loaded machine may reset one) is retried until the deadline.
 */
async function waitForMetrics(syncer, done, timeoutMs = 600_000) {
  const deadline = performance.now() + timeoutMs;
  let lastError;
  for (;;) {
    try {
      const metrics = await scrapeMetrics(syncer.metricsUrl);
      if (done(metrics)) return metrics;
    } catch (error) {
      lastError = error;
    }
    if (performance.now() > deadline) throw new Error(`syncer did not converge within ${timeoutMs} ms${lastError ? ` (last scrape: ${lastError.message})` : ''}\n${syncer.process.stderr}`);
    await sleep(250);
  }
}

const op = (metrics, result) => metrics[`vcsync_sync_operations_total{controller="${RESOURCE.controller}",result="${result}"}`] ?? 0;
const depth = (metrics) => metrics[`vcsync_workqueue_depth{name="${RESOURCE.controller}"}`] ?? 0;
const managed = (metrics) => metrics[`vcsync_managed_objects{controller="${RESOURCE.controller}"}`] ?? 0;

/** The live heap of the syncer after a full gc (heap-probe.mjs answers SIGUSR2). */
async function liveHeap(syncer, dir) {
  const file = join(dir, `heap-${syncer.pid}.json`);
  await rm(file, { force: true });
  process.kill(syncer.pid, 'SIGUSR2');
  const deadline = performance.now() + 30_000;
  while (!existsSync(file)) {
    if (performance.now() > deadline) throw new Error('the syncer did not report its heap within 30 s (is benchmarks/lib/heap-probe.mjs preloaded?)');
    await sleep(50);
  }
  return JSON.parse(await readFile(file, 'utf8'));
}

async function reading(syncer, dir) {
  await sleep(EARLY_MS);
  const early = await processMemory(syncer.pid);
  await sleep(SETTLE_MS - EARLY_MS);
  const before = await processMemory(syncer.pid);
  const heap = await liveHeap(syncer, dir);
  const after = await processMemory(syncer.pid);
  // V8's heap pages in RSS after the gc; the rest of the anonymous RSS is outside the V8 heap
  // (malloc: socket reads, HTTP body copies, large Buffers, V8's own tables; thread stacks).
  const heapResidentBytes = Object.values(heap.spaces ?? {}).reduce((sum, space) => sum + space.physical, 0);
  return {
    rssBytes: before.rssBytes,
    rssEarlyBytes: early.rssBytes,
    rssAfterGcBytes: after.rssBytes,
    rssAnonAfterGcBytes: after.rssAnonBytes,
    rssFileAfterGcBytes: after.rssFileBytes,
    heapResidentAfterGcBytes: heapResidentBytes,
    outsideHeapAfterGcBytes: after.rssAnonBytes - heapResidentBytes,
    peakRssBytes: after.peakRssBytes,
    liveHeapBytes: heap.heapUsed,
    externalBytes: heap.external,
    arrayBuffersBytes: heap.arrayBuffers,
    heapTotalBeforeGcBytes: heap.beforeGc?.heapTotal,
    heapUsedBeforeGcBytes: heap.beforeGc?.heapUsed,
    heapTotalBytes: heap.heapTotal,
    heapSpaces: heap.spaces,
  };
}

/** Served JSON sizes of one object of each cached kind, and whether each carries managedFields. */
async function servedObjects(virtualClient, hostClient, n) {
  if (n === 0) return undefined;
  const objects = {
    [`virtual${RESOURCE.kind}`]: await virtualClient.get(objectPath(RESOURCE.type, 'default', RESOURCE.objectName(0))),
    virtualService: await virtualClient.get(objectPath(servicesType, 'default', objectName(0))),
    [`host${RESOURCE.kind}`]: (await hostClient.list(collectionPath(RESOURCE.type, HOST_NAMESPACE), { limit: 1 })).items[0],
  };
  const served = {};
  for (const [kind, object] of Object.entries(objects)) {
    const managedFields = object?.metadata?.managedFields;
    if (!Array.isArray(managedFields) || managedFields.length === 0) {
      throw new Error(`the served ${kind} carries no metadata.managedFields: the measurement would not be of objects as a real server returns them`);
    }
    served[kind] = { jsonBytes: JSON.stringify(object).length, managedFieldsJsonBytes: JSON.stringify(managedFields).length };
  }
  return served;
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
    if (n > 0) await populateVirtual(virtualClient, 'default', { count: n, resource: RESOURCE });
    const populateSeconds = (performance.now() - populateStarted) / 1000;
    const start = () =>
      startSyncerProcess({ dir, virtual, host, name: VCLUSTER, hostNamespace: HOST_NAMESPACE, hostQps: HIGH_QPS, hostBurst: HIGH_QPS, config: syncConfig(RESOURCE), nodeArgs: ['--expose-gc', '--import', HEAP_PROBE] });

    syncer = await start();
    await syncer.synced;
    await waitForMetrics(syncer, (m) => op(m, 'created') >= n && managed(m) >= n && depth(m) === 0);
    const copySeconds = (performance.now() - syncer.spawnedAt) / 1000;
    const afterSync = await reading(syncer, dir);
    await syncer.stop();
    const served = await servedObjects(virtualClient, hostClient, n);

    const restarts = [];
    let errors = 0;
    for (let sample = 0; sample < args.samples; sample += 1) {
      syncer = await start();
      await syncer.synced;
      await waitForMetrics(syncer, (m) => op(m, 'unchanged') + op(m, 'updated') >= n && depth(m) === 0);
      const restartSeconds = (performance.now() - syncer.spawnedAt) / 1000;
      restarts.push({ ...(await reading(syncer, dir)), restartSeconds: round(restartSeconds) });
      const final = await scrapeMetrics(syncer.metricsUrl);
      errors += op(final, 'error') + op(final, 'terminal_error');
      await syncer.stop();
      syncer = undefined;
    }
    const restarted = {
      rssBytes: median(restarts.map((r) => r.rssBytes)),
      rssAfterGcBytes: median(restarts.map((r) => r.rssAfterGcBytes)),
      rssEarlyBytes: median(restarts.map((r) => r.rssEarlyBytes)),
      liveHeapBytes: median(restarts.map((r) => r.liveHeapBytes)),
      heapResidentAfterGcBytes: median(restarts.map((r) => r.heapResidentAfterGcBytes)),
      outsideHeapAfterGcBytes: median(restarts.map((r) => r.outsideHeapAfterGcBytes)),
    };
    console.log(
      `  N=${n}: after sync RSS ${round(afterSync.rssBytes / MiB, 1)} MiB, heap ${round(afterSync.liveHeapBytes / MiB, 1)} MiB; ` +
        `restarted (median of ${restarts.length}) RSS ${round(restarted.rssBytes / MiB, 1)} MiB, heap ${round(restarted.liveHeapBytes / MiB, 1)} MiB ` +
        `(populate ${round(populateSeconds, 1)} s, sync ${round(copySeconds, 1)} s)`,
    );
    return { n, populateSeconds: round(populateSeconds), syncSeconds: round(copySeconds), errors, served, afterSync, restarts, restarted };
  } finally {
    await syncer?.stop();
    virtualClient.close();
    hostClient.close();
    await virtual.stop();
    await host.stop();
  }
}

const dir = await tempDir('syncer-memory');
process.env['VCSYNC_HEAP_PROBE_DIR'] = dir.path;
try {
  console.log(`syncer-memory: ${RESOURCE.plural}, sizes ${sizes.join(', ')}, ${args.samples} restarts each${quick ? ' (quick)' : ''}`);
  const runs = [];
  for (const n of sizes) runs.push(await measure(dir.path, n));
  const empty = runs.find((r) => r.n === 0);
  const perObject = (run, which, field) => round((run[which][field] - empty[which][field]) / run.n, 0);
  const rows = runs.filter((r) => r.n > 0).map((r) => ({
    n: r.n,
    rssAfterSyncMiB: round(r.afterSync.rssBytes / MiB, 1),
    rssRestartedMiB: round(r.restarted.rssBytes / MiB, 1),
    liveHeapRestartedMiB: round(r.restarted.liveHeapBytes / MiB, 1),
    rssBytesPerObjectRestarted: perObject(r, 'restarted', 'rssBytes'),
    liveHeapBytesPerObjectRestarted: perObject(r, 'restarted', 'liveHeapBytes'),
    rssBytesPerObjectRestartedEarly: perObject(r, 'restarted', 'rssEarlyBytes'),
    rssBytesPerObjectAfterSync: perObject(r, 'afterSync', 'rssBytes'),
    liveHeapBytesPerObjectAfterSync: perObject(r, 'afterSync', 'liveHeapBytes'),
    // Where RSS beyond the live heap goes: V8's resident heap pages, and anonymous memory outside V8's heap.
    heapResidentBytesPerObjectRestarted: perObject(r, 'restarted', 'heapResidentAfterGcBytes'),
    outsideHeapBytesPerObjectRestarted: perObject(r, 'restarted', 'outsideHeapAfterGcBytes'),
  }));
  const emptyRssMiB = round(empty.restarted.rssBytes / MiB, 1);
  const emptyHeapMiB = round(empty.restarted.liveHeapBytes / MiB, 1);
  const result = {
    sizes,
    samples: args.samples,
    quick,
    hostQps: HIGH_QPS,
    resource: RESOURCE.name,
    setup: {
      syncer: `\`vcsync start\` in its own process (node --expose-gc --import benchmarks/lib/heap-probe.mjs), --no-leader-elect, 10 workers, host QPS/burst 100000, no patches, only the sync of ${RESOURCE.plural} enabled`,
      objects: `N ${RESOURCE.plural} (3 addresses, 1 port) + N selector-less Services in the virtual cluster; N ${RESOURCE.plural} on the host; every object served with metadata.managedFields, as the real kube-apiserver serves them (checked; sizes in raw[].served)`,
      readings: `RSS ${SETTLE_MS / 1000} s after convergence (rssEarlyBytes: ${EARLY_MS / 1000} s after); afterSync: ${SETTLE_MS / 1000} s after the first copy of all N finished; restarted: the median of ${args.samples} new syncer processes against the synced clusters, each ${SETTLE_MS / 1000} s after every key reconciled unchanged`,
      memory: 'RSS = VmRSS of /proc/<pid>/status before the gc; live heap = process.memoryUsage().heapUsed after two full gc; after the gc, resident heap pages = the sum of V8 spaces\' physical size, outside the V8 heap = RssAnon − resident heap pages (malloc, stacks)',
      perObject: '(X_N − X_0) / N, X_0 = the same syncer with an empty virtual cluster, in the same run',
    },
    raw: runs,
    rssEmptyMiB: emptyRssMiB,
    liveHeapEmptyMiB: emptyHeapMiB,
    perSize: rows,
    table: [
      { benchmark: BENCHMARK, metric: 'syncer RSS, no objects, MiB', value: emptyRssMiB },
      ...rows.flatMap((row) => [
        { benchmark: BENCHMARK, metric: `syncer RSS, ${row.n} ${RESOURCE.plural} synced (restarted), MiB`, value: row.rssRestartedMiB, baseline: emptyRssMiB, ratio: round(row.rssRestartedMiB / emptyRssMiB) },
        { benchmark: BENCHMARK, metric: `RSS bytes per synced ${RESOURCE.kind}, N=${row.n}, restarted: (RSS_N − RSS_0) / N`, value: row.rssBytesPerObjectRestarted },
        { benchmark: BENCHMARK, metric: `live heap bytes per synced ${RESOURCE.kind}, N=${row.n}, restarted, after gc`, value: row.liveHeapBytesPerObjectRestarted },
        { benchmark: BENCHMARK, metric: `RSS bytes per synced ${RESOURCE.kind}, N=${row.n}, right after the first sync`, value: row.rssBytesPerObjectAfterSync },
      ]),
    ],
  };
  const file = await writeResult(resultName('syncer-memory', RESOURCE), result);
  printSummary(`${BENCHMARK} (the syncer process; ${RESOURCE.plural} with managedFields)`, [
    ['empty', `RSS ${emptyRssMiB} MiB, live heap ${emptyHeapMiB} MiB`],
    ...rows.map((row) => [
      `N=${row.n}`,
      `restarted: RSS ${row.rssRestartedMiB} MiB (${row.rssBytesPerObjectRestarted} B/object), live heap ${row.liveHeapRestartedMiB} MiB (${row.liveHeapBytesPerObjectRestarted} B/object; ` +
        `resident heap pages ${row.heapResidentBytesPerObjectRestarted}, outside the V8 heap ${row.outsideHeapBytesPerObjectRestarted} B/object after the gc); after first sync ${row.rssBytesPerObjectAfterSync} B/object RSS`,
    ]),
    ['results', file],
  ]);
} finally {
  await dir.dispose();
}
