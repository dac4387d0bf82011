// Sync latency: time from a write to one virtual Endpoints (an update of its addresses) to the
// host copy carrying the change, seen through a watch on the host namespace. Measured at idle and
// while a background writer updates other Endpoints at a fixed rate, next to a baseline relay
// in the benchmark process that does the same two hops with no syncer in between (see the setup
// note in the results). Probes are sequential; syncer and relay probes alternate so both see the
// same conditions. The syncer runs in its own process with --host-qps/--host-burst 100000.
// With --host real the host is the real kube-apiserver (kube-assets); the relay's host namespace
// is on that same server, so the ratio compares both on it. With --resource endpointslices every
// object is an EndpointSlice (3 endpoints, its Service named by its kubernetes.io/service-name
// label), the relay's too, and only the sync of slices is enabled.
//
//   npx tsc -p tsconfig.build.json
//   node benchmarks/syncer-latency.mjs [--quick] [--objects 1000] [--samples 500] [--load-rate 100] [--rounds 3] [--host devcluster|real] [--resource endpoints|endpointslices]
//
// Writes benchmarks/results/syncer-latency.json (syncer-latency-real-host.json with --host real;
// syncer-latency-endpointslices[-real-host].json with --resource endpointslices) and prints a summary.
import { benchArgs, median, percentile, printSummary, round, sleep, tempDir, writeResult, forEachConcurrent, HOST_CHOICES, HOST_USAGE } from './lib/bench-run.mjs';
import { startDevClusterProcess, startRealHost, startSyncerProcess, scrapeMetrics } from './lib/cluster-processes.mjs';
import { collectionPath, createNamespace, firstIp, objectPath, populateVirtual, resultName, syncConfig, tableName, unlimitedClient, watchObjects, RESOURCE_CHOICES, RESOURCE_USAGE, SYNC_RESOURCES } from './lib/endpoints-fixtures.mjs';

const args = benchArgs({
  usage: `usage: node benchmarks/syncer-latency.mjs [--quick] [--objects 1000] [--samples 500] [--load-rate 100] [--rounds 3] [--host devcluster|real] [--resource endpoints|endpointslices]\n${HOST_USAGE}\n${RESOURCE_USAGE}\n(build first: npx tsc -p tsconfig.build.json)`,
  numbers: { objects: (quick) => (quick ? 300 : 1000), samples: (quick) => (quick ? 100 : 500), 'load-rate': 100, rounds: 3 },
  strings: { host: 'devcluster', resource: 'endpoints' },
  choices: { host: HOST_CHOICES, resource: RESOURCE_CHOICES },
});
const realHost = args.host === 'real';
/** The resource synced and probed. */
const RESOURCE = SYNC_RESOURCES[args.resource];
const { objectName } = RESOURCE;
/** The object `i` of the resource, generation `g`, in `namespace`. */
const fixture = (i, namespace, g) => RESOURCE.object(i, namespace, g);
/** The name of this run's rows in the README table. */
const BENCHMARK = tableName('syncer-latency', RESOURCE, realHost);
const { quick, objects: objectCount, samples, rounds: ROUNDS } = args;
const loadRate = args['load-rate'];
const PROBES = 50; // objects 0..49 are probed; the rest are the background writer's
const RELAY_OBJECTS = 50;
const HIGH_QPS = 100_000;
const VCLUSTER = 'bench';
const HOST_NAMESPACE = 'vcluster-bench';
const RELAY_HOST_NAMESPACE = 'relay-host';
const VIRTUAL_NAMESPACE = 'default';
const RELAY_VIRTUAL_NAMESPACE = 'relay'; // objects without a Service: the syncer skips them
const hostName = (i) => `${objectName(i)}-x-${VIRTUAL_NAMESPACE}-x-${VCLUSTER}`;

