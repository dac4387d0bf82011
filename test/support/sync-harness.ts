import { startDevCluster, type DevCluster, type DevClusterOptions } from '../../src/devcluster/index.js';
import { loadClusterConfig } from '../../src/kube/kube-config.js';
import { RestClient } from '../../src/kube/rest-client.js';
import { isAlreadyExists, isNotFound } from '../../src/apimachinery/index.js';
import type { KubeObject } from '../../src/kube/kube-object.js';
import { afterAll, beforeAll } from 'vitest';
import { realClusterMissing } from './kube-assets.js';
import { startRealControlPlane, type RealControlPlane } from './real-control-plane.js';

export { metricValue } from './metrics.js';

/** Where a side of a syncer test runs: an in-process devcluster or a real kube-apiserver (kube-assets). */
export type ClusterBackend = 'devcluster' | 'real';

/** The backends of the virtual and the host side. */
export interface SyncBackends {
  virtual: ClusterBackend;
  host: ClusterBackend;
}

/**
 * The combinations the syncer suites run against: devcluster→devcluster (fast, every test),
 * devcluster→real host, real virtual→real host.
 */
export const SYNC_BACKENDS: readonly SyncBackends[] = [
  { virtual: 'devcluster', host: 'devcluster' },
  { virtual: 'devcluster', host: 'real' },
  { virtual: 'real', host: 'real' },
];

/** `virtual→host`, e.g. `devcluster→real`, for test titles. */
export function backendsName(backends: SyncBackends): string {
  return `${backends.virtual}→${backends.host}`;
}

/**
 * A virtual and a host API server with REST clients, whatever their backends: what the syncer
 * suites need. A real side is shared by the tests of a file, so each test gets a fresh host
 * namespace and `close()` empties the virtual namespaces it used.
 */
export interface SyncClusters {
  readonly backends: SyncBackends;
  virtualClient: RestClient;
  hostClient: RestClient;
  hostNamespace: string;
  /**
   * A further client of one side with its own User-Agent, which a real server records as the
   * field manager of its writes (another controller, say). The caller closes it.
   */
  clientAs(side: 'virtual' | 'host', userAgent: string): RestClient;
  /** The kubeconfig (YAML) of one side, for a daemon in another process. */
  kubeconfigYaml(side: 'virtual' | 'host'): string;
  close(): Promise<void>;
}

/**
 * A virtual and a host devcluster with REST clients, for syncer integration tests. `virtual` and
 * `host` may be replaced by a test that restarts a devcluster on the same port; `close()` closes
 * whatever they are then.
 */
export interface TwoClusters extends SyncClusters {
  virtual: DevCluster;
  host: DevCluster;
  virtualClient: RestClient;
  hostClient: RestClient;
  hostNamespace: string;
  close(): Promise<void>;
}

/** Options of {@link startTwoClusters}. */
export interface TwoClustersOptions {
  /** Default `vcluster-vc1`. */
  hostNamespace?: string;
  /** Options of the virtual devcluster (e.g. `dataDir`, `watchWindow`). Default in-memory. */
  virtual?: DevClusterOptions;
  /** Options of the host devcluster. Default in-memory. */
  host?: DevClusterOptions;
}

/** A REST client without client-side rate limit for `cluster`, named `name` in its kubeconfig. */
export function clientFor(cluster: DevCluster, name: string, userAgent?: string): RestClient {
  return new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: cluster.kubeConfig }, { name }), qps: Infinity, ...(userAgent !== undefined ? { userAgent } : {}) });
}

/** Starts two devclusters (in-memory unless told otherwise) and creates the host namespace. */
export async function startTwoClusters(options: TwoClustersOptions = {}): Promise<TwoClusters> {
  const hostNamespace = options.hostNamespace ?? 'vcluster-vc1';
  const [virtual, host] = await Promise.all([startDevCluster(options.virtual), startDevCluster(options.host)]);
  const virtualClient = clientFor(virtual, 'virtual');
  const hostClient = clientFor(host, 'host');
  await hostClient.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: hostNamespace } });
  const clusters: TwoClusters = {
    virtual,
    host,
    backends: { virtual: 'devcluster', host: 'devcluster' },
    virtualClient,
    hostClient,
    hostNamespace,
    clientAs: (side, userAgent) => clientFor(clusters[side], side, userAgent),
    kubeconfigYaml: (side) => clusters[side].kubeConfigYaml(),
    async close() {
      virtualClient.close();
      hostClient.close();
      await Promise.all([clusters.virtual.close(), clusters.host.close()]);
    },
  };
  return clusters;
}

