import { CoreResources } from '../../kube/api-path.js';
import type { KubeObject } from '../../kube/kube-object.js';
import { joinKey, objectKey } from '../../kube/object-key.js';
import { SERVICE_SELECTOR_ONLY } from '../endpoints/cached-service.js';
import type { Service } from '../endpoints/endpoints-types.js';
import type { ToHostDefinition } from '../to-host-syncer.js';
import { hostSliceTransform } from './cached-host-slice.js';
import { VIRTUAL_SLICE } from './cached-virtual-slice.js';
import type { EndpointSlice } from './endpointslice-types.js';
import { endpointSlicesResource } from './endpointslices-resource.js';
import { sliceServiceName } from './translate.js';

/** `namespace/service` of the Service a slice names by its `kubernetes.io/service-name` label, if any. */
export function sliceServiceKey(slice: EndpointSlice): string | undefined {
  const name = sliceServiceName(slice);
  return name === undefined ? undefined : joinKey(slice.metadata?.namespace ?? '', name);
}

/**
 * EndpointSlices for the generic to-host syncer. Virtual slices are cached whole but for their
 * managedFields (translation, patches and reverse sync read them), their endpoints' conditions
 * shared (cached-virtual-slice.ts), and indexed by the Service they
 * name, so a Service event wakes its slices at the cost of their number, not of a scan; Services
 * share the Endpoints syncer's cache (the selector only); host copies keep metadata, addressType
 * (a change of it means delete and create) and a digest of the rest.
 */
export const endpointSlicesDefinition: ToHostDefinition<EndpointSlice, 'services'> = {
  virtual: { name: 'virtual-endpointslices', transform: VIRTUAL_SLICE, indexBy: sliceServiceKey },
  host: { name: 'host-endpointslices', transform: hostSliceTransform },
  secondary: {
    services: {
      name: 'virtual-services',
      type: CoreResources.services,
      transform: SERVICE_SELECTOR_ONLY,
      keysFor: (service: KubeObject, index) => index.keysOf(objectKey(service)),
    },
  },
  // The Services cache holds Services (its transform keeps them typed as such).
  rules: ({ services }) => endpointSlicesResource({ get: (key) => services.get(key) as Service | undefined }),
};
