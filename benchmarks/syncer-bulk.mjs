// Bulk sync: N Endpoints (3 addresses each, each with its selector-less Service) exist in a
// virtual devcluster; how long until the syncer (`vcsync start` in its own process) has them all
// on the host, next to a baseline of the I/O a syncer cannot avoid, in the same run: a client in
// its own process (lib/baseline-client.mjs) that keeps the same two watches open as the syncer
// (virtual Endpoints, the host namespace's managed Endpoints) and POSTs the same already-translated
// host objects to a fresh host devcluster with the same concurrency (10, the syncer's workers).
// With --resource endpointslices the same with N EndpointSlices (3 endpoints each, each naming its
// selector-less Service by the kubernetes.io/service-name label), the baseline watching and
// POSTing slices; the config turns on only the sync of the resource measured.
// Both end when a watch on the host namespace has seen all N objects. The figures are the time
// ratio and the CPU µs per object of the syncer process next to the baseline process'.
//
// The syncer runs with --host-qps/--host-burst 100000: at the default (40 QPS, burst 80) the
// client-side rate limit alone would take about (N − 80) / 40 s and hide everything else. A small
// run at the default QPS checks that expectation (skipped with --quick).
//
// With --host real the host is the real kube-apiserver (kube-assets): one control plane for the
// whole run, every measurement (baseline, syncer, default-QPS check) in a fresh namespace of it,
// so the ratio compares the syncer and the baseline on the same server.
//
//   npx tsc -p tsconfig.build.json
//   node benchmarks/syncer-bulk.mjs [--quick] [--n 10000] [--rounds 3] [--host devcluster|real] [--resource endpoints|endpointslices] [--profile DIR]
//
// Writes benchmarks/results/syncer-bulk.json (syncer-bulk-real-host.json with --host real;
// syncer-bulk-endpointslices[-real-host].json with --resource endpointslices) and prints a summary.
import { benchArgs, median, printSummary, round, sleep, tempDir, writeResult, forEachConcurrent, HOST_CHOICES, HOST_USAGE } from './lib/bench-run.mjs';
import { processCpuMicros, processMemory, scrapeMetrics, startBaselineProcess, startDevClusterProcess, startRealHost, startSyncerProcess } from './lib/cluster-processes.mjs';
import { collectionPath, createNamespace, populateVirtual, resultName, service, syncConfig, tableName, translateForHost, unlimitedClient, watchObjects, RESOURCE_CHOICES, RESOURCE_USAGE, SYNC_RESOURCES } from './lib/endpoints-fixtures.mjs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const args = benchArgs({
  usage: `usage: node benchmarks/syncer-bulk.mjs [--quick] [--n 10000] [--rounds 3] [--default-qps-n 400] [--host devcluster|real] [--resource endpoints|endpointslices] [--profile DIR]\n${HOST_USAGE}\n${RESOURCE_USAGE}\n--profile DIR: write --cpu-prof profiles of the syncer and baseline processes to DIR\n(build first: npx tsc -p tsconfig.build.json)`,
  numbers: { n: (quick) => (quick ? 1000 : 10_000), rounds: (quick) => (quick ? 1 : 3), 'default-qps-n': (quick) => (quick ? 0 : 400) },
  strings: { host: 'devcluster', resource: 'endpoints', profile: '' },
  choices: { host: HOST_CHOICES, resource: RESOURCE_CHOICES },
});
/** The resource synced and measured. */
const RESOURCE = SYNC_RESOURCES[args.resource];
const { quick, n, rounds } = args;
const realHost = args.host === 'real';
const defaultQpsN = args['default-qps-n'];
const CONCURRENCY = 10; // the syncer's default --workers
const HIGH_QPS = 100_000;
const WARMUP_OBJECTS = 1000;
const VCLUSTER = 'bench';
const HOST_NAMESPACE = 'vcluster-bench';
const VIRTUAL_NAMESPACE = 'default';
/** The syncer's host informer of the resource watches this selector; the baseline's host watch does too. */
const HOST_LABEL_SELECTOR = `vcluster.loft.sh/managed-by=${VCLUSTER}`;
/** `--cpu-prof` flags for the syncer and baseline processes with --profile. */
const profileFlags = args.profile !== '' ? ['--cpu-prof', '--cpu-prof-dir', args.profile] : [];
/** The name of this run's rows in the README table. */
const BENCHMARK = tableName('syncer-bulk', RESOURCE, realHost);