/** Creates namespace `name`, or leaves it: a real cluster of a file keeps namespaces between tests. */
export async function ensureNamespace(client: RestClient, name: string): Promise<void> {
  try {
    await client.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

/** GET that answers undefined for 404. */
export async function getOrUndefined<T>(client: RestClient, path: string): Promise<T | undefined> {
  try {
    return await client.get<T>(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Namespaces a real virtual cluster keeps between tests (its own, never emptied). */
const SYSTEM_NAMESPACES = new Set(['kube-system', 'kube-public', 'kube-node-lease']);

/** Objects the real control plane makes itself and a test never owns. */
function systemOwned(kind: string, object: KubeObject): boolean {
  const { namespace, name } = object.metadata ?? {};
  return ((kind === 'services' || kind === 'endpointslices') && namespace === 'default' && name === 'kubernetes') || (kind === 'configmaps' && name === 'kube-root-ca.crt');
}

/**
 * Deletes what tests made in the non-system namespaces of a real cluster (Services, Endpoints,
 * ConfigMaps, Events, EndpointSlices), so the next test of the file starts from an empty virtual
 * cluster. The namespaces stay: without kube-controller-manager they would hang in Terminating.
 */
async function emptyRealCluster(client: RestClient): Promise<void> {
  const namespaces = (await client.list('/api/v1/namespaces')).items.map((n) => n.metadata?.name ?? '').filter((n) => !SYSTEM_NAMESPACES.has(n));
  for (const namespace of namespaces) {
    for (const kind of ['services', 'endpoints', 'configmaps', 'events', 'endpointslices']) {
      const collection = kind === 'endpointslices' ? `/apis/discovery.k8s.io/v1/namespaces/${namespace}/${kind}` : `/api/v1/namespaces/${namespace}/${kind}`;
      const items = (await client.list(collection)).items.filter((o) => !systemOwned(kind, o));
      await Promise.all(
        items.map(async (o) => {
          try {
            await client.delete(`${collection}/${o.metadata?.name ?? ''}`);
          } catch (error) {
            if (!isNotFound(error)) throw error;
          }
        }),
      );
    }
  }
}

function realClientFor(plane: RealControlPlane, name: string, userAgent?: string): RestClient {
  return new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: plane.kubeconfig }, { name }), qps: Infinity, ...(userAgent !== undefined ? { userAgent } : {}) });
}

/** Options of {@link useSyncBackends}. */
export interface UseSyncBackendsOptions {
  /** Start kube-controller-manager with each real control plane (garbage collector). Default false. */
  controllers?: boolean;
}

/** Starts the clusters of one test on the backends a {@link useSyncBackends} block was given. */
export type StartSyncClusters = (options?: { hostNamespace?: string }) => Promise<SyncClusters>;

/**
 * Registers `beforeAll`/`afterAll` in the calling `describe` that start the real control planes
 * `backends` needs (at most two, once per block: they take seconds) and answers a function that
 * starts the clusters of one test: fresh devclusters, and on a real host a fresh host namespace
 * (`<hostNamespace>-<n>`) per test; `close()` of a real virtual side deletes the test's objects.
 */
export function useSyncBackends(backends: SyncBackends, options: UseSyncBackendsOptions = {}): StartSyncClusters {
  const planes: { virtual?: RealControlPlane; host?: RealControlPlane } = {};
  let tests = 0;
  beforeAll(async () => {
    const controllers = options.controllers ?? false;
    const [virtual, host] = await Promise.all([
      backends.virtual === 'real' ? startRealControlPlane({ controllers }) : undefined,
      backends.host === 'real' ? startRealControlPlane({ controllers }) : undefined,
    ]);
    if (virtual !== undefined) planes.virtual = virtual;
    if (host !== undefined) planes.host = host;
  }, 240_000);
  afterAll(async () => {
    await Promise.all([planes.virtual?.close(), planes.host?.close()]);
  });
  return async (startOptions = {}) => {
    tests += 1;
    const base = startOptions.hostNamespace ?? 'vcluster-vc1';
    const hostNamespace = backends.host === 'real' ? `${base}-${tests}` : base;
    const devclusters = await Promise.all([
      backends.virtual === 'devcluster' ? startDevCluster() : undefined,
      backends.host === 'devcluster' ? startDevCluster() : undefined,
    ]);
    const side = (which: 'virtual' | 'host', userAgent?: string): RestClient => {
      const dev = devclusters[which === 'virtual' ? 0 : 1];
      if (dev !== undefined) return clientFor(dev, which, userAgent);
      const plane = planes[which];
      if (plane === undefined) throw new Error(`the real ${which} control plane did not start: see the beforeAll error`);
      return realClientFor(plane, which, userAgent);
    };
    const kubeconfigYaml = (which: 'virtual' | 'host'): string => {
      const dev = devclusters[which === 'virtual' ? 0 : 1];
      if (dev !== undefined) return dev.kubeConfigYaml();
      const plane = planes[which];
      if (plane === undefined) throw new Error(`the real ${which} control plane did not start: see the beforeAll error`);
      return plane.kubeconfigYaml;
    };
    const virtualClient = side('virtual');
    const hostClient = side('host');
    await hostClient.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: hostNamespace } });
    return {
      backends,
      virtualClient,
      hostClient,
      hostNamespace,
      clientAs: side,
      kubeconfigYaml,
      async close() {
        try {
          if (backends.virtual === 'real') await emptyRealCluster(virtualClient);
        } finally {
          virtualClient.close();
          hostClient.close();
          await Promise.all(devclusters.map((d) => d?.close()));
        }
      },
    };
  };
}

/** The backends of {@link SYNC_BACKENDS} that can run here: real ones need VCSYNC_KUBE_ASSETS (skipped with a printed reason). */
export function runnableBackends(what: string): SyncBackends[] {
  const missing = realClusterMissing(what);
  return SYNC_BACKENDS.filter((b) => !missing || (b.virtual === 'devcluster' && b.host === 'devcluster'));
}
