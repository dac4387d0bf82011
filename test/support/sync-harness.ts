import { Registry } from 'prom-client';
import { startDevCluster, type DevCluster, type DevClusterOptions } from '../../src/devcluster/index.js';
import { parseConfig } from '../../src/config/index.js';
import { EventRecorder } from '../../src/kube/event-recorder.js';
import { loadClusterConfig } from '../../src/kube/kube-config.js';
import { KubeMetrics } from '../../src/kube/metrics.js';
import { RestClient } from '../../src/kube/rest-client.js';
import { isAlreadyExists, isNotFound } from '../../src/apimachinery/index.js';
import type { KubeObject } from '../../src/kube/kube-object.js';
import { silentLogger, type Logger } from '../../src/observe/logger.js';
import { PatchSandbox } from '../../src/patches/index.js';
import { endpointsDefinition } from '../../src/syncer/endpoints/endpoints-definition.js';
import type { Endpoints } from '../../src/syncer/endpoints/endpoints-types.js';
import { SharedInformerFactory } from '../../src/manager/shared-informers.js';
import type { Informer } from '../../src/kube/informer.js';
import type { ReferenceImporter } from '../../src/syncer/reference-importer.js';
import type { SyncState } from '../../src/syncer/sync-state.js';
import { SYNC_RESYNC_PERIOD_MS } from '../../src/syncer/syncable-resource.js';
import { toHostSyncer, type ToHostDefinition, type ToHostSyncer } from '../../src/syncer/to-host-syncer.js';
import { SyncerMetrics } from '../../src/syncer/metrics.js';
import { buildEndpointsSyncState } from '../../src/syncer/endpoints/config-section.js';
import type { EventSink } from '../../src/syncer/to-host-controller.js';
import { afterAll, beforeAll } from 'vitest';
import { realClusterMissing } from './kube-assets.js';
import { startRealControlPlane, type RealControlPlane } from './real-control-plane.js';
import { waitFor } from './wait-for.js';
import { registryConfigSchema } from '../../src/syncer/resources.js';

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

/** Options of {@link startEndpointsSyncer}. */
export interface StartSyncerOptions {
  /** Default `vc1`. */
  vclusterName?: string;
  /** The vcluster.yaml text. Default: Endpoints sync enabled, no patches. */
  configYaml?: string;
  /**
   * Where SyncError events go: `'recorder'` wires a real {@link EventRecorder} on the virtual
   * cluster (events readable through the API). Default: dropped.
   */
  events?: 'recorder' | EventSink;
  /** Default silent. */
  logger?: Logger;
  /** Concurrent reconciles. Default 10. */
  workers?: number;
}

/** A to-host syncer run by the harness, with its caches by informer name and whether they listed. */
export interface HarnessSyncer<V extends KubeObject = Endpoints> extends ToHostSyncer<V> {
  /** The cache of the informer named `name` (e.g. `host-endpoints`); throws for a name the syncer does not have. */
  cache<T extends KubeObject = KubeObject>(name: string): Informer<T>;
  /** True once every informer has listed. */
  hasSynced(): boolean;
}

/** A running syncer; `stop()` aborts it and waits until it has drained. Idempotent. */
export interface RunningSyncer<V extends KubeObject = Endpoints> {
  readonly syncer: HarnessSyncer<V>;
  readonly registry: Registry;
  stop(): Promise<void>;
}

/** Options of {@link runToHostSyncer}. */
export interface RunToHostSyncerOptions {
  /** The resource's state (translator, compiled patches). */
  state: SyncState;
  vclusterName: string;
  /** Host namespace the host informer watches; `''` for every namespace (multi-namespace mode). */
  hostWatchNamespace: string;
  events: EventSink;
  /** Imports `reference` patch targets. Default none. */
  importer?: ReferenceImporter;
  /** Concurrent reconciles. Default 10. */
  workers?: number;
  /** Default silent. */
  logger?: Logger;
  /** Its metrics label, the resource's name (e.g. `endpoints`). */
  name: string;
  /** Where its metrics go. Default a new registry. */
  registry?: Registry;
  /** The informer and queue metrics, on `registry`. Default new ones there. */
  kubeMetrics?: KubeMetrics;
}

/**
 * Builds the to-host syncer of `definition` between `clusters` as the daemon does (one set of
 * shared informers, the generic syncer on them), runs informers and syncer, and resolves once
 * every informer has listed. `stop()` ends both and waits for the drain; it does not dispose the
 * state's sandbox (its owner does).
 */
