import type { KubeObject } from '../../kube/kube-object.js';
import { patchesValidator } from '../patch-validation.js';
import { buildEndpointsSyncState } from '../sync-state.js';
import type { SyncableResource } from '../syncable-resource.js';
import type { ToHostResource } from '../to-host-resource.js';
import { endpointsResource } from './endpoints-resource.js';
import { createEndpointsSyncer } from './endpoints-syncer.js';

/**
 * Endpoints in the registry of syncable resources. Always enabled: `sync.toHost.endpoints.enabled`
 * is a switch a reload may flip (the state's `enabled`), so the syncer runs either way.
 */
export const endpointsSyncable: SyncableResource = {
  name: 'endpoints',
  kind: 'Endpoints',
  enabled: () => true,
  validators: [patchesValidator(['sync', 'toHost', 'endpoints', 'patches'])],
  buildState: buildEndpointsSyncState,
  build(context) {
    const syncer = createEndpointsSyncer(context);
    return { run: (signal) => syncer.run(signal), updateState: (state) => syncer.updateState(state) };
  },
  // Preview assumes the Endpoints' Service exists without a selector.
  previewResource: () => endpointsResource({ get: () => ({ spec: {} }) }) as unknown as ToHostResource<KubeObject>,
};
