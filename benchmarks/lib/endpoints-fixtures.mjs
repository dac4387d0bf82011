// The objects the syncer benchmarks write and the plain clients they use: selector-less Services
// with their Endpoints or EndpointSlices (3 addresses each), a RestClient without rate limit, a
// watch, and the syncer's own translation (from dist, through what `vcsync preview` runs) so a
// baseline can write exactly what the syncer writes.
import { CoreResources, collectionPath, objectPath } from '../../dist/kube/api-path.js';
import { loadClusterConfig } from '../../dist/kube/kube-config.js';
import { RestClient } from '../../dist/kube/rest-client.js';
import { loadConfigFile } from '../../dist/config/load-config-file.js';
import { registryConfigSchema, SYNCABLE_RESOURCES } from '../../dist/syncer/resources.js';
import { PatchSandbox } from '../../dist/patches/index.js';
import { createHostPreview } from '../../dist/syncer/host-preview.js';
import { forEachConcurrent } from './bench-run.mjs';

export const endpointsType = CoreResources.endpoints;
export const servicesType = CoreResources.services;
export const endpointSlicesType = Object.freeze({ group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' });
export { collectionPath, objectPath };

/** Zero-padded object name of index `i`. */
export function objectName(i) {
  return `ep-${String(i).padStart(6, '0')}`;
}

/** The three addresses of Endpoints `i`, generation `g` (an update bumps `g`). */
function addresses(i, g) {
  return [0, 1, 2].map((k) => ({ ip: `10.${(i >> 8) & 255}.${i & 255}.${(g * 3 + k) % 250 + 1}` }));
}

/** A selector-less Service: its Endpoints are the syncer's to copy. */
export function service(i, namespace) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: objectName(i), namespace },
    spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
  };
}

/** Endpoints `i` with 3 addresses and one port. */
export function endpoints(i, namespace, generation = 0) {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: objectName(i), namespace, labels: { app: objectName(i), bench: 'syncer' } },
    subsets: [{ addresses: addresses(i, generation), ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }],
  };
}

/** The first address IP of Endpoints `i` at generation `g`: what a watcher checks for. */
export function firstIp(i, generation) {
  return addresses(i, generation)[0].ip;
}

/**
 * The name of EndpointSlice `i`: its Service's name and a 5-character suffix, the shape of a
 * slice a controller names with `generateName` (fixed here, so a run can find it again).
 */
export function sliceName(i) {
  return `${objectName(i)}-${((i * 2654435761) >>> 0).toString(36).padStart(5, '0').slice(-5)}`;
}

/**
 * EndpointSlice `i` of the Service `objectName(i)` (named by its `kubernetes.io/service-name`
 * label): the same 3 addresses and port as Endpoints `i`, one endpoint per address, all ready.
 */
export function endpointSlice(i, namespace, generation = 0) {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: sliceName(i), namespace, labels: { 'kubernetes.io/service-name': objectName(i), app: objectName(i), bench: 'syncer' } },
    addressType: 'IPv4',
    endpoints: addresses(i, generation).map(({ ip }) => ({ addresses: [ip], conditions: { ready: true } })),
    ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
  };
}

/**
 * The config of a run that measures one resource: its sync on, the other one's off, no patches,
 * so each figure is the translation of that resource alone.
 */
export function syncConfig(resource) {
  const on = (name) => (resource.name === name ? 'true' : 'false');
  return `sync:\n  toHost:\n    endpoints:\n      enabled: ${on('endpoints')}\n    endpointSlices:\n      enabled: ${on('endpointslices')}\n`;
}

/**
 * What the syncer benchmarks measure, by `--resource`: the kind, its API type, the fixture of
 * index `i` (a write of generation `g` changes its addresses), its name, the first address a
 * watcher checks, and the controller label of its metrics.
 */
export const SYNC_RESOURCES = Object.freeze({
  endpoints: Object.freeze({
    name: 'endpoints',
    kind: 'Endpoints',
    plural: 'Endpoints',
    type: endpointsType,
    controller: 'endpoints',
    objectName,
    object: endpoints,
    firstIp: (object) => object?.subsets?.[0]?.addresses?.[0]?.ip,
  }),
  endpointslices: Object.freeze({
    name: 'endpointslices',
    kind: 'EndpointSlice',
    plural: 'EndpointSlices',
    type: endpointSlicesType,
    controller: 'endpointslices',
    objectName: sliceName,
    object: endpointSlice,
    firstIp: (object) => object?.endpoints?.[0]?.addresses?.[0],
  }),
});

/** `--resource`: the values it takes, and its usage text. */
export const RESOURCE_CHOICES = Object.keys(SYNC_RESOURCES);
export const RESOURCE_USAGE =
  '--resource endpoints|endpointslices: what is synced and measured (default endpoints): N Endpoints, or N EndpointSlices each naming its ' +
  'selector-less Service by the kubernetes.io/service-name label; the config turns that resource\'s sync on and the other one\'s off, and ' +
  'the results go to a file of their own (…-endpointslices.json)';

