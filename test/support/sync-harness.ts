import { Registry } from 'prom-client';
import { startDevCluster, type DevCluster, type DevClusterOptions } from '../../src/devcluster/index.js';
import { parseConfig } from '../../src/config/index.js';
import { EventRecorder } from '../../src/kube/event-recorder.js';
import { loadClusterConfig } from '../../src/kube/kube-config.js';
import { KubeMetrics } from '../../src/kube/metrics.js';
import { RestClient } from '../../src/kube/rest-client.js';
import { isNotFound } from '../../src/kube/api-error.js';
import { silentLogger, type Logger } from '../../src/observe/logger.js';
import { PatchSandbox } from '../../src/patches/index.js';
import { createEndpointsSyncer, type EndpointsSyncer } from '../../src/syncer/endpoints/endpoints-syncer.js';
import { SyncerMetrics } from '../../src/syncer/metrics.js';
import { buildEndpointsSyncState } from '../../src/syncer/sync-state.js';
import type { EventSink } from '../../src/syncer/to-host-controller.js';
import { waitFor } from './wait-for.js';

/**
 * A virtual and a host devcluster with REST clients, for syncer integration tests. `virtual` and
 * `host` may be replaced by a test that restarts a devcluster on the same port; `close()` closes
 * whatever they are then.
 */
export interface TwoClusters {
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
export function clientFor(cluster: DevCluster, name: string): RestClient {
  return new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: cluster.kubeConfig }, { name }), qps: Infinity });
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
    virtualClient,
    hostClient,
    hostNamespace,
    async close() {
      virtualClient.close();
      hostClient.close();
      await Promise.all([clusters.virtual.close(), clusters.host.close()]);
    },
  };
  return clusters;
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

/** A running Endpoints syncer; `stop()` aborts it and waits until it has drained. Idempotent. */
export interface RunningSyncer {
  readonly syncer: EndpointsSyncer;
  readonly registry: Registry;
  stop(): Promise<void>;
}

/** Enabled, no patches. */
export const DEFAULT_SYNC_CONFIG = 'sync:\n  toHost:\n    endpoints:\n      enabled: true\n';

/**
 * Builds an Endpoints syncer between `clusters` exactly as `runSyncer` does (config → sync state →
 * createEndpointsSyncer), runs it, and resolves once its informers have listed.
 */
export async function startEndpointsSyncer(clusters: TwoClusters, options: StartSyncerOptions = {}): Promise<RunningSyncer> {
  const vclusterName = options.vclusterName ?? 'vc1';
  const parsed = parseConfig(options.configYaml ?? DEFAULT_SYNC_CONFIG, 'vcluster.yaml');
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
  const syncer = createEndpointsSyncer({
    virtualClient: clusters.virtualClient,
    hostClient: clusters.hostClient,
    vclusterName,
    // As runSyncer: multi-namespace mode spreads copies over mapped host namespaces.
    hostWatchNamespace: parsed.config.sync.toHost.namespaces.enabled ? '' : clusters.hostNamespace,
    state: built.state,
    events,
    kubeMetrics,
    controllerMetrics: new SyncerMetrics(registry).controller('endpoints'),
    logger: options.logger ?? silentLogger(),
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
  });
  const abort = new AbortController();
  const running = syncer.run(abort.signal);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      abort.abort();
      try {
        await running;
        await recorder?.flush();
      } finally {
        sandbox.dispose();
      }
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

/** One sample of a metric in `registry` whose labels include `labels` (NaN when absent). */
export async function metricValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const sample = metric?.values.find((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want));
  return sample?.value ?? Number.NaN;
}
