// The syncer's own CPU per synced object, without the network: the Endpoints syncer as the daemon
// builds it (ResourceSync → shared informers → controller → reconciler, the fenced clients, real
// metrics) copies N Endpoints from an in-memory virtual cluster to an in-memory host that answers
// each create after a turn of the event loop and sends its ADDED event on the host watch, in this
// process. The baseline is that same fake host driven directly, in the same run: the host objects
// the syncer wrote, created with 10 in flight, their watch events consumed (the fake server's work
// and the JSON both sides pay). syncer − baseline is what the syncer itself spends per object
// (reconcile, translation, caches, queue, metrics, promise hops, garbage collection) — the part of
// syncer-bulk's CPU ratio its code decides, measured without the HTTP stack and the devcluster,
// whose noise on a loaded 2-core machine hides changes of 5-10% in syncer-bulk.
//
//   npx tsc -p tsconfig.build.json
//   node --expose-gc --no-node-snapshot benchmarks/syncer-own-cpu.mjs [--quick] [--n 5000] [--rounds 7]
//
// Writes benchmarks/results/syncer-own-cpu.json and prints a summary. Rounds alternate baseline and
// syncer; each figure is the median of the rounds.
import { benchArgs, median, printSummary, round, writeResult } from './lib/bench-run.mjs';

const args = benchArgs({
  usage:
    'usage: node --expose-gc --no-node-snapshot benchmarks/syncer-own-cpu.mjs [--quick] [--n 5000] [--rounds 7]\n' +
    'the Endpoints syncer against an in-memory API server in this process, next to that server driven directly: the syncer\'s own CPU µs per object\n' +
    '(build first: npx tsc -p tsconfig.build.json)',
  numbers: { n: (quick) => (quick ? 500 : 5000), rounds: (quick) => (quick ? 1 : 7) },
});
const { n: N, rounds: ROUNDS, quick } = args;

const { setImmediate: nextTurn } = await import('node:timers/promises');
const { Writable } = await import('node:stream');
const { Registry } = await import('prom-client');
const { pino } = await import('pino');
const { parseConfig } = await import('../dist/config/index.js');
const { KubeMetrics } = await import('../dist/kube/metrics.js');
const { SharedInformerFactory } = await import('../dist/manager/shared-informers.js');
const { PatchSandbox } = await import('../dist/patches/index.js');
const { SyncerMetrics } = await import('../dist/syncer/metrics.js');
const { registryConfigSchema, SYNCABLE_RESOURCES } = await import('../dist/syncer/resources.js');
const { ResourceSync } = await import('../dist/syncer/resource-sync.js');
const { objectName } = await import('./lib/endpoints-fixtures.mjs');

const CONCURRENCY = 10; // the syncer's default --workers
const VIRTUAL_NAMESPACE = 'default';
const HOST_NAMESPACE = 'vcluster-bench';
const VCLUSTER = 'bench';
const CREATED = '2026-11-27T00:00:00Z';

/** Endpoints `i` as a server lists it (3 addresses, one port), and its selector-less Service. */
function virtualEndpoints(i) {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: objectName(i), namespace: VIRTUAL_NAMESPACE, uid: `uid-${i}`, resourceVersion: String(10 + i), creationTimestamp: CREATED, labels: { app: objectName(i), bench: 'syncer' } },
    subsets: [{ addresses: [0, 1, 2].map((k) => ({ ip: `10.${(i >> 8) & 255}.${i & 255}.${k + 1}` })), ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }],
  };
}
function service(i) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: objectName(i), namespace: VIRTUAL_NAMESPACE, uid: `service-uid-${i}`, resourceVersion: String(100_000 + i), creationTimestamp: CREATED },
    spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP' }], clusterIP: '10.0.0.1', type: 'ClusterIP' },
  };
}
// Lists are parsed from text on every call, as a client parses a response.
const endpointsText = JSON.stringify(Array.from({ length: N }, (_, i) => virtualEndpoints(i)));
const servicesText = JSON.stringify(Array.from({ length: N }, (_, i) => service(i)));