/** Resolves with `performance.now()` once a watch on `namespace` of the host has seen `count` distinct objects. */
async function watchUntilAll(hostClient, namespace, count) {
  const seen = new Set();
  let resolveAll;
  const all = new Promise((resolve) => (resolveAll = resolve));
  const watch = await watchObjects(hostClient, RESOURCE.type, namespace, (event, at) => {
    if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return;
    seen.add(event.object.metadata.name);
    if (seen.size === count) resolveAll(at);
  });
  return { all, close: () => watch.close(), seen };
}

/**
 * Warms a fresh devcluster process (JIT, connection pool) with WARMUP_OBJECTS objects of the
 * measured resource in another namespace, so neither contender pays for a cold server. The syncer
 * never sees them (no managed-by label, other namespace).
 */
async function warmUp(client) {
  await createNamespace(client, 'warmup');
  const objects = Array.from({ length: WARMUP_OBJECTS }, (_, i) => {
    const object = RESOURCE.object(i, 'warmup');
    return { ...object, metadata: { ...object.metadata, name: `warm-${i}` } };
  });
  await forEachConcurrent(objects, CONCURRENCY, (object) => client.create(collectionPath(RESOURCE.type, 'warmup'), object));
}

/** The real host of a `--host real` run, started (and warmed up) once: every measurement gets a namespace of it. */
let sharedRealHost;

/**
 * A fresh, warmed-up host for one measurement: a new devcluster process with HOST_NAMESPACE, or
 * with --host real a new namespace `<HOST_NAMESPACE>-<label>` on the run's one real server.
 * `release()` stops the devcluster (the real server stays for the next measurement).
 */
async function freshHost(dir, label) {
  if (realHost) {
    const client = unlimitedClient(sharedRealHost.kubeconfig, label);
    const namespace = `${HOST_NAMESPACE}-${label}`;
    await createNamespace(client, namespace);
    return { host: sharedRealHost, client, namespace, release: async () => client.close() };
  }
  const host = await startDevClusterProcess(label, dir);
  const client = unlimitedClient(host.kubeconfig, label);
  await createNamespace(client, HOST_NAMESPACE);
  await warmUp(client);
  return {
    host,
    client,
    namespace: HOST_NAMESPACE,
    release: async () => {
      client.close();
      await host.stop();
    },
  };
}

/**
 * The baseline, what a syncer cannot avoid: a client in its own process that keeps the same two
 * watches open as the syncer's informers of the resource (virtual objects, host objects of the
 * vcluster) and POSTs the same translated objects with CONCURRENCY in flight to a fresh host.
 * Timed like the syncer, by this process' watch on the host namespace; CPU is the client process'
 * own (process.cpuUsage), and with a devcluster host the host process' too.
 */
async function runBaseline(dir, virtual, virtualObjects, services, configPath, round) {
  const { host, client, namespace, release } = await freshHost(dir, `host-baseline-${round}`);
  let baseline;
  try {
    const translated = await translateForHost(virtualObjects, services, { configPath, vclusterName: VCLUSTER, hostNamespace: namespace });
    baseline = await startBaselineProcess({ dir, label: `baseline-${round}`, virtual, host, resourceType: RESOURCE.type, hostNamespace: namespace, hostLabelSelector: HOST_LABEL_SELECTOR, concurrency: CONCURRENCY, objects: translated, nodeArgs: profileFlags });
    const watch = await watchUntilAll(client, namespace, translated.length);
    const hostCpuStart = host.pid !== undefined ? await processCpuMicros(host.pid) : undefined;
    const started = performance.now();
    const measured = await baseline.run();
    const seen = await watch.all;
    const hostCpuMicros = host.pid !== undefined ? (await processCpuMicros(host.pid)) - hostCpuStart : undefined;
    await watch.close();
    return {
      seconds: (seen - started) / 1000,
      postsDoneSeconds: measured.postsDoneSeconds,
      clientSeconds: measured.seconds,
      cpuMicrosPerObject: measured.cpuMicros / translated.length,
      hostCpuMicrosPerObject: hostCpuMicros !== undefined ? hostCpuMicros / translated.length : undefined,
      virtualEvents: measured.virtualEvents,
      hostEvents: measured.hostEvents,
    };
  } finally {
    await baseline?.stop();
    await release();
  }
}

