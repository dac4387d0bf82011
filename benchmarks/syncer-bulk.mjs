// Bulk sync: N Endpoints (3 addresses each, each with its selector-less Service) exist in a
// virtual devcluster; how long until the syncer (`vcsync start` in its own process) has them all
// on the host, next to a baseline client that POSTs the same already-translated host objects to a
// fresh host devcluster with the same concurrency (10, the syncer's workers) in the same run.
// Both end when a watch on the host namespace has seen all N objects. The ratio is the figure.
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
//   node benchmarks/syncer-bulk.mjs [--quick] [--n 10000] [--rounds 2] [--host devcluster|real]
//
// Writes benchmarks/results/syncer-bulk.json (syncer-bulk-real-host.json with --host real) and prints a summary.
import { benchArgs, median, printSummary, round, sleep, tempDir, writeResult, forEachConcurrent, HOST_CHOICES, HOST_USAGE } from './lib/bench-run.mjs';
import { processMemory, scrapeMetrics, startDevClusterProcess, startRealHost, startSyncerProcess, PLAIN_CONFIG } from './lib/cluster-processes.mjs';
import { collectionPath, createNamespace, endpointsType, populateVirtual, translateForHost, unlimitedClient, watchEndpoints } from './lib/endpoints-fixtures.mjs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const args = benchArgs({
  usage: `usage: node benchmarks/syncer-bulk.mjs [--quick] [--n 10000] [--rounds 2] [--default-qps-n 400] [--host devcluster|real]\n${HOST_USAGE}\n(build first: npx tsc -p tsconfig.build.json)`,
  numbers: { n: (quick) => (quick ? 1000 : 10_000), rounds: (quick) => (quick ? 1 : 2), 'default-qps-n': (quick) => (quick ? 0 : 400) },
  strings: { host: 'devcluster' },
  choices: { host: HOST_CHOICES },
});
const { quick, n, rounds } = args;
const realHost = args.host === 'real';
const defaultQpsN = args['default-qps-n'];
const CONCURRENCY = 10; // the syncer's default --workers
const HIGH_QPS = 100_000;
const WARMUP_OBJECTS = 1000;
const VCLUSTER = 'bench';
const HOST_NAMESPACE = 'vcluster-bench';
const VIRTUAL_NAMESPACE = 'default';
/** The name of this run's rows in the README table. */
const BENCHMARK = realHost ? 'syncer-bulk (real host)' : 'syncer-bulk';

/** Resolves with `performance.now()` once a watch on `namespace` of the host has seen `count` distinct objects. */
async function watchUntilAll(hostClient, namespace, count) {
  const seen = new Set();
  let resolveAll;
  const all = new Promise((resolve) => (resolveAll = resolve));
  const watch = await watchEndpoints(hostClient, namespace, (event, at) => {
    if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return;
    seen.add(event.object.metadata.name);
    if (seen.size === count) resolveAll(at);
  });
  return { all, close: () => watch.close(), seen };
}

/**
 * Warms a fresh devcluster process (JIT, connection pool) with WARMUP_OBJECTS Endpoints in another
 * namespace, so neither contender pays for a cold server. The syncer never sees them (no
 * managed-by label, other namespace).
 */
async function warmUp(client) {
  await createNamespace(client, 'warmup');
  const objects = Array.from({ length: WARMUP_OBJECTS }, (_, i) => ({ ...translatedShape(i), metadata: { name: `warm-${i}`, namespace: 'warmup' } }));
  await forEachConcurrent(objects, CONCURRENCY, (object) => client.create(collectionPath(endpointsType, 'warmup'), object));
}