export async function runToHostSyncer<V extends KubeObject, S extends string>(
  clusters: SyncClusters,
  definition: ToHostDefinition<V, S>,
  options: RunToHostSyncerOptions,
): Promise<RunningSyncer<V>> {
  const registry = options.registry ?? new Registry();
  const kubeMetrics = options.kubeMetrics ?? new KubeMetrics(registry);
  const logger = options.logger ?? silentLogger();
  const factory = new SharedInformerFactory({
    clusters: { virtual: clusters.virtualClient, host: clusters.hostClient },
    informerDefaults: { logger, metrics: kubeMetrics, resyncPeriodMs: SYNC_RESYNC_PERIOD_MS },
  });
  const built = toHostSyncer(definition)({
    virtualClient: clusters.virtualClient,
    hostClient: clusters.hostClient,
    vclusterName: options.vclusterName,
    hostWatchNamespace: options.hostWatchNamespace,
    state: options.state,
    events: options.events,
    informers: factory,
    kubeMetrics,
    controllerMetrics: new SyncerMetrics(registry).controller(options.name),
    logger,
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
    ...(options.importer !== undefined ? { importer: options.importer } : {}),
  });
  const syncer: HarnessSyncer<V> = Object.assign(built, {
    cache<T extends KubeObject = KubeObject>(name: string): Informer<T> {
      const informer = built.informers.get(name);
      if (informer === undefined) throw new Error(`the syncer has no informer ${name} (it has ${[...built.informers.keys()].join(', ')})`);
      return informer as unknown as Informer<T>;
    },
    hasSynced: () => factory.hasSynced(),
  });
  const abort = new AbortController();
  const running = Promise.all([factory.run(abort.signal), built.run(abort.signal)]);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      abort.abort();
      await running;
    })();
    return stopping;
  };
  try {
    await waitFor('the syncer informers to list', () => syncer.hasSynced());
  } catch (error) {
    await stop();
    throw error;
  }
  return { syncer, registry, stop };
}

/** Enabled, no patches. */
export const DEFAULT_SYNC_CONFIG = 'sync:\n  toHost:\n    endpoints:\n      enabled: true\n';

/**
 * Builds the Endpoints syncer between `clusters` exactly as `runSyncer` does (config → sync state →
 * the generic to-host syncer of the Endpoints definition on shared informers), runs it, and
 * resolves once its informers have listed.
 */
export async function startEndpointsSyncer(clusters: SyncClusters, options: StartSyncerOptions = {}): Promise<RunningSyncer> {
  const vclusterName = options.vclusterName ?? 'vc1';
  const parsed = parseConfig(options.configYaml ?? DEFAULT_SYNC_CONFIG, 'vcluster.yaml', registryConfigSchema());
  if (!parsed.ok) throw new Error(`test config is invalid: ${JSON.stringify(parsed.errors)}`);
  const sandbox = new PatchSandbox();
  const built = buildEndpointsSyncState({ vclusterName, hostNamespace: clusters.hostNamespace, config: parsed.config, sandbox });
  if (!built.ok) {
    sandbox.dispose();
    throw new Error(`test patches are invalid: ${built.errors.map((e) => e.message).join('; ')}`);
  }
  const registry = new Registry();
  const kubeMetrics = new KubeMetrics(registry);
  const recorder =
    options.events === 'recorder' ? new EventRecorder({ client: clusters.virtualClient, component: 'vcsync', metrics: kubeMetrics }) : undefined;
  const events: EventSink =
    recorder !== undefined
      ? { warning: (object, reason, message) => recorder.record(object, 'Warning', reason, message) }
      : typeof options.events === 'object'
        ? options.events
        : { warning: () => undefined };
  let running: RunningSyncer;
  try {
    running = await runToHostSyncer(clusters, endpointsDefinition, {
      state: built.state,
      vclusterName,
      // As runSyncer: multi-namespace mode spreads copies over mapped host namespaces.
      hostWatchNamespace: parsed.config.sync.toHost.namespaces.enabled ? '' : clusters.hostNamespace,
      events,
      name: 'endpoints',
      registry,
      kubeMetrics,
      ...(options.logger !== undefined ? { logger: options.logger } : {}),
      ...(options.workers !== undefined ? { workers: options.workers } : {}),
    });
  } catch (error) {
    sandbox.dispose();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      try {
        await running.stop();
        await recorder?.flush();
      } finally {
        sandbox.dispose();
      }
    })();
    return stopping;
  };
  return { syncer: running.syncer, registry, stop };
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
