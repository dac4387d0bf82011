import type { KubeObject } from '../../kube/kube-object.js';
import { objectKey } from '../../kube/object-key.js';
import type { ServiceLookup } from '../endpoints/endpoints-resource.js';
import type { Service } from '../endpoints/endpoints-types.js';
import { patchesValidator } from '../patch-validation.js';
import { TerminalError } from '../reconcile-outcome.js';
import { buildSyncState, type BuildSyncStateOptions, type BuildSyncStateResult } from '../sync-state.js';
import type { SyncableResource } from '../syncable-resource.js';
import type { ToHostResource } from '../to-host-resource.js';
import type { EndpointSlice } from './endpointslice-types.js';
import { endpointSlicesResource } from './endpointslices-resource.js';
import { createEndpointSlicesSyncer } from './endpointslices-syncer.js';

/** {@link buildSyncState} of `sync.toHost.endpointSlices`: what the EndpointSlices controller runs with. */
export function buildEndpointSlicesSyncState(options: BuildSyncStateOptions): BuildSyncStateResult {
  return buildSyncState(options, options.config.sync.toHost.endpointSlices, 'sync.toHost.endpointSlices.patches');
}

/**
 * The Services preview decides with: the Services among its inputs, by key; when there are none,
 * every slice is taken to name an existing Service without a selector.
 */
function previewServices(inputs: readonly KubeObject[]): ServiceLookup {
  const services = new Map(inputs.filter((object) => object.kind === 'Service').map((service) => [objectKey(service), service as Service]));
  if (services.size === 0) return { get: () => ({ spec: {} }) };
  return { get: (key) => services.get(key) };
}

/**
 * The resource as preview runs it: a slice the syncer would fail on (no service-name label) is
 * shown as skipped with the syncer's message, since preview writes nothing to report an event on.
 */
function previewSlices(inputs: readonly KubeObject[]): ToHostResource<EndpointSlice> {
  const resource = endpointSlicesResource(previewServices(inputs));
  return {
    ...resource,
    decide(virtual) {
      try {
        return resource.decide(virtual);
      } catch (error) {
        if (error instanceof TerminalError) return { sync: false, reason: error.message };
        throw error;
      }
    },
  };
}

/**
 * EndpointSlices in the registry of syncable resources. Always built: `sync.toHost.endpointSlices.enabled`
 * is a switch a reload may flip (the state's `enabled`), so the syncer runs either way.
 */
export const endpointSlicesSyncable: SyncableResource = {
  name: 'endpointslices',
  kind: 'EndpointSlice',
  enabled: () => true,
  validators: [patchesValidator(['sync', 'toHost', 'endpointSlices', 'patches'])],
  buildState: buildEndpointSlicesSyncState,
  build(context) {
    const syncer = createEndpointSlicesSyncer(context);
    return { run: (signal) => syncer.run(signal), updateState: (state) => syncer.updateState(state) };
  },
  previewResource: (inputs) => previewSlices(inputs) as unknown as ToHostResource<KubeObject>,
};