/** The syncer in its own process against a fresh host; timed from spawn and from "caches synced". */
async function runSyncer(dir, virtual, count, round, { qps, burst }) {
  const { host, client, namespace, release } = await freshHost(dir, `host-syncer-${round}`);
  let syncer;
  try {
    const watch = await watchUntilAll(client, namespace, count);
    syncer = await startSyncerProcess({ dir, virtual, host, name: VCLUSTER, hostNamespace: namespace, hostQps: qps, hostBurst: burst, config: syncConfig(RESOURCE), nodeArgs: profileFlags });
    const syncedCpu = syncer.synced.then(() => Promise.all([processCpuMicros(syncer.pid), host.pid !== undefined ? processCpuMicros(host.pid) : undefined]));
    const synced = await syncer.synced;
    const seen = await watch.all;
    const [endCpu, endHostCpu] = await Promise.all([processCpuMicros(syncer.pid), host.pid !== undefined ? processCpuMicros(host.pid) : undefined]);
    const [startCpu, startHostCpu] = await syncedCpu;
    await watch.close();
    await sleep(1000); // let the follow-up reconciles (host ADDED events → unchanged) finish before reading memory
    const memory = await processMemory(syncer.pid);
    const metrics = await scrapeMetrics(syncer.metricsUrl);
    const op = (result) => metrics[`vcsync_sync_operations_total{controller="${RESOURCE.controller}",result="${result}"}`];
    return {
      seconds: (seen - syncer.spawnedAt) / 1000,
      copySeconds: (seen - synced.at) / 1000,
      startupSeconds: (synced.at - syncer.spawnedAt) / 1000,
      cpuMicrosPerObject: (endCpu - startCpu) / count,
      cpuMicrosPerObjectFromStart: endCpu / count,
      hostCpuMicrosPerObject: endHostCpu !== undefined ? (endHostCpu - startHostCpu) / count : undefined,
      rssBytes: memory.rssBytes,
      peakRssBytes: memory.peakRssBytes,
      reconciles: { created: op('created'), unchanged: op('unchanged'), error: op('error'), skipped: op('skipped') },
      hostRequests: Object.fromEntries(Object.entries(metrics).filter(([k]) => k.startsWith('vcsync_rest_client_requests_total') && k.includes('cluster="host"'))),
    };
  } finally {
    await syncer?.stop();
    await release();
  }
}

