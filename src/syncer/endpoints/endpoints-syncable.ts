import type { KubeObject } from '../../kube/kube-object.js';
import { objectKey } from '../../kube/object-key.js';
import type { SyncableResource } from '../syncable-resource.js';
import type { ToHostResource } from '../to-host-resource.js';
import { toHostSyncer } from '../to-host-syncer.js';
import { buildEndpointsSyncState, endpointsConfigSection } from './config-section.js';
import { endpointsDefinition } from './endpoints-definition.js';
import { endpointsRbac } from './endpoints-rbac.js';
import type { ServiceLookup } from './endpoints-resource.js';
import type { Service } from './endpoints-types.js';

/**
 * The Services preview decides with: the Services among its inputs, by key; when there are none,
 * every Endpoints is taken to have a Service of the same name without a selector.
 */
function previewServices(inputs: readonly KubeObject[]): ServiceLookup {
  const services = new Map(inputs.filter((object) => object.kind === 'Service').map((service) => [objectKey(service), service as Service]));
  if (services.size === 0) return { get: () => ({ spec: {} }) };
  return { get: (key) => services.get(key) };
}

/**
 * Endpoints in the registry of syncable resources. Always enabled: `sync.toHost.endpoints.enabled`
 * is a switch a reload may flip (the state's `enabled`), so the syncer runs either way.
 */
export const endpointsSyncable: SyncableResource = {
  name: 'endpoints',
  kind: 'Endpoints',
  config: endpointsConfigSection,
  rbac: endpointsRbac,
  enabled: () => true,
  validators: [],
  buildState: buildEndpointsSyncState,
  build: toHostSyncer(endpointsDefinition),
  previewResource: (inputs) => endpointsDefinition.rules({ services: previewServices(inputs) }) as unknown as ToHostResource<KubeObject>,
};
