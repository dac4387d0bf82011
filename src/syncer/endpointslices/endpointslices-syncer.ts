import { CoreResources } from '../../kube/api-path.js';
import type { Informer } from '../../kube/informer.js';
import { WITHOUT_MANAGED_FIELDS } from '../../kube/object-transforms.js';
import { RateLimitingWorkQueue } from '../../kube/rate-limiting-queue.js';
import { LABEL_MANAGED_BY } from '../../translate/keys.js';
import { SERVICE_SELECTOR_ONLY } from '../endpoints/cached-service.js';
import type { Service } from '../endpoints/endpoints-types.js';
import type { SyncState } from '../sync-state.js';
import type { ResourceSyncer, SyncerContext } from '../syncable-resource.js';
import { ToHostController } from '../to-host-controller.js';
import { hostSliceTransform } from './cached-host-slice.js';
import type { EndpointSlice } from './endpointslice-types.js';
import { endpointSlicesResource } from './endpointslices-resource.js';
import { ENDPOINT_SLICES } from './slice-resource-type.js';
import { SlicesByService } from './slices-by-service.js';

/** The informers and controller that sync EndpointSlices; its informers are run by the context's source. */
export interface EndpointSlicesSyncer extends ResourceSyncer {
  readonly controller: ToHostController<EndpointSlice>;
  /** Its three caches (read-only: for tests and memory accounting). */
  readonly informers: { readonly virtualSlices: Informer<EndpointSlice>; readonly virtualServices: Informer<Service>; readonly hostSlices: Informer<EndpointSlice> };
  /** The virtual slices of each Service, by their service-name label. */
  readonly slicesByService: SlicesByService;
}

/**
 * Wires the EndpointSlices syncer from `context.informers`: virtual slices (all namespaces, whole
 * but for managedFields: translation, patches and reverse sync read them), virtual Services (the
 * selector only, the same cache the Endpoints syncer reads), and host slices managed by this
 * vcluster (metadata, addressType, and the body only while patches read it); a rate-limited queue
 * and the generic controller. Services wake the slices that name them through an index by label.
 * No I/O.
 */
export function createEndpointSlicesSyncer(context: SyncerContext): EndpointSlicesSyncer {
  // The state of the moment: the host cache keeps bodies while its patches read them.
  let state = context.state;
  const virtualSlices = context.informers.informer<EndpointSlice>({
    name: 'virtual-endpointslices',
    cluster: 'virtual',
    resource: ENDPOINT_SLICES,
    transform: WITHOUT_MANAGED_FIELDS,
  });
  const virtualServices = context.informers.informer<Service>({
    name: 'virtual-services',
    cluster: 'virtual',
    resource: CoreResources.services,
    transform: SERVICE_SELECTOR_ONLY,
  });
  const hostSlices = context.informers.informer<EndpointSlice>({
    name: 'host-endpointslices',
    cluster: 'host',
    resource: ENDPOINT_SLICES,
    namespace: context.hostWatchNamespace,
    labelSelector: `${LABEL_MANAGED_BY}=${context.vclusterName}`,
    transform: hostSliceTransform(() => state.patcher.readsHost),
  });
  const slicesByService = new SlicesByService();
  // Before the controller's handlers (added when it runs): a Service event reads an index that has seen every slice event delivered.
  virtualSlices.addHandler(slicesByService.handler);
  const controller = new ToHostController<EndpointSlice>({
    resource: endpointSlicesResource(virtualServices),
    virtualInformer: virtualSlices,
    hostInformer: hostSlices,
    secondary: [{ informer: virtualServices, source: slicesByService.wake }],
    virtualClient: context.virtualClient,
    hostClient: context.hostClient,
    queue: new RateLimitingWorkQueue({ name: 'endpointslices', metrics: context.kubeMetrics }),
    state: context.state,
    events: context.events,
    metrics: context.controllerMetrics,
    logger: context.logger,
    ...(context.workers !== undefined ? { workers: context.workers } : {}),
    ...(context.importer !== undefined ? { importer: context.importer } : {}),
  });
  return {
    controller,
    informers: { virtualSlices, virtualServices, hostSlices },
    slicesByService,
    updateState(next: SyncState): void {
      state = next;
      controller.updateState(next);
    },
    run: (signal) => controller.run(signal),
  };
}
