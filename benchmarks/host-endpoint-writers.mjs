// Who writes the endpoints of a synced selector-less Service on a real host, and how often, when
// the host runs kube-controller-manager. For one virtual Service `default/web` of virtual cluster
// `vc1` (host Service `web-x-default-x-vc1`, selector-less, as vcluster syncs it), each variant
// writes the host objects a syncer would write (Endpoints and/or an EndpointSlice, with the
// labels and annotations of vcsync's translation) into a namespace of its own, keeps them as a
// syncer does (a copy a host controller deleted or changed is written again after
// --repair-delay ms, at most once per change), waits --settle s for the start to converge, then
// counts for --quiet s: the watch events on Endpoints and EndpointSlices of the namespace (who
// wrote each: the managedFields entry with the newest time), and at the end the slices labelled
// `kubernetes.io/service-name=<host Service>` (managed-by label, managers, how many slices carry
// each address: 1 means exactly one set). Then one address changes (the syncer writes the new
// copies) and the writers of the next --settle s are counted the same way. Run once with every controller of
// kube-controller-manager on, once with the endpoint controllers off (endpoints-controller,
// endpointslice-controller, endpointslice-mirroring-controller: the cluster KEP-4974 allows).
//
// Variants (what the syncer writes on the host):
//   endpoints-only        Endpoints, no skip-mirror (vcsync with slice sync off)
//   vcluster              Endpoints + the slice with the virtual labels copied unchanged, so
//                         managed-by says the host mirroring controller (vcluster 0.30+, both on)
//   vcluster-slices-only  that slice, no Endpoints (vcluster with Endpoints sync off)
//   own-managed-by        Endpoints without skip-mirror + the slice with vcsync's own managed-by
//   skip-mirror-only      Endpoints with skip-mirror + the slice with managed-by copied as vcluster does
//   vcsync                Endpoints with skip-mirror + the slice with vcsync's own managed-by
//   syncer                the real `vcsync start` (both syncs on) between a virtual devcluster
//                         holding the Service, Endpoints and mirrored slice, and this host
//                         (leave it out with --no-syncer)
//
//   export VCSYNC_KUBE_ASSETS=$(npm run --silent kube-assets | tail -n 1)
//   npm run build && npm run build:testbed
//   node benchmarks/host-endpoint-writers.mjs [--quick] [--quiet 120] [--settle 20] [--repair-delay 1000] [--controllers both|on|off] [--no-syncer]
//
// Writes benchmarks/results/host-endpoint-writers.json and prints a summary.
import { setMaxListeners } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { benchArgs, printSummary, round, sleep, tempDir, writeResult } from './lib/bench-run.mjs';
import { startDevClusterProcess, startSyncerProcess } from './lib/cluster-processes.mjs';
import { unlimitedClient } from './lib/endpoints-fixtures.mjs';
import { isNotFound } from '../dist/apimachinery/index.js';
import { CoreResources, collectionPath, objectPath } from '../dist/kube/api-path.js';
import { singleNamespaceHostName } from '../dist/translate/host-names.js';
import { hostMetadata } from '../dist/translate/object-metadata.js';
import { startRealControlPlane } from '../build/testbed/real-control-plane.js';

const VARIANTS = ['endpoints-only', 'vcluster', 'vcluster-slices-only', 'own-managed-by', 'skip-mirror-only', 'vcsync', 'syncer'];
const args = benchArgs({
  usage:
    'usage: node benchmarks/host-endpoint-writers.mjs [--quick] [--quiet 120] [--settle 20] [--repair-delay 1000] [--controllers both|on|off] [--no-syncer]\n' +
    '  --quiet S         seconds of counting after the start converged (--quick: 20)\n' +
    '  --settle S        seconds the start is given before counting (--quick: 10)\n' +
    '  --repair-delay MS a host copy changed or deleted by someone else is written again after this long\n' +
    '  --controllers     on: every kube-controller-manager controller; off: the endpoint controllers off; both (default)\n' +
    '  --no-syncer       leave out the variant that runs `vcsync start`\n' +
    `variants: ${VARIANTS.join(', ')}\n` +
    'needs VCSYNC_KUBE_ASSETS (npm run kube-assets) and a build (npm run build && npm run build:testbed)',
  numbers: { quiet: (quick) => (quick ? 20 : 120), settle: (quick) => (quick ? 10 : 20), 'repair-delay': 1000 },
  strings: { controllers: 'both' },
  choices: { controllers: ['both', 'on', 'off'] },
  flags: ['no-syncer'],
});