/** The results file name of a run: `<benchmark>` for Endpoints, `<benchmark>-endpointslices` for slices, then `-real-host`. */
export function resultName(benchmark, resource, realHost = false) {
  return `${benchmark}${resource.name === 'endpoints' ? '' : `-${resource.name}`}${realHost ? '-real-host' : ''}`;
}

/** The name of a run's rows in the README table: `syncer-bulk`, `syncer-bulk (EndpointSlices, real host)`, … */
export function tableName(benchmark, resource, realHost = false) {
  const remarks = [...(resource.name === 'endpoints' ? [] : [resource.plural]), ...(realHost ? ['real host'] : [])];
  return remarks.length === 0 ? benchmark : `${benchmark} (${remarks.join(', ')})`;
}

/** A RestClient for a devcluster process' kubeconfig, without client-side rate limit. */
export function unlimitedClient(kubeconfig, name) {
  return new RestClient({ cluster: loadClusterConfig({ kind: 'file', path: kubeconfig }, { name }), qps: Infinity, burst: 1_000_000 });
}

/** Creates a namespace (idempotent enough for fresh clusters). */
export async function createNamespace(client, name) {
  await client.create(collectionPath(CoreResources.namespaces), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name },
  });
}

/**
 * Creates `count` Services and objects of `resource` (Endpoints by default; index
 * `from`..`from+count-1`) in `namespace` with `concurrency` requests in flight; resolves with the
 * created objects as the server returned them (uid, resourceVersion set), in index order.
 */
export async function populateVirtual(client, namespace, { from = 0, count, concurrency = 32, resource = SYNC_RESOURCES.endpoints }) {
  const indexes = Array.from({ length: count }, (_, k) => from + k);
  const created = new Array(count);
  await forEachConcurrent(indexes, concurrency, async (i, k) => {
    await client.create(collectionPath(servicesType, namespace), service(i, namespace));
    created[k] = await client.create(collectionPath(resource.type, namespace), resource.object(i, namespace));
  });
  return created;
}

/**
 * The host objects the syncer would create for `virtualObjects` (Endpoints or EndpointSlices, as
 * the server returned them), computed with the syncer's own code: what `vcsync preview` computes
 * with the config at `configPath` for a first sync, the Services of `services` (the fixtures'
 * selector-less ones) deciding the rules. The baseline's input; throws when the syncer would not
 * write one of them (the config does not enable the resource, or a rule skips it).
 */
export async function translateForHost(virtualObjects, services, { configPath, vclusterName, hostNamespace }) {
  const loaded = await loadConfigFile(configPath, registryConfigSchema());
  if (!loaded.ok) throw new Error(`config ${configPath} invalid: ${JSON.stringify(loaded.errors)}`);
  const sandbox = new PatchSandbox();
  try {
    const built = createHostPreview(SYNCABLE_RESOURCES, { vclusterName, hostNamespace, config: loaded.config, sandbox });
    if (!built.ok) throw new Error(`patches invalid: ${JSON.stringify(built.errors)}`);
    const outcomes = await built.preview.previewAll([...services, ...virtualObjects]);
    return outcomes.slice(services.length).map((outcome, k) => {
      if (outcome.kind !== 'host') {
        const { kind, metadata } = virtualObjects[k];
        throw new Error(`the syncer would not write ${kind} ${metadata.namespace}/${metadata.name} with ${configPath}: ${outcome.message} (is this resource enabled there, and its Service selector-less?)`);
      }
      return outcome.object;
    });
  } finally {
    sandbox.dispose();
  }
}

/**
 * A watch on the objects of `type` in one namespace (all with `undefined`), started from a fresh
 * list's resourceVersion, for seeing when objects appear or change. Events arrive through
 * `onEvent(event, atMs)` where `atMs` is `performance.now()` at decode time. Restarts after a
 * clean server end.
 */
export async function watchObjects(client, type, namespace, onEvent, { labelSelector } = {}) {
  const path = collectionPath(type, namespace);
  const controller = new AbortController();
  const list = await client.list(path, { labelSelector });
  let resourceVersion = list.metadata?.resourceVersion;
  const initial = list.items;
  const loop = async () => {
    while (!controller.signal.aborted) {
      let stream;
      try {
        stream = await client.watch(path, { resourceVersion, labelSelector, signal: controller.signal, timeoutSeconds: 3600 });
        for await (const event of stream) {
          const at = performance.now();
          if (event.object?.metadata?.resourceVersion !== undefined) resourceVersion = event.object.metadata.resourceVersion;
          if (event.type !== 'BOOKMARK') onEvent(event, at);
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        throw error;
      }
    }
  };
  const running = loop();
  running.catch((error) => {
    if (!controller.signal.aborted) console.error(`watch of ${path} failed:`, error);
  });
  return {
    initial,
    close: async () => {
      controller.abort();
      await running.catch(() => {});
    },
  };
}

/** {@link watchObjects} of Endpoints. */
export function watchEndpoints(client, namespace, onEvent, options) {
  return watchObjects(client, endpointsType, namespace, onEvent, options);
}
