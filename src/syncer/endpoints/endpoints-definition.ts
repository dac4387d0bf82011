import { CoreResources } from '../../kube/api-path.js';
import { WITHOUT_MANAGED_FIELDS } from '../../kube/object-transforms.js';
import type { ToHostDefinition } from '../to-host-syncer.js';
import { SERVICE_SELECTOR_ONLY } from './cached-service.js';
import { endpointsResource, servicesWakeEndpoints } from './endpoints-resource.js';
import type { Endpoints, Service } from './endpoints-types.js';

/**
 * Endpoints for the generic to-host syncer. Each cache keeps what the syncer reads: virtual
 * Endpoints whole but for their managedFields (translation, patches and reverse sync read them),
 * of Services the selector and identity (whether to sync, which Endpoints to wake), of host copies
 * the metadata and a digest of the rest.
 */
export const endpointsDefinition: ToHostDefinition<Endpoints, 'services'> = {
  virtual: { name: 'virtual-endpoints', transform: WITHOUT_MANAGED_FIELDS },
  host: { name: 'host-endpoints' },
  secondary: {
    services: { name: 'virtual-services', type: CoreResources.services, transform: SERVICE_SELECTOR_ONLY, keysFor: servicesWakeEndpoints.keysFor },
  },
  // The Services cache holds Services (its transform keeps them typed as such).
  rules: ({ services }) => endpointsResource({ get: (key) => services.get(key) as Service | undefined }),
};