function translatedShape(i) {
  return { apiVersion: 'v1', kind: 'Endpoints', subsets: [{ addresses: [{ ip: `10.1.${i & 255}.1` }, { ip: '10.1.0.2' }, { ip: '10.1.0.3' }], ports: [{ port: 80 }] }] };
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

/** The baseline: POST the translated objects with CONCURRENCY in flight to a fresh host. */
async function runBaseline(dir, virtualEndpoints, configPath, round) {
  const { client, namespace, release } = await freshHost(dir, `host-baseline-${round}`);
  try {
    const translated = await translateForHost(virtualEndpoints, { configPath, vclusterName: VCLUSTER, hostNamespace: namespace });
    const watch = await watchUntilAll(client, namespace, translated.length);
    const path = collectionPath(endpointsType, namespace);
    const started = performance.now();
    await forEachConcurrent(translated, CONCURRENCY, (object) => client.create(path, object));
    const posted = performance.now();
    const seen = await watch.all;
    await watch.close();
    return { seconds: (seen - started) / 1000, postsDoneSeconds: (posted - started) / 1000 };
  } finally {
    await release();
  }
}

/** The syncer in its own process against a fresh host; timed from spawn and from "caches synced". */
async function runSyncer(dir, virtual, count, round, { qps, burst }) {
  const { host, client, namespace, release } = await freshHost(dir, `host-syncer-${round}`);
  let syncer;
  try {
    const watch = await watchUntilAll(client, namespace, count);
    syncer = await startSyncerProcess({ dir, virtual, host, name: VCLUSTER, hostNamespace: namespace, hostQps: qps, hostBurst: burst });
    const synced = await syncer.synced;
    const seen = await watch.all;
    await watch.close();
    await sleep(1000); // let the follow-up reconciles (host ADDED events → unchanged) finish before reading memory
    const memory = await processMemory(syncer.pid);
    const metrics = await scrapeMetrics(syncer.metricsUrl);
    const op = (result) => metrics[`vcsync_sync_operations_total{controller="endpoints",result="${result}"}`];
    return {
      seconds: (seen - syncer.spawnedAt) / 1000,
      copySeconds: (seen - synced.at) / 1000,
      startupSeconds: (synced.at - syncer.spawnedAt) / 1000,
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
  console.log(`syncer-bulk: N=${n}, rounds=${rounds}, concurrency=${CONCURRENCY}, host ${args.host}${quick ? ' (quick)' : ''}`);
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
  const created = await populateVirtual(virtualClient, VIRTUAL_NAMESPACE, { count: n });
  const populateSeconds = (performance.now() - t) / 1000;
  console.log(`  populated the virtual cluster: ${n} Services + ${n} Endpoints in ${round(populateSeconds, 1)} s`);
  const configPath = join(dir.path, 'vcluster.yaml');
  await writeFile(configPath, PLAIN_CONFIG);

  const baseline = [];
  const syncer = [];
  for (let r = 0; r < rounds; r += 1) {
    const b = await runBaseline(dir.path, created, configPath, r);
    baseline.push(b);
    console.log(`  round ${r + 1}: baseline ${round(b.seconds)} s`);
    const s = await runSyncer(dir.path, virtual, n, r, { qps: HIGH_QPS, burst: HIGH_QPS });
    syncer.push(s);
    console.log(`  round ${r + 1}: syncer ${round(s.seconds)} s from spawn (${round(s.copySeconds)} s after caches synced), RSS ${round(s.rssBytes / 2 ** 20, 1)} MiB`);
  }
  virtualClient.close();

  // At the default host QPS the rate limiter should dominate: check with a small N on its own virtual cluster.
  let defaultQps;
  if (defaultQpsN > 0) {
    const small = await startDevClusterProcess('virtual-small', dir.path);
    cleanup.push(() => small.stop());
    const smallClient = unlimitedClient(small.kubeconfig, 'virtual-small');
    await populateVirtual(smallClient, VIRTUAL_NAMESPACE, { count: defaultQpsN });
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
  const result = {
    n,
    rounds,
    concurrency: CONCURRENCY,
    hostQps: HIGH_QPS,
    hostBurst: HIGH_QPS,
    quick,
    host: args.host,
    setup: {
      devclusters: realHost
        ? 'virtual: a `vcsync devcluster` process, memory only; host: the real etcd (--unsafe-no-fsync) + kube-apiserver from the kube-assets, one for the run, a fresh namespace per measurement'
        : 'separate `vcsync devcluster` processes, memory only (no --data-dir); a fresh host devcluster per measurement',
      syncer: '`vcsync start` in its own process, --no-leader-elect, 10 workers, log level info, no patches',
      baseline: 'RestClient (dist/kube, no rate limit) POSTing desiredHostObject() outputs with 10 in flight',
      warmUp: realHost
        ? `the real host first gets ${WARMUP_OBJECTS} Endpoints in another namespace, once, before any measurement`
        : `each fresh host devcluster first gets ${WARMUP_OBJECTS} Endpoints in another namespace (JIT warm-up), before either contender starts`,
      end: 'a watch on the host namespace has seen all N objects (same for both)',
      syncerSeconds: 'from spawning the syncer process (startup, initial lists of N Endpoints and N Services, copy)',
      copySeconds: 'from the syncer logging "caches synced, starting workers"',
      defaultQpsExpectation: `at the default --host-qps 40 / --host-burst 80 expect ≈ (N − 80) / 40 s = ${round((n - 80) / 40, 0)} s for N=${n}`,
    },
    populateSeconds: round(populateSeconds),
    raw: { baseline, syncer },
    roundRatios: syncer.map((s, r) => ({ fromStart: round(s.seconds / baseline[r].seconds), afterCachesSynced: round(s.copySeconds / baseline[r].seconds) })),
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
      { benchmark: BENCHMARK, metric: `sync ${n} Endpoints, s (from process start; host QPS limit raised)`, value: round(syncerSeconds), baseline: round(baselineSeconds), ratio: round(ratio) },
      { benchmark: BENCHMARK, metric: `sync ${n} Endpoints, s (after caches synced)`, value: round(copySeconds), baseline: round(baselineSeconds), ratio: round(copyRatio) },
      { benchmark: BENCHMARK, metric: 'objects/s (after caches synced)', value: round(n / copySeconds, 0), baseline: round(n / baselineSeconds, 0), ratio: round(baselineSeconds / copySeconds) },
      // The rate limit's prediction is arithmetic, not a measured baseline: it goes in the label.
      ...(defaultQps ? [{ benchmark: BENCHMARK, metric: `sync ${defaultQps.n} Endpoints at default host QPS 40 / burst 80, s (the limit alone predicts (N − 80) / 40 = ${defaultQps.expectedSeconds} s)`, value: defaultQps.copySeconds }] : []),
    ],
  };
  const file = await writeResult(realHost ? 'syncer-bulk-real-host' : 'syncer-bulk', result);
  printSummary(`${BENCHMARK} (N=${n}, median of ${rounds} round(s), host QPS ${HIGH_QPS})`, [
    ['syncer, from process start', `${result.syncerSeconds} s (${result.syncerObjectsPerSecond} objects/s)`],
    ['syncer, after caches synced', `${result.syncerCopySeconds} s (${result.syncerCopyObjectsPerSecond} objects/s)`],
    ['baseline (10 concurrent POSTs)', `${result.baselineSeconds} s (${result.baselineObjectsPerSecond} objects/s)`],
    ['ratio syncer / baseline', `${result.ratio} (after caches synced: ${result.copyRatio})`],
    ['at default host QPS 40', `expect ≈ ${round((n - 80) / 40, 0)} s for N=${n}${defaultQps ? ` (measured ${defaultQps.copySeconds} s for N=${defaultQps.n}, expected ${defaultQps.expectedSeconds} s)` : ''}`],
    ['results', file],
  ]);
} finally {
  for (const stop of cleanup.reverse()) await stop();
  await dir.dispose();
}