/** Waiters keyed by object name, resolved by a watch event whose first address IP matches. */
class ChangeWaiters {
  #waiters = new Map();
  wait(name, ip) {
    return new Promise((resolve) => this.#waiters.set(name, { ip, resolve }));
  }
  onEvent(event, at) {
    const name = event.object?.metadata?.name;
    const waiter = this.#waiters.get(name);
    if (waiter === undefined) return;
    if (RESOURCE.firstIp(event.object) !== waiter.ip) return;
    this.#waiters.delete(name);
    waiter.resolve(at);
  }
}

const dir = await tempDir('syncer-latency');
const stops = [];
const clients = [];
try {
  console.log(`syncer-latency: ${objectCount} synced ${RESOURCE.plural}, ${samples} samples per phase and contender, load ${loadRate} updates/s, host ${args.host}${quick ? ' (quick)' : ''}`);
  const virtual = await startDevClusterProcess('virtual', dir.path);
  stops.push(() => virtual.stop());
  const host = realHost ? await startRealHost('host') : await startDevClusterProcess('host', dir.path);
  stops.push(() => host.stop());
  if (realHost) console.log(`  real host ${host.version} at ${host.url} (started in ${round(host.startupMs / 1000, 1)} s)`);
  const virtualClient = unlimitedClient(virtual.kubeconfig, 'virtual');
  const hostClient = unlimitedClient(host.kubeconfig, 'host');
  // The writer gets its own connections so its requests never queue in front of a probe's.
  const loadClient = unlimitedClient(virtual.kubeconfig, 'virtual-load');
  clients.push(virtualClient, hostClient, loadClient);
  await createNamespace(hostClient, HOST_NAMESPACE);
  await createNamespace(hostClient, RELAY_HOST_NAMESPACE);
  await createNamespace(virtualClient, RELAY_VIRTUAL_NAMESPACE);
  await populateVirtual(virtualClient, VIRTUAL_NAMESPACE, { count: objectCount, resource: RESOURCE });
  await forEachConcurrent(Array.from({ length: RELAY_OBJECTS }, (_, i) => i), 10, async (i) => {
    await virtualClient.create(collectionPath(RESOURCE.type, RELAY_VIRTUAL_NAMESPACE), fixture(i, RELAY_VIRTUAL_NAMESPACE));
    await hostClient.create(collectionPath(RESOURCE.type, RELAY_HOST_NAMESPACE), fixture(i, RELAY_HOST_NAMESPACE));
  });

  const hostWaiters = new ChangeWaiters();
  const relayHostWaiters = new ChangeWaiters();
  const relayVirtualWaiters = new ChangeWaiters();
  let allSynced;
  const synced = new Promise((resolve) => (allSynced = resolve));
  const seen = new Set();
  const hostWatch = await watchObjects(hostClient, RESOURCE.type, HOST_NAMESPACE, (event, at) => {
    seen.add(event.object.metadata.name);
    if (seen.size === objectCount) allSynced();
    hostWaiters.onEvent(event, at);
  });
  const relayHostWatch = await watchObjects(hostClient, RESOURCE.type, RELAY_HOST_NAMESPACE, (event, at) => relayHostWaiters.onEvent(event, at));
  const relayVirtualWatch = await watchObjects(virtualClient, RESOURCE.type, RELAY_VIRTUAL_NAMESPACE, (event, at) => relayVirtualWaiters.onEvent(event, at));
  stops.push(() => hostWatch.close(), () => relayHostWatch.close(), () => relayVirtualWatch.close());

  const syncer = await startSyncerProcess({ dir: dir.path, virtual, host, name: VCLUSTER, hostNamespace: HOST_NAMESPACE, hostQps: HIGH_QPS, hostBurst: HIGH_QPS, config: syncConfig(RESOURCE) });
  stops.push(() => syncer.stop());
  await synced;
  await sleep(2000); // the follow-up reconciles of the initial copy
  console.log(`  ${objectCount} ${RESOURCE.plural} on the host; probing`);

  const generations = new Map();
  const nextGeneration = (key) => {
    const g = (generations.get(key) ?? 0) + 1;
    generations.set(key, g);
    return g;
  };

  /** One syncer probe: update virtual object i, wait for the host watch to show it. */
  async function probeSyncer(i) {
    const g = nextGeneration(`s${i}`);
    const seenOnHost = hostWaiters.wait(hostName(i), firstIp(i, g));
    const started = performance.now();
    await virtualClient.update(objectPath(RESOURCE.type, VIRTUAL_NAMESPACE, objectName(i)), fixture(i, VIRTUAL_NAMESPACE, g));
    return (await seenOnHost) - started;
  }

  /** One relay probe: the same virtual write, seen by a virtual watch, then the host write seen by a host watch. */
  async function probeRelay(i) {
    const g = nextGeneration(`r${i}`);
    const seenOnVirtual = relayVirtualWaiters.wait(objectName(i), firstIp(i, g));
    const seenOnHost = relayHostWaiters.wait(objectName(i), firstIp(i, g));
    const started = performance.now();
    await virtualClient.update(objectPath(RESOURCE.type, RELAY_VIRTUAL_NAMESPACE, objectName(i)), fixture(i, RELAY_VIRTUAL_NAMESPACE, g));
    await seenOnVirtual;
    await hostClient.update(objectPath(RESOURCE.type, RELAY_HOST_NAMESPACE, objectName(i)), fixture(i, RELAY_HOST_NAMESPACE, g));
    return (await seenOnHost) - started;
  }

  /**
   * `samples` probes of each contender in `ROUNDS` consecutive rounds; every statistic is the
   * median of the rounds' values, so one noisy stretch of a shared machine moves one round only.
   */
  async function phase(name) {
    const syncerRounds = [];
    const relayRounds = [];
    for (let r = 0; r < ROUNDS; r += 1) {
      const syncerMs = [];
      const relayMs = [];
      for (let k = Math.floor((r * samples) / ROUNDS); k < Math.floor(((r + 1) * samples) / ROUNDS); k += 1) {
        syncerMs.push(await probeSyncer(k % PROBES));
        await sleep(5);
        relayMs.push(await probeRelay(k % RELAY_OBJECTS));
        await sleep(5);
      }
      syncerRounds.push(syncerMs);
      relayRounds.push(relayMs);
    }
    const roundStats = (values) => ({ p50: percentile(values, 50), p99: percentile(values, 99), max: Math.max(...values), mean: values.reduce((a, b) => a + b, 0) / values.length });
    const stats = (rounds) => {
      const perRound = rounds.map(roundStats);
      const of = (key) => round(median(perRound.map((entry) => entry[key])));
      return { p50: of('p50'), p99: of('p99'), max: of('max'), mean: of('mean'), rounds: perRound.map((entry) => ({ p50: round(entry.p50), p99: round(entry.p99) })) };
    };
    const result = {
      phase: name,
      syncer: stats(syncerRounds),
      relay: stats(relayRounds),
      raw: { syncerMs: syncerRounds.flat().map((v) => round(v, 3)), relayMs: relayRounds.flat().map((v) => round(v, 3)) },
    };
    console.log(`  ${name}: syncer p50 ${result.syncer.p50} ms, p99 ${result.syncer.p99} ms; relay p50 ${result.relay.p50} ms, p99 ${result.relay.p99} ms`);
    return result;
  }

  const idle = await phase('idle');

  // Background writer: updates objects PROBES.. at loadRate/s, paced by a 10 ms tick.
  const loadTargets = objectCount - PROBES;
  let written = 0;
  let inFlight = 0;
  let skipped = 0;
  let loadError;
  const loadStarted = performance.now();
  const ticker = setInterval(() => {
    const due = Math.floor(((performance.now() - loadStarted) / 1000) * loadRate) - written - skipped;
    for (let k = 0; k < due; k += 1) {
      if (inFlight >= 50) {
        skipped += 1; // the cluster cannot keep up: count it rather than pile up requests
        continue;
      }
      const i = PROBES + ((written + skipped) % loadTargets);
      written += 1;
      inFlight += 1;
      const g = nextGeneration(`s${i}`);
      loadClient
        .update(objectPath(RESOURCE.type, VIRTUAL_NAMESPACE, objectName(i)), fixture(i, VIRTUAL_NAMESPACE, g))
        .catch((error) => (loadError = error))
        .finally(() => (inFlight -= 1));
    }
  }, 10);
  await sleep(2000); // let the load reach steady state
  const before = await scrapeMetrics(syncer.metricsUrl);
  const loaded = await phase('load');
  const after = await scrapeMetrics(syncer.metricsUrl);
  clearInterval(ticker);
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  if (loadError !== undefined) throw loadError;
  const updatedKey = `vcsync_sync_operations_total{controller="${RESOURCE.controller}",result="updated"}`;

  const ratio = (a, b) => round(a / b);
  const result = {
    objects: objectCount,
    samples,
    loadRatePerSecond: loadRate,
    loadAchievedPerSecond: round(written / loadSeconds, 1),
    loadSkipped: skipped,
    syncerHostUpdatesDuringLoadPhase: after[updatedKey] - before[updatedKey],
    hostQps: HIGH_QPS,
    quick,
    host: args.host,
    resource: RESOURCE.name,
    setup: {
      devclusters: realHost
        ? 'virtual: a `vcsync devcluster` process, memory only; host: the real etcd (--unsafe-no-fsync) + kube-apiserver from the kube-assets, holding both the syncer\'s and the relay\'s host namespace'
        : 'virtual and host: separate `vcsync devcluster` processes, memory only',
      syncer: `\`vcsync start\` in its own process, --no-leader-elect, 10 workers, host QPS/burst 100000, no patches, only the sync of ${RESOURCE.plural} enabled`,
      syncerProbe: `PUT one virtual ${RESOURCE.kind} (new addresses) → host copy with the new first IP seen on a watch of the host namespace`,
      relayBaseline:
        `the same two hops with no syncer: PUT a virtual ${RESOURCE.kind} (namespace without Services, so the syncer skips it) → seen on a virtual watch → PUT the host object → seen on a host watch, all in the benchmark process`,
      load: `a background writer updates other synced ${RESOURCE.plural} at ${loadRate}/s (the syncer copies each to the host)`,
      order: `probes are sequential, syncer and relay alternate, 5 ms apart; ${RESOURCE.plural} 0..49 are probed round-robin`,
      statistics: `the samples of a phase run in ${ROUNDS} consecutive rounds; each percentile is the median of the rounds' percentiles`,
    },
    idle,
    load: loaded,
    ratios: {
      idleP50: ratio(idle.syncer.p50, idle.relay.p50),
      idleP99: ratio(idle.syncer.p99, idle.relay.p99),
      loadP50: ratio(loaded.syncer.p50, loaded.relay.p50),
      loadP99: ratio(loaded.syncer.p99, loaded.relay.p99),
    },
  };
  result.table = [
    { benchmark: BENCHMARK, metric: `virtual write → host visible, idle, p50 ms (median of ${ROUNDS} rounds)`, value: idle.syncer.p50, baseline: idle.relay.p50, ratio: result.ratios.idleP50 },
    { benchmark: BENCHMARK, metric: `virtual write → host visible, idle, p99 ms (median of ${ROUNDS} rounds)`, value: idle.syncer.p99, baseline: idle.relay.p99, ratio: result.ratios.idleP99 },
    { benchmark: BENCHMARK, metric: `virtual write → host visible, ${loadRate} updates/s load, p50 ms (median of ${ROUNDS} rounds)`, value: loaded.syncer.p50, baseline: loaded.relay.p50, ratio: result.ratios.loadP50 },
    { benchmark: BENCHMARK, metric: `virtual write → host visible, ${loadRate} updates/s load, p99 ms (median of ${ROUNDS} rounds)`, value: loaded.syncer.p99, baseline: loaded.relay.p99, ratio: result.ratios.loadP99 },
  ];
  const file = await writeResult(resultName('syncer-latency', RESOURCE, realHost), result);
  printSummary(`${BENCHMARK} (${objectCount} synced ${RESOURCE.plural}, ${samples} samples each)`, [
    ['idle, syncer p50 / p99', `${idle.syncer.p50} / ${idle.syncer.p99} ms`],
    ['idle, relay baseline p50 / p99', `${idle.relay.p50} / ${idle.relay.p99} ms`],
    [`load ${loadRate}/s, syncer p50 / p99`, `${loaded.syncer.p50} / ${loaded.syncer.p99} ms`],
    [`load ${loadRate}/s, relay p50 / p99`, `${loaded.relay.p50} / ${loaded.relay.p99} ms`],
    ['ratios p50 / p99 (idle; load)', `${result.ratios.idleP50} / ${result.ratios.idleP99}; ${result.ratios.loadP50} / ${result.ratios.loadP99}`],
    ['load achieved', `${result.loadAchievedPerSecond} updates/s (${skipped} skipped)`],
    ['results', file],
  ]);
} finally {
  for (const stop of stops.reverse()) await stop();
  for (const client of clients) client.close();
  await dir.dispose();
}
