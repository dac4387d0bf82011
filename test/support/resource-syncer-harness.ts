import { Registry } from 'prom-client';
import { parseConfig } from '../../src/config/index.js';
import type { VclusterConfig } from '../../src/config/schema.js';
import { EventRecorder } from '../../src/kube/event-recorder.js';
import type { KubeObject } from '../../src/kube/kube-object.js';
import { KubeMetrics } from '../../src/kube/metrics.js';
import { SharedInformerFactory } from '../../src/manager/shared-informers.js';
import { silentLogger, type Logger } from '../../src/observe/logger.js';
import { PatchSandbox } from '../../src/patches/index.js';
import { SyncerMetrics } from '../../src/syncer/metrics.js';
import { ReferenceImporter } from '../../src/syncer/reference-importer.js';
import { registryConfigSchema, SYNCABLE_RESOURCES } from '../../src/syncer/resources.js';
import type { SyncState } from '../../src/syncer/sync-state.js';
import { SYNC_RESYNC_PERIOD_MS, type SyncableResource } from '../../src/syncer/syncable-resource.js';
import type { EventSink } from '../../src/syncer/to-host-controller.js';
import type { ToHostSyncer } from '../../src/syncer/to-host-syncer.js';
import type { SyncClusters } from './sync-harness.js';
import type { SyncedResourceFixture } from './synced-resource-fixtures.js';
import { waitFor } from './wait-for.js';

/** Options of {@link startResourceSyncer}. */
export interface StartSyncerOptions {
  /** Default `vc1`. */
  vclusterName?: string;
  /** The vcluster.yaml text. Default: the fixture's section enabled, without patches. */
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
  /** Import the objects `reference` patches point at, as the daemon does. Default: references are only rewritten. */
  importReferences?: boolean;
  /** Time limit of one patch expression, in ms. Default the sandbox's (50). */
  patchTimeoutMs?: number;
}

/** A running syncer of one registered resource; `stop()` aborts it and waits until it has drained. Idempotent. */
export interface RunningResourceSyncer {
  readonly resource: SyncableResource;
  /** The syncer as the registry builds it: its reconciler, index and state are reachable. */
  readonly syncer: ToHostSyncer<KubeObject>;
  /** Its metrics (controller label = the resource's name). */
  readonly registry: Registry;
  /** Its shared informers: `hasSynced()`, `disconnected()`, `informers()`. */
  readonly informers: SharedInformerFactory;
  /** Swaps in the state of another vcluster.yaml text, as a reload of the config file does. */
  reload(configYaml: string): void;
  stop(): Promise<void>;
}

/** The registered resource named `name`; throws, naming the registered ones, when it is not registered. */
export function registeredResource(name: string): SyncableResource {
  const resource = SYNCABLE_RESOURCES.find((r) => r.name === name);
  if (resource === undefined) {
    throw new Error(`no syncable resource "${name}" in SYNCABLE_RESOURCES (registered: ${SYNCABLE_RESOURCES.map((r) => r.name).join(', ')}): add it to src/syncer/resources.ts`);
  }
  return resource;
}

function parsedConfig(configYaml: string): VclusterConfig {
  const parsed = parseConfig(configYaml, 'vcluster.yaml', registryConfigSchema());
  if (!parsed.ok) throw new Error(`test config is invalid: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  return parsed.config;
}

/** Where the syncer's SyncError events go, and the recorder to flush on stop (when one records them). */
function eventSink(clusters: SyncClusters, kubeMetrics: KubeMetrics, events: StartSyncerOptions['events']): { sink: EventSink; recorder?: EventRecorder } {
  if (events === 'recorder') {
    const recorder = new EventRecorder({ client: clusters.virtualClient, component: 'vcsync', metrics: kubeMetrics });
    return { sink: { warning: (object, reason, message) => recorder.record(object, 'Warning', reason, message) }, recorder };
  }
  return { sink: events ?? { warning: () => undefined } };
}

/**
 * The one syncer harness: builds the syncer of `fixture`'s registered resource between `clusters`
 * as the daemon does (config → the resource's `buildState` → its `build` on shared informers),
 * runs it with its informers, and resolves once they have listed. Only this resource syncs: the
 * config's other sections are not run.
 */
export async function startResourceSyncer(clusters: SyncClusters, fixture: SyncedResourceFixture, options: StartSyncerOptions = {}): Promise<RunningResourceSyncer> {
  const resource = registeredResource(fixture.syncerName);
  const vclusterName = options.vclusterName ?? 'vc1';
  const config = parsedConfig(options.configYaml ?? fixture.configYaml());
  const sandbox = new PatchSandbox(options.patchTimeoutMs !== undefined ? { timeoutMs: options.patchTimeoutMs } : {});
  const stateOf = (of: VclusterConfig): SyncState => {
    const built = resource.buildState({ vclusterName, hostNamespace: clusters.hostNamespace, config: of, sandbox });
    if (!built.ok) throw new Error(`test patches are invalid: ${built.errors.map((e) => e.message).join('; ')}`);
    return built.state;
  };
  let state: SyncState;
  try {
    state = stateOf(config);
  } catch (error) {
    sandbox.dispose();
    throw error;
  }
  const logger = options.logger ?? silentLogger();
  const registry = new Registry();
  const kubeMetrics = new KubeMetrics(registry);
  const { sink, recorder } = eventSink(clusters, kubeMetrics, options.events);
  const informers = new SharedInformerFactory({
    clusters: { virtual: clusters.virtualClient, host: clusters.hostClient },
    informerDefaults: { resyncPeriodMs: SYNC_RESYNC_PERIOD_MS, logger, metrics: kubeMetrics },
  });
  // Every registered resource is built by toHostSyncer (src/syncer/resources.ts); tests reach its reconciler and index.
  const syncer = resource.build({
    virtualClient: clusters.virtualClient,
    hostClient: clusters.hostClient,
    vclusterName,
    // As runSyncer: multi-namespace mode spreads copies over mapped host namespaces.
    hostWatchNamespace: config.sync.toHost.namespaces.enabled ? '' : clusters.hostNamespace,
    state,
    events: sink,
    informers,
    kubeMetrics,
    controllerMetrics: new SyncerMetrics(registry).controller(resource.name),
    logger,
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
    ...(options.importReferences === true ? { importer: new ReferenceImporter({ virtualClient: clusters.virtualClient, hostClient: clusters.hostClient, logger }) } : {}),
  }) as ToHostSyncer<KubeObject>;
  const abort = new AbortController();
  const running = Promise.all([informers.run(abort.signal), syncer.run(abort.signal)]);
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
  const reload = (configYaml: string): void => syncer.updateState(stateOf(parsedConfig(configYaml)));
  try {
    await waitFor(`the ${resource.name} syncer's informers to list`, () => informers.informers().length > 0 && informers.hasSynced());
  } catch (error) {
    await stop();
    throw error;
  }
  return { resource, syncer, registry, informers, reload, stop };
}
