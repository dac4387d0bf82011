import { Registry } from 'prom-client';
import { parseConfig } from '../../src/config/index.js';
import { EventRecorder } from '../../src/kube/event-recorder.js';
import { KubeMetrics } from '../../src/kube/metrics.js';
import { SharedInformerFactory } from '../../src/manager/shared-informers.js';
import { silentLogger } from '../../src/observe/logger.js';
import { PatchSandbox } from '../../src/patches/index.js';
import { SyncerMetrics } from '../../src/syncer/metrics.js';
import { registryConfigSchema, SYNCABLE_RESOURCES } from '../../src/syncer/resources.js';
import { SYNC_RESYNC_PERIOD_MS, type ResourceSyncer, type SyncableResource } from '../../src/syncer/syncable-resource.js';
import type { EventSink } from '../../src/syncer/to-host-controller.js';
import type { StartSyncerOptions, SyncClusters } from './sync-harness.js';
import type { SyncedResourceFixture } from './synced-resource-fixtures.js';
import { waitFor } from './wait-for.js';

/** A running syncer of one registered resource; `stop()` aborts it and waits until it has drained. Idempotent. */
export interface RunningResourceSyncer {
  readonly resource: SyncableResource;
  readonly syncer: ResourceSyncer;
  /** Its metrics (controller label = the resource's name). */
  readonly registry: Registry;
  /** Its shared informers: `hasSynced()`, `disconnected()`. */
  readonly informers: SharedInformerFactory;
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

/**
 * Builds the syncer of `fixture`'s resource between `clusters` as the daemon does (config → the
 * resource's `buildState` → its `build` on shared informers), runs it with its informers, and
 * resolves once they have listed. Only this resource syncs: the config's other sections are not
 * run. `configYaml` defaults to the fixture's section, enabled, without patches.
 */
export async function startResourceSyncer(clusters: SyncClusters, fixture: SyncedResourceFixture, options: StartSyncerOptions = {}): Promise<RunningResourceSyncer> {
  const resource = registeredResource(fixture.syncerName);
  const vclusterName = options.vclusterName ?? 'vc1';
  const parsed = parseConfig(options.configYaml ?? fixture.configYaml(), 'vcluster.yaml', registryConfigSchema());
  if (!parsed.ok) throw new Error(`test config is invalid: ${JSON.stringify(parsed.errors)}`);
  const sandbox = new PatchSandbox();
  const built = resource.buildState({ vclusterName, hostNamespace: clusters.hostNamespace, config: parsed.config, sandbox });
  if (!built.ok) {
    sandbox.dispose();
    throw new Error(`test patches are invalid: ${built.errors.map((e) => e.message).join('; ')}`);
  }
  const logger = options.logger ?? silentLogger();
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
  const informers = new SharedInformerFactory({
    clusters: { virtual: clusters.virtualClient, host: clusters.hostClient },
    informerDefaults: { resyncPeriodMs: SYNC_RESYNC_PERIOD_MS, logger, metrics: kubeMetrics },
  });
  const syncer = resource.build({
    virtualClient: clusters.virtualClient,
    hostClient: clusters.hostClient,
    vclusterName,
    // As runSyncer: multi-namespace mode spreads copies over mapped host namespaces.
    hostWatchNamespace: parsed.config.sync.toHost.namespaces.enabled ? '' : clusters.hostNamespace,
    state: built.state,
    events,
    informers,
    kubeMetrics,
    controllerMetrics: new SyncerMetrics(registry).controller(resource.name),
    logger,
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
  });
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
  try {
    await waitFor(`the ${resource.name} syncer's informers to list`, () => informers.informers().length > 0 && informers.hasSynced());
  } catch (error) {
    await stop();
    throw error;
  }
  return { resource, syncer, registry, informers, stop };
}
