import type { ResourceDeclaration } from '../syncable-resource.js';
import { endpointSlicesConfigSection } from './config-section.js';
import { endpointSlicesRbac } from './endpointslices-rbac.js';

/**
 * EndpointSlices as the registry knows them before their syncer runs: the metrics and log label
 * `endpointslices`, the section `sync.toHost.endpointSlices` and the RBAC needs. The syncable
 * resource spreads this and adds its syncer.
 */
export const endpointSlicesDeclaration: ResourceDeclaration = Object.freeze({
  name: 'endpointslices',
  config: endpointSlicesConfigSection,
  rbac: endpointSlicesRbac,
});