/** A watch stream the fake server feeds with event lines, parsed as a client parses them. */
class FakeWatch {
  #events = [];
  #wake;
  closed = false;
  push(line) {
    this.#events.push(JSON.parse(line));
    this.#notify();
  }
  close() {
    this.closed = true;
    this.#notify();
  }
  #notify() {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
  async *[Symbol.asyncIterator]() {
    for (;;) {
      const event = this.#events.shift();
      if (event !== undefined) {
        yield event;
        continue;
      }
      if (this.closed) return;
      await new Promise((resolve) => (this.#wake = resolve));
    }
  }
}

/** The host: a create is serialised, stored, answered after a turn, and its ADDED event follows on every open watch. */
class FakeHost {
  #resourceVersion = 1_000_000;
  watches = new Set();
  written = [];
  record = false;
  async create(body) {
    const object = JSON.parse(JSON.stringify(body));
    if (this.record) this.written.push(JSON.parse(JSON.stringify(body)));
    this.#resourceVersion += 1;
    Object.assign(object.metadata, {
      uid: `host-uid-${this.#resourceVersion}`,
      resourceVersion: String(this.#resourceVersion),
      creationTimestamp: CREATED,
      managedFields: [{ manager: 'vcsync', operation: 'Update', apiVersion: 'v1', time: CREATED, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': {} }, 'f:subsets': {} } }],
    });
    const text = JSON.stringify(object);
    await nextTurn();
    setImmediate(() => {
      const line = `{"type":"ADDED","object":${text}}`;
      for (const watch of this.watches) watch.push(line);
    });
    return JSON.parse(text);
  }
  watch(signal) {
    const watch = new FakeWatch();
    this.watches.add(watch);
    signal?.addEventListener('abort', () => {
      watch.close();
      this.watches.delete(watch);
    });
    return watch;
  }
}

/** A watch that sees no event until it is closed: the virtual side does not change during the copy. */
function quietWatch(signal) {
  const watch = new FakeWatch();
  signal?.addEventListener('abort', () => watch.close());
  return watch;
}

const refuse = (what) => async () => {
  throw new Error(`syncer-own-cpu: the bulk copy made an unexpected ${what}`);
};
function clients(host) {
  const list = (text, options) => {
    const all = JSON.parse(text);
    const start = options?.continue ? Number(options.continue) : 0;
    const end = options?.limit ? start + options.limit : all.length;
    return { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '500000', ...(end < all.length ? { continue: String(end) } : {}) }, items: all.slice(start, end) };
  };
  return {
    virtual: {
      list: async (path, options) => list(path.includes('/services') ? servicesText : endpointsText, options),
      watch: async (_path, options) => quietWatch(options?.signal),
      get: refuse('virtual GET'),
      create: refuse('virtual POST'),
      update: refuse('virtual PUT'),
      delete: refuse('virtual DELETE'),
    },
    host: {
      list: async () => ({ kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '1000000' }, items: [] }),
      watch: async (_path, options) => host.watch(options?.signal),
      get: refuse('host GET'),
      create: (_path, body) => host.create(body),
      update: refuse('host PUT'),
      delete: refuse('host DELETE'),
    },
  };
}

const resource = SYNCABLE_RESOURCES.find((r) => r.name === 'endpoints');
const config = parseConfig('sync:\n  toHost:\n    endpoints:\n      enabled: true\n    endpointSlices:\n      enabled: false\n', 'vcluster.yaml', registryConfigSchema());
const sandbox = new PatchSandbox({});
const built = resource.buildState({ vclusterName: VCLUSTER, hostNamespace: HOST_NAMESPACE, config: config.config, sandbox });

/** Resolves once a watch of `host` has seen `count` objects. */
function allSeen(host, count) {
  const stop = new AbortController();
  const watch = host.watch(stop.signal);
  const seen = new Set();
  const done = (async () => {
    for await (const event of watch) {
      seen.add(event.object.metadata.name);
      if (seen.size === count) return;
    }
  })();
  return done.finally(() => stop.abort());
}

function cpuMicros(since) {
  const used = process.cpuUsage(since);
  return used.user + used.system;
}

/** The syncer copying N Endpoints; CPU µs per object from "caches synced" until the host has all N. */
async function runSyncer(host) {
  const { virtual, host: hostClient } = clients(host);
  let cachesSynced;
  const synced = new Promise((resolve) => (cachesSynced = resolve));
  // Info level as the daemon's default; the controller's "caches synced" line starts the clock.
  const logger = pino({ level: 'info' }, new Writable({ write(chunk, _encoding, callback) {
    if (chunk.includes('caches synced')) cachesSynced();
    callback();
  } }));
  const registry = new Registry();
  const kubeMetrics = new KubeMetrics(registry);
  const sync = new ResourceSync({
    resources: [resource],
    states: new Map([[resource.name, built.state]]),
    newInformers: (defaults) => new SharedInformerFactory({ clusters: { virtual, host: hostClient }, informerDefaults: { ...defaults, logger, metrics: kubeMetrics } }),
    context: { virtualClient: virtual, hostClient, vclusterName: VCLUSTER, hostWatchNamespace: HOST_NAMESPACE, events: { warning: () => undefined }, workers: CONCURRENCY, kubeMetrics, logger },
    metrics: new SyncerMetrics(registry),
  });
  const all = allSeen(host, N);
  const stop = new AbortController();
  const running = sync.run(stop.signal);
  await synced;
  const start = process.cpuUsage();
  await all;
  const micros = cpuMicros(start);
  stop.abort();
  await running;
  return micros / N;
}

/** The fake host alone: the syncer's objects created with CONCURRENCY in flight, their events consumed. */
async function runBaseline(objects) {
  const host = new FakeHost();
  const all = allSeen(host, objects.length);
  const start = process.cpuUsage();
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < objects.length) await host.create(objects[next++]);
  }));
  await all;
  return cpuMicros(start) / objects.length;
}