const VCLUSTER = 'vc1';
const VIRTUAL_NAMESPACE = 'default';
const SERVICE = 'web';
const HOST_SERVICE = singleNamespaceHostName(SERVICE, VIRTUAL_NAMESPACE, VCLUSTER);
const MIRRORING = 'endpointslicemirroring-controller.k8s.io';
/** The managed-by value vcsync gives its host slices (docs/adr/0042-one-set-of-endpoints-on-the-host.md). */
const VCSYNC_MANAGED_BY = 'vcsync.vcluster.loft.sh';
const MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
const SKIP_MIRROR = 'endpointslice.kubernetes.io/skip-mirror';
const SERVICE_NAME = 'kubernetes.io/service-name';
const SLICES = { group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' };
const ENDPOINT_CONTROLLERS_OFF = '--controllers=*,-endpoints-controller,-endpointslice-controller,-endpointslice-mirroring-controller';
/** The addresses before and after the one change of the run (the first address is replaced). */
const ADDRESSES = ['10.1.0.1', '10.1.0.2'];
const CHANGED_ADDRESSES = ['10.1.0.3', '10.1.0.2'];
const PORT = { name: 'http', port: 8080, protocol: 'TCP' };

/** The virtual objects: what the virtual cluster (its own mirroring controller included) holds. */
function virtualObjects(addresses = ADDRESSES) {
  const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: SERVICE, namespace: VIRTUAL_NAMESPACE }, spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] } };
  const endpoints = {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: SERVICE, namespace: VIRTUAL_NAMESPACE, uid: 'virtual-endpoints-uid', labels: { app: SERVICE } },
    subsets: [{ addresses: addresses.map((ip) => ({ ip })), ports: [PORT] }],
  };
  const slice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: `${SERVICE}-mirror`, namespace: VIRTUAL_NAMESPACE, uid: 'virtual-slice-uid', labels: { app: SERVICE, [SERVICE_NAME]: SERVICE, [MANAGED_BY]: MIRRORING } },
    addressType: 'IPv4',
    endpoints: addresses.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
    ports: [PORT],
  };
  return { service, endpoints, slice };
}

/** A host object as vcsync's translation writes it: host name, labels, bookkeeping annotations. */
function hostCopy(virtual, hostNamespace, kind) {
  const metadata = hostMetadata({
    virtual: virtual.metadata,
    hostRef: { name: singleNamespaceHostName(virtual.metadata.name, VIRTUAL_NAMESPACE, VCLUSTER), namespace: hostNamespace },
    vclusterName: VCLUSTER,
    kind,
  });
  return { ...virtual, metadata };
}

/** The host objects variant `variant` writes into `hostNamespace` (the Service first). */
function hostObjects(variant, hostNamespace, addresses = ADDRESSES) {
  const virtual = virtualObjects(addresses);
  const service = hostCopy({ ...virtual.service, metadata: { ...virtual.service.metadata, uid: 'virtual-service-uid' } }, hostNamespace, '/v1, Kind=Service');
  const endpoints = hostCopy(virtual.endpoints, hostNamespace, '/v1, Kind=Endpoints');
  const slice = hostCopy(virtual.slice, hostNamespace, 'discovery.k8s.io/v1, Kind=EndpointSlice');
  slice.metadata.labels[SERVICE_NAME] = HOST_SERVICE;
  const ownSlice = { ...slice, metadata: { ...slice.metadata, labels: { ...slice.metadata.labels, [MANAGED_BY]: VCSYNC_MANAGED_BY } } };
  const skipping = { ...endpoints, metadata: { ...endpoints.metadata, labels: { ...endpoints.metadata.labels, [SKIP_MIRROR]: 'true' } } };
  const kept = {
    'endpoints-only': [endpoints],
    vcluster: [endpoints, slice],
    'vcluster-slices-only': [slice],
    'own-managed-by': [endpoints, ownSlice],
    'skip-mirror-only': [skipping, slice],
    vcsync: [skipping, ownSlice],
  }[variant];
  return { service, kept };
}