const dir = await tempDir('syncer-bulk');
const cleanup = [];
try {
  console.log(`syncer-bulk: N=${n} ${RESOURCE.plural}, rounds=${rounds}, concurrency=${CONCURRENCY}, host ${args.host}${quick ? ' (quick)' : ''}`);
  if (realHost) {
    sharedRealHost = await startRealHost('host');
    cleanup.push(() => sharedRealHost.stop());
    const warmClient = unlimitedClient(sharedRealHost.kubeconfig, 'host-warmup');
    await warmUp(warmClient);
    warmClient.close();
    console.log(`  real host ${sharedRealHost.version} at ${sharedRealHost.url} (started in ${round(sharedRealHost.startupMs / 1000, 1)} s)`);
  }
  const virtual = await startDevClusterProcess('virtual', dir.path);
  cleanup.push(() => virtual.stop());
  const virtualClient = unlimitedClient(virtual.kubeconfig, 'virtual');
  let t = performance.now();
  const created = await populateVirtual(virtualClient, VIRTUAL_NAMESPACE, { count: n, resource: RESOURCE });
  const services = Array.from({ length: n }, (_, i) => service(i, VIRTUAL_NAMESPACE));
  const populateSeconds = (performance.now() - t) / 1000;
  console.log(`  populated the virtual cluster: ${n} Services + ${n} ${RESOURCE.plural} in ${round(populateSeconds, 1)} s`);
  const configPath = join(dir.path, 'vcluster.yaml');
  await writeFile(configPath, syncConfig(RESOURCE));

  const baseline = [];
  const syncer = [];
  for (let r = 0; r < rounds; r += 1) {
    const b = await runBaseline(dir.path, virtual, created, services, configPath, r);
    baseline.push(b);
    console.log(`  round ${r + 1}: baseline ${round(b.seconds)} s, ${round(b.cpuMicrosPerObject, 0)} µs CPU/object`);
    const s = await runSyncer(dir.path, virtual, n, r, { qps: HIGH_QPS, burst: HIGH_QPS });
    syncer.push(s);
    console.log(`  round ${r + 1}: syncer ${round(s.seconds)} s from spawn (${round(s.copySeconds)} s after caches synced), ${round(s.cpuMicrosPerObject, 0)} µs CPU/object, RSS ${round(s.rssBytes / 2 ** 20, 1)} MiB`);
  }
  virtualClient.close();

  // At the default host QPS the rate limiter should dominate: check with a small N on its own virtual cluster.
  let defaultQps;
  if (defaultQpsN > 0) {
    const small = await startDevClusterProcess('virtual-small', dir.path);
    cleanup.push(() => small.stop());
    const smallClient = unlimitedClient(small.kubeconfig, 'virtual-small');
    await populateVirtual(smallClient, VIRTUAL_NAMESPACE, { count: defaultQpsN, resource: RESOURCE });
    smallClient.close();
    const run = await runSyncer(dir.path, small, defaultQpsN, 'default-qps', { qps: 40, burst: 80 });
    defaultQps = { n: defaultQpsN, qps: 40, burst: 80, copySeconds: round(run.copySeconds), expectedSeconds: round((defaultQpsN - 80) / 40) };
    console.log(`  default QPS check: ${defaultQpsN} objects at 40 QPS / burst 80 took ${defaultQps.copySeconds} s after caches synced (expected ≈ ${defaultQps.expectedSeconds} s)`);
  }

  const baselineSeconds = median(baseline.map((b) => b.seconds));
  const syncerSeconds = median(syncer.map((s) => s.seconds));
  const copySeconds = median(syncer.map((s) => s.copySeconds));
  const ratio = syncerSeconds / baselineSeconds;
  const copyRatio = copySeconds / baselineSeconds;
  const syncerCpu = median(syncer.map((s) => s.cpuMicrosPerObject));
  const baselineCpu = median(baseline.map((b) => b.cpuMicrosPerObject));
  const hostCpu = realHost ? undefined : { syncer: median(syncer.map((s) => s.hostCpuMicrosPerObject)), baseline: median(baseline.map((b) => b.hostCpuMicrosPerObject)) };
  const result = {
    n,
    rounds,
    concurrency: CONCURRENCY,
    hostQps: HIGH_QPS,
    hostBurst: HIGH_QPS,
    quick,
    host: args.host,
    resource: RESOURCE.name,
    setup: {
      devclusters: realHost
        ? 'virtual: a `vcsync devcluster` process, memory only; host: the real etcd (--unsafe-no-fsync) + kube-apiserver from the kube-assets, one for the run, a fresh namespace per measurement'
        : 'separate `vcsync devcluster` processes, memory only (no --data-dir); a fresh host devcluster per measurement',
      objects: `N ${RESOURCE.plural} (3 addresses each) and N selector-less Services in the virtual cluster's namespace ${VIRTUAL_NAMESPACE}`,
      syncer: `\`vcsync start\` in its own process, --no-leader-elect, 10 workers, log level info, no patches, only the sync of ${RESOURCE.plural} enabled`,
      baseline:
        `benchmarks/lib/baseline-client.mjs in its own process: lists and watches the virtual ${RESOURCE.plural} (all namespaces) and the host namespace's ${RESOURCE.plural} of the vcluster (the syncer's two informers of them), ` +
        'then POSTs the host objects `vcsync preview` computes with the same config (desiredHostObject(), computed beforehand) with RestClient (dist/kube, no rate limit), 10 in flight',
      cpuMicrosPerObject: 'user + system CPU of the process (syncer: /proc/PID/stat from "caches synced" to the end; baseline: process.cpuUsage from its first POST to its host watch seeing all N), divided by N',
      hostCpuMicrosPerObject: 'devcluster host only: the host process\' CPU over the same interval, divided by N',
      warmUp: realHost
        ? `the real host first gets ${WARMUP_OBJECTS} ${RESOURCE.plural} in another namespace, once, before any measurement`
        : `each fresh host devcluster first gets ${WARMUP_OBJECTS} ${RESOURCE.plural} in another namespace (JIT warm-up), before either contender starts`,
      end: 'a watch on the host namespace has seen all N objects (same for both)',
      syncerSeconds: `from spawning the syncer process (startup, initial lists of N ${RESOURCE.plural} and N Services, copy)`,
      copySeconds: 'from the syncer logging "caches synced, starting workers"',
      defaultQpsExpectation: `at the default --host-qps 40 / --host-burst 80 expect ≈ (N − 80) / 40 s = ${round((n - 80) / 40, 0)} s for N=${n}`,
    },
    populateSeconds: round(populateSeconds),
    raw: { baseline, syncer },
    roundRatios: syncer.map((s, r) => ({
      fromStart: round(s.seconds / baseline[r].seconds),
      afterCachesSynced: round(s.copySeconds / baseline[r].seconds),
      cpuPerObject: round(s.cpuMicrosPerObject / baseline[r].cpuMicrosPerObject),
    })),
    syncerCpuMicrosPerObject: round(syncerCpu, 0),
    baselineCpuMicrosPerObject: round(baselineCpu, 0),
    cpuRatio: round(syncerCpu / baselineCpu),
    hostCpuMicrosPerObject: hostCpu && { syncer: round(hostCpu.syncer, 0), baseline: round(hostCpu.baseline, 0) },
    syncerSeconds: round(syncerSeconds),
    syncerCopySeconds: round(copySeconds),
    baselineSeconds: round(baselineSeconds),
    ratio: round(ratio),
    copyRatio: round(copyRatio),
    syncerObjectsPerSecond: round(n / syncerSeconds, 0),
    syncerCopyObjectsPerSecond: round(n / copySeconds, 0),
    baselineObjectsPerSecond: round(n / baselineSeconds, 0),
    defaultQps,
    table: [
      { benchmark: BENCHMARK, metric: `sync ${n} ${RESOURCE.plural}, s (from process start; host QPS limit raised)`, value: round(syncerSeconds), baseline: round(baselineSeconds), ratio: round(ratio) },
      { benchmark: BENCHMARK, metric: `sync ${n} ${RESOURCE.plural}, s (after caches synced)`, value: round(copySeconds), baseline: round(baselineSeconds), ratio: round(copyRatio) },
      { benchmark: BENCHMARK, metric: 'objects/s (after caches synced)', value: round(n / copySeconds, 0), baseline: round(n / baselineSeconds, 0), ratio: round(baselineSeconds / copySeconds) },
      { benchmark: BENCHMARK, metric: 'CPU µs per object, syncer process vs baseline client process', value: round(syncerCpu, 0), baseline: round(baselineCpu, 0), ratio: round(syncerCpu / baselineCpu) },
      // The rate limit's prediction is arithmetic, not a measured baseline: it goes in the label.
      ...(defaultQps ? [{ benchmark: BENCHMARK, metric: `sync ${defaultQps.n} ${RESOURCE.plural} at default host QPS 40 / burst 80, s (the limit alone predicts (N − 80) / 40 = ${defaultQps.expectedSeconds} s)`, value: defaultQps.copySeconds }] : []),
    ],
  };
  const file = await writeResult(resultName('syncer-bulk', RESOURCE, realHost), result);
  printSummary(`${BENCHMARK} (N=${n}, median of ${rounds} round(s), host QPS ${HIGH_QPS})`, [
    ['syncer, from process start', `${result.syncerSeconds} s (${result.syncerObjectsPerSecond} objects/s)`],
    ['syncer, after caches synced', `${result.syncerCopySeconds} s (${result.syncerCopyObjectsPerSecond} objects/s)`],
    ['baseline (2 watches, 10 concurrent POSTs)', `${result.baselineSeconds} s (${result.baselineObjectsPerSecond} objects/s)`],
    ['ratio syncer / baseline', `${result.ratio} (after caches synced: ${result.copyRatio})`],
    ['CPU µs per object', `syncer ${result.syncerCpuMicrosPerObject}, baseline ${result.baselineCpuMicrosPerObject} (ratio ${result.cpuRatio})`],
    ...(hostCpu ? [['host devcluster CPU µs per object', `during the syncer ${result.hostCpuMicrosPerObject.syncer}, during the baseline ${result.hostCpuMicrosPerObject.baseline}`]] : []),
    ['at default host QPS 40', `expect ≈ ${round((n - 80) / 40, 0)} s for N=${n}${defaultQps ? ` (measured ${defaultQps.copySeconds} s for N=${defaultQps.n}, expected ${defaultQps.expectedSeconds} s)` : ''}`],
    ['results', file],
  ]);
} finally {
  for (const stop of cleanup.reverse()) await stop();
  await dir.dispose();
}