const gc = globalThis.gc ?? (() => undefined);
console.log(`syncer-own-cpu: N=${N} Endpoints, rounds=${ROUNDS}, concurrency=${CONCURRENCY}${quick ? ' (quick)' : ''}`);
// A first copy, not measured: it warms up both paths and records what the syncer writes for the baseline.
const recording = new FakeHost();
recording.record = true;
await runSyncer(recording);
const objects = recording.written;
const syncer = [];
const baseline = [];
for (let r = 0; r < ROUNDS; r += 1) {
  gc();
  baseline.push(await runBaseline(objects));
  gc();
  syncer.push(await runSyncer(new FakeHost()));
  console.log(`  round ${r + 1}: syncer ${round(syncer[r], 1)} µs CPU/object, baseline ${round(baseline[r], 1)}, own ${round(syncer[r] - baseline[r], 1)}`);
}
sandbox.dispose();

const syncerMicros = median(syncer);
const baselineMicros = median(baseline);
const ownMicros = median(syncer.map((s, r) => s - baseline[r]));
const result = {
  n: N,
  rounds: ROUNDS,
  concurrency: CONCURRENCY,
  quick,
  setup: {
    syncer: 'the Endpoints syncer built as `vcsync start` builds it (ResourceSync, shared informers, fenced clients, KubeMetrics and SyncerMetrics on a registry, info logging), in this process, against in-memory clients',
    host: 'an in-memory host: a create serialises the body, answers after one turn of the event loop with the stored object (uid, resourceVersion, managedFields) and sends its ADDED event line to every host watch',
    baseline: 'the same in-memory host driven directly: the objects the syncer wrote, created with 10 in flight, their watch events consumed',
    cpuMicrosPerObject: 'process.cpuUsage (user + system) divided by N: the syncer from "caches synced" until a watch saw all N objects, the baseline from its first create until then',
  },
  raw: { syncer: syncer.map((v) => round(v, 1)), baseline: baseline.map((v) => round(v, 1)) },
  syncerCpuMicrosPerObject: round(syncerMicros, 1),
  baselineCpuMicrosPerObject: round(baselineMicros, 1),
  ownCpuMicrosPerObject: round(ownMicros, 1),
  table: [
    { benchmark: 'syncer-own-cpu', metric: `CPU µs per object, in-memory syncer vs the in-memory host alone (N=${N})`, value: round(syncerMicros, 1), baseline: round(baselineMicros, 1), ratio: round(syncerMicros / baselineMicros) },
    { benchmark: 'syncer-own-cpu', metric: 'the syncer\'s own CPU µs per object (syncer − baseline, median of the rounds)', value: round(ownMicros, 1) },
  ],
};
const file = await writeResult('syncer-own-cpu', result);
printSummary(`syncer-own-cpu (N=${N}, median of ${ROUNDS} round(s))`, [
  ['syncer, in-memory host', `${result.syncerCpuMicrosPerObject} µs CPU/object`],
  ['in-memory host alone', `${result.baselineCpuMicrosPerObject} µs CPU/object`],
  ['the syncer\'s own work', `${result.ownCpuMicrosPerObject} µs CPU/object`],
  ['results', file],
]);
