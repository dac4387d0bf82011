import { setMaxListeners } from 'node:events';
import { CoreResources } from '../../kube/api-path.js';
import { Informer } from '../../kube/informer.js';
import type { KubeObject } from '../../kube/kube-object.js';
import { RateLimitingWorkQueue } from '../../kube/rate-limiting-queue.js';
import { WITHOUT_MANAGED_FIELDS } from '../../kube/object-transforms.js';
import { LABEL_MANAGED_BY } from '../../translate/keys.js';
import { hostCopyTransform } from '../host-copy-cache.js';
import type { SyncState } from '../sync-state.js';
import { SYNC_RESYNC_PERIOD_MS, type InformerRequest, type InformerSource, type SyncerContext } from '../syncable-resource.js';
import { ToHostController } from '../to-host-controller.js';
import { ToHostReconciler } from '../to-host-reconciler.js';
import { SERVICE_SELECTOR_ONLY } from './cached-service.js';
import { endpointsResource, servicesWakeEndpoints } from './endpoints-resource.js';
import type { Endpoints, Service } from './endpoints-types.js';

/**
 * Options of {@link createEndpointsSyncer}: a {@link SyncerContext} (`workers` default 10;
 * without `importer`, references are only rewritten), whose `informers` may be left out.
 */
export interface EndpointsSyncerOptions extends Omit<SyncerContext, 'informers'> {
  /**
   * Where the informers come from; the source's owner runs them (the manager's shared informers,
   * so another syncer watching the same objects shares them). Default: informers of its own, run by
   * {@link EndpointsSyncer.run} and built with `resyncPeriodMs` and `watchTimeouts`.
   */
  informers?: InformerSource;
  /** Every cached object is reconciled again this often, in ms (drift repair without events). Default 1 h. */
  resyncPeriodMs?: number;
  /** Overrides for the informers' watch timing (tests). */
  watchTimeouts?: { minWatchTimeoutSeconds?: number; maxWatchTimeoutSeconds?: number };
}

/** The informers and controller that sync Endpoints; run them with {@link EndpointsSyncer.run}. */
export interface EndpointsSyncer {
  readonly controller: ToHostController<Endpoints>;
  readonly reconciler: ToHostReconciler<Endpoints>;
  /** Swaps in a reloaded state, for the controller and for what the host cache keeps of new objects. */
  updateState(state: SyncState): void;
  /** Its three caches (read-only: for tests and memory accounting). */
  readonly informers: { readonly virtualEndpoints: Informer<Endpoints>; readonly virtualServices: Informer<Service>; readonly hostEndpoints: Informer<Endpoints> };
  /** True once every informer has listed. */
  hasSynced(): boolean;
  /** The informers whose last list or watch request failed (they are backing off), by name. */
  disconnected(): string[];
  /** Runs the controller (and the informers it owns) until `signal` fires, then drains. */
  run(signal: AbortSignal): Promise<void>;
}

/**
 * Wires the Endpoints syncer: informers on virtual Endpoints and Services (all namespaces) and on
 * host Endpoints managed by this vcluster, a rate-limited queue, and the generic controller.
 */
export function createEndpointsSyncer(options: EndpointsSyncerOptions): EndpointsSyncer {
  const common = {
    logger: options.logger,
    metrics: options.kubeMetrics,
    resyncPeriodMs: options.resyncPeriodMs ?? SYNC_RESYNC_PERIOD_MS,
    ...options.watchTimeouts,
  };
  // Shared informers are run by their owner; without a source the syncer owns (and runs) its own.
  const owned: Informer<KubeObject>[] = [];
  const informer = <T extends KubeObject>(request: InformerRequest): Informer<T> => {
    if (options.informers !== undefined) return options.informers.informer<T>(request);
    const { cluster, transform, ...watch } = request;
    const created = new Informer<T>({
      ...common,
      ...watch,
      ...(transform !== undefined ? { transform: (object: T) => transform.apply(object) } : {}),
      client: cluster === 'virtual' ? options.virtualClient : options.hostClient,
    });
    owned.push(created as unknown as Informer<KubeObject>);
    return created;
  };
  // The state of the moment: the host cache keeps bodies while its patches read them.
  let state = options.state;
  // Each cache keeps what the syncer reads (issue 11 §3): virtual Endpoints whole but for their
  // managedFields (translation, patches and reverse sync read them), of Services the selector, of
  // host copies the metadata and a digest of the rest.
  const virtualEndpoints = informer<Endpoints>({ name: 'virtual-endpoints', cluster: 'virtual', resource: CoreResources.endpoints, transform: WITHOUT_MANAGED_FIELDS });
  const virtualServices = informer<Service>({ name: 'virtual-services', cluster: 'virtual', resource: CoreResources.services, transform: SERVICE_SELECTOR_ONLY });
  const hostEndpoints = informer<Endpoints>({
    name: 'host-endpoints',
    cluster: 'host',
    resource: CoreResources.endpoints,
    namespace: options.hostWatchNamespace,
    labelSelector: `${LABEL_MANAGED_BY}=${options.vclusterName}`,
    transform: hostCopyTransform(() => state.patcher.readsHost),
  });
  const resource = endpointsResource(virtualServices);
  const reconciler = new ToHostReconciler<Endpoints>({
    resource,
    virtualCache: virtualEndpoints,
    hostCache: hostEndpoints,
    virtualClient: options.virtualClient,
    hostClient: options.hostClient,
    state: options.state,
    logger: options.logger,
    ...(options.importer !== undefined ? { importer: options.importer } : {}),
  });
  const controller = new ToHostController<Endpoints>({
    kind: resource,
    reconciler,
    virtualInformer: virtualEndpoints,
    hostInformer: hostEndpoints,
    secondary: [{ informer: virtualServices, source: servicesWakeEndpoints }],
    queue: new RateLimitingWorkQueue({ name: 'endpoints', metrics: options.kubeMetrics }),
    events: options.events,
    metrics: options.controllerMetrics,
    logger: options.logger,
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
  });
  const informers = [virtualEndpoints, virtualServices, hostEndpoints];
  return {
    controller,
    reconciler,
    informers: { virtualEndpoints, virtualServices, hostEndpoints },
    updateState(next: SyncState): void {
      state = next;
      reconciler.updateState(next);
      controller.enqueueAll();
    },
    hasSynced: () => informers.every((i) => i.hasSynced()),
    disconnected: () => informers.filter((i) => !i.connected()).map((i) => i.name),
    async run(signal: AbortSignal): Promise<void> {
      // Every informer, reflector, worker and wait of this run listens on one signal: a signal of
      // its own with a raised bound (not 0, so a listener leaked per request would still warn)
      // keeps Node's MaxListenersExceededWarning away without touching the caller's signal.
      const run = new AbortController();
      setMaxListeners(100, run.signal);
      const stop = (): void => run.abort(signal.reason);
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
      try {
        await Promise.all([...owned.map((i) => i.run(run.signal)), controller.run(run.signal)]);
      } finally {
        signal.removeEventListener('abort', stop);
      }
    },
  };
}
