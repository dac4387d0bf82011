import { resourceType, type ResourceType } from '../../../src/apiserver/resource-type.js';

/** Kinds for the field-ownership tests: the shapes that matter to managedFields and apply. */
export const CONFIG_MAP: ResourceType = resourceType({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', fields: { data: { type: 'object', additionalProperties: { type: 'string' } } } });

/** Ports keyed by port and protocol (protocol defaulted to TCP), an atomic selector, status a subresource. */
export const SERVICE: ResourceType = resourceType({
  group: '',
  version: 'v1',
  kind: 'Service',
  plural: 'services',
  subresources: ['status'],
  fields: { spec: { type: 'object' }, status: { type: 'object' } },
  mergeStrategies: { 'spec.ports': { mergeKey: 'port', listMapKeys: ['port', 'protocol'], keyDefaults: { protocol: 'TCP' } }, 'spec.selector': { atomic: true } },
});

/** Containers keyed by name. */
export const POD: ResourceType = resourceType({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', fields: { spec: { type: 'object' } }, mergeStrategies: { 'spec.containers': { mergeKey: 'name' } } });
