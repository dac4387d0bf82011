// The objects the syncer benchmarks write and the plain clients they use: selector-less Services
// with their Endpoints (3 addresses each), a RestClient without rate limit, a host watch, and the
// syncer's own translation (from dist) so a baseline can write exactly what the syncer writes.
import { CoreResources, collectionPath, objectPath } from '../../dist/kube/api-path.js';
import { loadClusterConfig } from '../../dist/kube/kube-config.js';
import { RestClient } from '../../dist/kube/rest-client.js';
import { loadConfigFile } from '../../dist/config/load-config-file.js';
import { registryConfigSchema } from '../../dist/syncer/resources.js';
import { PatchSandbox } from '../../dist/patches/index.js';
import { buildEndpointsSyncState } from '../../dist/syncer/endpoints/config-section.js';
import { desiredHostObject } from '../../dist/syncer/desired-host.js';
import { endpointsResource } from '../../dist/syncer/endpoints/endpoints-resource.js';
import { forEachConcurrent } from './bench-run.mjs';

export const endpointsType = CoreResources.endpoints;
export const servicesType = CoreResources.services;
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
 * Creates `count` Services and Endpoints (index `from`..`from+count-1`) in `namespace` with
 * `concurrency` requests in flight; resolves with the created Endpoints as the server returned
 * them (uid, resourceVersion set), in index order.
 */
export async function populateVirtual(client, namespace, { from = 0, count, concurrency = 32 }) {
  const indexes = Array.from({ length: count }, (_, k) => from + k);
  const created = new Array(count);
  await forEachConcurrent(indexes, concurrency, async (i, k) => {
    await client.create(collectionPath(servicesType, namespace), service(i, namespace));
    created[k] = await client.create(collectionPath(endpointsType, namespace), endpoints(i, namespace));
  });
  return created;
}

/**
 * The host objects the syncer would create for `virtualEndpoints`, computed with the syncer's own
 * code (`desiredHostObject` with the state built from `configPath`): the baseline's input.
 */
export async function translateForHost(virtualEndpoints, { configPath, vclusterName, hostNamespace }) {
  const loaded = await loadConfigFile(configPath, registryConfigSchema());
  if (!loaded.ok) throw new Error(`config ${configPath} invalid: ${JSON.stringify(loaded.errors)}`);
  const sandbox = new PatchSandbox();
  try {
    const built = buildEndpointsSyncState({ vclusterName, hostNamespace, config: loaded.config, sandbox });
    if (!built.ok) throw new Error(`patches invalid: ${JSON.stringify(built.errors)}`);
    const everyServiceSelectorless = { get: (key) => ({ metadata: { name: key.split('/')[1] }, spec: {} }) };
    const resource = endpointsResource(everyServiceSelectorless);
    const out = [];
    for (const virtual of virtualEndpoints) out.push((await desiredHostObject(resource, built.state, virtual, undefined)).object);
    return out;
  } finally {
    sandbox.dispose();
  }
}

/**
 * A watch on the Endpoints of one namespace (started from a fresh list's resourceVersion), for
 * seeing when objects appear or change. Events arrive through `onEvent(event, atMs)` where `atMs`
 * is `performance.now()` at decode time. Restarts after a clean server end.
 */
export async function watchEndpoints(client, namespace, onEvent, { labelSelector } = {}) {
  const path = collectionPath(endpointsType, namespace);
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