function typeOf(object) {
  return object.kind === 'EndpointSlice' ? SLICES : CoreResources.endpoints;
}

/** Whether `actual` still carries what the syncer wrote: its labels, annotations and fields. */
function carries(actual, desired) {
  const same = (a = {}, b = {}) => Object.entries(b).every(([key, value]) => a[key] === value) && Object.keys(a).every((key) => key in b);
  if (!same(actual.metadata?.labels, desired.metadata.labels) || !same(actual.metadata?.annotations, desired.metadata.annotations)) return false;
  const ports = (list) => list?.map((port) => `${port.name}/${port.port}/${port.protocol}`);
  const body = (object) => JSON.stringify(object.kind === 'EndpointSlice' ? [object.endpoints?.map((e) => e.addresses), ports(object.ports)] : object.subsets?.map((s) => [s.addresses?.map((a) => a.ip), ports(s.ports)]));
  return body(actual) === body(desired);
}

/** JSON with sorted keys: the server returns fields in its own order. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/** Which labels, annotations and fields of `actual` differ from `desired` (server defaults count as differences). */
function difference(actual, desired) {
  const keys = (a = {}, b = {}) => [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((key) => a[key] !== b[key]).map((key) => `${key}: ${JSON.stringify(b[key] ?? null)} -> ${JSON.stringify(a[key] ?? null)}`);
  const fields = ['subsets', 'endpoints', 'ports', 'addressType'].filter((field) => field in desired && canonical(actual[field]) !== canonical(desired[field]));
  return { labels: keys(actual.metadata?.labels, desired.metadata.labels), annotations: keys(actual.metadata?.annotations, desired.metadata.annotations), fields };
}

/**
 * Keeps `objects` on the host as a syncer does: creates them, then writes a copy again when a
 * watch shows it deleted or changed by someone else (after `delayMs`, one write per change).
 * `replace(next)` writes a changed set, as a syncer does when the virtual objects change.
 */
function keeper(client, namespace, initial, delayMs, signal) {
  let objects = initial;
  const pending = new Set();
  const changes = [];
  const write = async (desired) => {
    const path = objectPath(typeOf(desired), namespace, desired.metadata.name);
    let current;
    try {
      current = await client.get(path);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    if (current === undefined) return client.create(collectionPath(typeOf(desired), namespace), desired);
    if (carries(current, desired)) return current;
    return client.update(path, { ...desired, metadata: { ...desired.metadata, resourceVersion: current.metadata.resourceVersion } });
  };
  const repair = (desired) => {
    const name = `${desired.kind}/${desired.metadata.name}`;
    if (pending.has(name) || signal.aborted) return;
    pending.add(name);
    setTimeout(() => {
      pending.delete(name);
      // The set may have been replaced meanwhile: write what is wanted now.
      const wanted = objects.find((object) => object.kind === desired.kind && object.metadata.name === desired.metadata.name);
      if (!signal.aborted && wanted !== undefined) write(wanted).catch((error) => console.error(`repair of ${name} failed: ${error.message}`));
    }, delayMs);
  };
  return {
    replace: async (next) => {
      objects = next;
      for (const desired of objects) await write(desired);
    },
    onEvent: (kind, event) => {
      const desired = objects.find((object) => object.kind === kind && object.metadata.name === event.object?.metadata?.name);
      if (desired === undefined) return;
      if (event.type === 'DELETED' || !carries(event.object, desired)) {
        if (changes.length < 5) changes.push({ kind, type: event.type, by: event.type === 'DELETED' ? null : lastWriter(event.object), ...difference(event.object, desired) });
        repair(desired);
      }
    },
    /** The first few changes by others: what a host controller did to the copies. */
    changes,
  };
}

/** The field manager of the newest managedFields entry: who made this write (second resolution). */
function lastWriter(object) {
  const entries = object.metadata?.managedFields ?? [];
  let newest;
  for (const entry of entries) if (newest === undefined || (entry.time ?? '') >= (newest.time ?? '')) newest = entry;
  return newest?.manager ?? 'unknown';
}

/**
 * Watches Endpoints and EndpointSlices of `namespace` until `signal`, handing each event to
 * `onEvent(kind, event)`: every change after `listed` resolves is seen (the watches start at the
 * lists' resourceVersion), so write only then; `done` resolves once the watches ended.
 */
function watchNamespace(client, namespace, onEvent, signal) {
  const lists = [];
  const watchOne = async (type, kind) => {
    const listing = client.list(collectionPath(type, namespace));
    lists.push(listing);
    const list = await listing;
    let resourceVersion = list.metadata?.resourceVersion;
    while (!signal.aborted) {
      try {
        const stream = await client.watch(collectionPath(type, namespace), { resourceVersion, timeoutSeconds: 300, signal });
        for await (const event of stream) {
          if (event.type === 'BOOKMARK') {
            resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
            continue;
          }
          if (event.type === 'ERROR') break;
          resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
          onEvent(kind, event);
        }
      } catch (error) {
        if (signal.aborted) return;
        console.error(`watch of ${kind} in ${namespace} broke: ${error.message}; reopening`);
        await sleep(500);
      }
    }
  };
  const done = Promise.all([watchOne(CoreResources.endpoints, 'Endpoints'), watchOne(SLICES, 'EndpointSlice')]);
  return { listed: Promise.all(lists), done };
}

/** Event counter of one namespace, per phase of the run (start, quiet, change). */
function eventCounter() {
  let phase = 'start';
  const phases = {};
  return {
    setPhase(next) {
      phase = next;
    },
    onEvent(kind, event) {
      phases[phase] ??= { writes: 0, events: {}, writers: {} };
      const counts = phases[phase];
      counts.writes += 1;
      const key = `${kind} ${event.type}`;
      counts.events[key] = (counts.events[key] ?? 0) + 1;
      const writer = event.type === 'DELETED' ? 'deleted (writer not recorded)' : lastWriter(event.object);
      counts.writers[writer] = (counts.writers[writer] ?? 0) + 1;
    },
    result: (name) => phases[name] ?? { writes: 0, events: {}, writers: {} },
  };
}

/** The host slices of the Service and how many of them carry each address. */
async function hostSlices(client, namespace, addresses) {
  const list = await client.list(collectionPath(SLICES, namespace), { labelSelector: `${SERVICE_NAME}=${HOST_SERVICE}` });
  const slices = list.items.map((slice) => ({
    name: slice.metadata.name,
    managedBy: slice.metadata.labels?.[MANAGED_BY] ?? null,
    managers: [...new Set((slice.metadata.managedFields ?? []).map((entry) => entry.manager))],
    addresses: (slice.endpoints ?? []).flatMap((endpoint) => endpoint.addresses ?? []),
  }));
  const copies = addresses.map((ip) => slices.filter((slice) => slice.addresses.includes(ip)).length);
  const endpoints = await client.get(objectPath(CoreResources.endpoints, namespace, HOST_SERVICE)).catch(() => undefined);
  return {
    slices,
    // 1: every address in exactly one slice (one set); 2: duplicates; 0: a missing address.
    copiesPerAddress: { min: Math.min(...copies), max: Math.max(...copies) },
    hostEndpoints: endpoints === undefined ? null : { skipMirror: endpoints.metadata.labels?.[SKIP_MIRROR] ?? null, managers: [...new Set((endpoints.metadata.managedFields ?? []).map((entry) => entry.manager))] },
  };
}

/**
 * Starts `vcsync start` with both syncs on between a virtual devcluster (holding the Service, its
 * Endpoints and the slice its mirroring controller would have made) and `hostNamespace` of the
 * real host. `replace(addresses)` changes the virtual Endpoints and slice, as the virtual
 * cluster's controllers would.
 */
async function startRealSyncer(dir, plane, hostNamespace) {
  const virtual = await startDevClusterProcess('virtual', dir);
  const client = unlimitedClient(virtual.kubeconfig, 'virtual');
  const objects = virtualObjects();
  // The virtual server gives uids of its own.
  const strip = (object) => {
    const metadata = { ...object.metadata };
    delete metadata.uid;
    return { ...object, metadata };
  };
  await client.create(collectionPath(CoreResources.services, VIRTUAL_NAMESPACE), objects.service);
  await client.create(collectionPath(CoreResources.endpoints, VIRTUAL_NAMESPACE), strip(objects.endpoints));
  await client.create(collectionPath(SLICES, VIRTUAL_NAMESPACE), strip(objects.slice));
  const syncer = await startSyncerProcess({
    dir,
    virtual,
    host: { kubeconfig: plane.kubeconfigPath },
    name: VCLUSTER,
    hostNamespace,
    hostQps: 40,
    hostBurst: 80,
    config: 'sync:\n  toHost:\n    endpoints:\n      enabled: true\n    endpointSlices:\n      enabled: true\n',
  });
  return {
    replace: async (addresses) => {
      const next = virtualObjects(addresses);
      for (const object of [next.endpoints, next.slice]) {
        const path = objectPath(typeOf(object), VIRTUAL_NAMESPACE, object.metadata.name);
        const current = await client.get(path);
        await client.update(path, { ...strip(object), metadata: { ...strip(object).metadata, resourceVersion: current.metadata.resourceVersion } });
      }
    },
    stop: async () => {
      await syncer.stop();
      client.close();
      await virtual.stop();
    },
  };
}

/**
 * One kube-controller-manager configuration: every variant in a namespace of its own, all counted
 * at once: the start (--settle s), the quiet (--quiet s), one change of an address (--settle s).
 */
async function runConfiguration(label, controllerManagerArgs, variants, dir) {
  const plane = await startRealControlPlane({ controllers: true, controllerManagerArgs });
  const client = plane.adminClient;
  const stop = new AbortController();
  // Two watches and a keeper per variant listen on it.
  setMaxListeners(100, stop.signal);
  const watches = [];
  const stoppers = [];
  try {
    const runs = [];
    for (const variant of variants) {
      const namespace = `hew-${variant}`;
      await client.create(collectionPath(CoreResources.namespaces), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
      await client.create(collectionPath(CoreResources.services, namespace), hostObjects('endpoints-only', namespace).service);
      const counter = eventCounter();
      const keep = variant === 'syncer' ? undefined : keeper(client, namespace, [], args['repair-delay'], stop.signal);
      const watch = watchNamespace(client, namespace, (kind, event) => {
        counter.onEvent(kind, event);
        keep?.onEvent(kind, event);
      }, stop.signal);
      watches.push(watch.done);
      await watch.listed;
      let writer;
      if (keep !== undefined) {
        await keep.replace(hostObjects(variant, namespace).kept);
        writer = { replace: (addresses) => keep.replace(hostObjects(variant, namespace, addresses).kept) };
      } else {
        writer = await startRealSyncer(join(dir, variant), plane, namespace);
        stoppers.push(writer.stop);
      }
      runs.push({ variant, namespace, counter, writer, keep });
    }
    console.log(`${label}: ${variants.length} variants started; settling ${args.settle} s, counting ${args.quiet} s, then one change and ${args.settle} s`);
    await sleep(args.settle * 1000);
    for (const run of runs) run.counter.setPhase('quiet');
    await sleep(args.quiet * 1000);
    for (const run of runs) run.quiet = await hostSlices(client, run.namespace, ADDRESSES);
    for (const run of runs) run.counter.setPhase('change');
    await Promise.all(runs.map((run) => run.writer.replace(CHANGED_ADDRESSES)));
    await sleep(args.settle * 1000);
    const results = [];
    for (const run of runs) {
      results.push({
        variant: run.variant,
        start: run.counter.result('start'),
        quiet: { ...run.counter.result('quiet'), ...run.quiet },
        change: { ...run.counter.result('change'), ...(await hostSlices(client, run.namespace, CHANGED_ADDRESSES)) },
        ...(run.keep !== undefined ? { changesByOthers: run.keep.changes } : {}),
      });
    }
    return { controllers: label, controllerManagerArgs, kubernetes: plane.assets.versions.kubernetes, results };
  } finally {
    stop.abort();
    for (const stopper of stoppers) await stopper();
    await Promise.allSettled(watches);
    await plane.close();
  }
}

/** `slice-count managed-by by managers, …` of a snapshot. */
function describeSlices(snapshot) {
  return `${snapshot.slices.length} [${snapshot.slices.map((slice) => `${slice.managedBy ?? '-'} by ${slice.managers.join('+')}`).join('; ')}]`;
}

if ((process.env['VCSYNC_KUBE_ASSETS'] ?? '').trim() === '') {
  // `npm run bench` runs every script: this one has no devcluster form (it measures kube-controller-manager).
  console.error('host-endpoint-writers: skipped, VCSYNC_KUBE_ASSETS is not set (export VCSYNC_KUBE_ASSETS=$(npm run --silent kube-assets | tail -n 1)); the last result file stays');
  process.exit(0);
}
const variants = VARIANTS.filter((variant) => variant !== 'syncer' || !args['no-syncer']);
const configurations = [
  ...(args.controllers !== 'off' ? [['all controllers on', []]] : []),
  ...(args.controllers !== 'on' ? [['endpoint controllers off', [ENDPOINT_CONTROLLERS_OFF]]] : []),
];
const dir = await tempDir('host-endpoint-writers');
try {
  for (const variant of variants) await mkdir(join(dir.path, variant), { recursive: true });
  const runs = [];
  for (const [label, flags] of configurations) runs.push(await runConfiguration(label, flags, variants, dir.path));
  const table = runs.flatMap((run) =>
    run.results.map((result) => ({
      benchmark: 'host-endpoint-writers (real host)',
      metric: `${run.controllers}, ${result.variant}: host slices of the Service × copies of each address; writes in ${args.quiet} s of quiet; writers after one change`,
      value: `${result.quiet.slices.length} × ${result.quiet.copiesPerAddress.max}; ${result.quiet.writes}; ${Object.keys(result.change.writers).join(' + ') || 'none'}`,
    })),
  );
  const file = await writeResult('host-endpoint-writers', {
    parameters: { quietSeconds: args.quiet, settleSeconds: args.settle, repairDelayMs: args['repair-delay'], hostService: HOST_SERVICE, vcsyncManagedBy: VCSYNC_MANAGED_BY, addresses: ADDRESSES, changedAddresses: CHANGED_ADDRESSES },
    runs,
    table,
  });
  for (const run of runs) {
    printSummary(
      `${run.controllers} (kube-controller-manager ${run.kubernetes}${run.controllerManagerArgs.length > 0 ? ` ${run.controllerManagerArgs.join(' ')}` : ''})`,
      run.results.flatMap((result) => [
        [result.variant, `quiet: slices ${describeSlices(result.quiet)}, copies/address ${result.quiet.copiesPerAddress.min}-${result.quiet.copiesPerAddress.max}, writes ${result.quiet.writes} ${JSON.stringify(result.quiet.writers)}${result.quiet.hostEndpoints === null ? ', no host Endpoints' : ''}`],
        ['', `change: slices ${describeSlices(result.change)}, copies/address ${result.change.copiesPerAddress.min}-${result.change.copiesPerAddress.max}, writes ${result.change.writes} ${JSON.stringify(result.change.writers)}`],
      ]),
    );
  }
  console.log(`\nwrote ${file} (${round(args.quiet)} s counted per variant)`);
} finally {
  await dir.dispose();
}
