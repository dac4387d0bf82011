import type { SchemaObject } from '../../../src/apiserver/schema-object.js';
import { resourceType, type ResourceType } from '../../../src/apiserver/resource-type.js';
import type { KindSchema } from '../../../src/apiserver/schema-pruning.js';

/** A kind's schema: metadata and its own fields, resolved in a components object of its own. */
function schemaOf(kind: string, properties: Record<string, SchemaObject>): KindSchema {
  const meta: SchemaObject = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  return { name: kind, components: { [kind]: { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: meta, ...properties } } } };
}

/** A struct field; its content is not pruned in these tests (they do not go through the writer). */
const struct: SchemaObject = { type: 'object', properties: {} };

/** Kinds for the field-ownership tests: the shapes that matter to managedFields and apply. */
export const CONFIG_MAP: ResourceType = resourceType({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', schema: schemaOf('ConfigMap', { data: { type: 'object', additionalProperties: { type: 'string' } } }) });

/** Ports keyed by port and protocol (protocol defaulted to TCP), an atomic selector, status a subresource. */
export const SERVICE: ResourceType = resourceType({
  group: '',
  version: 'v1',
  kind: 'Service',
  plural: 'services',
  subresources: ['status'],
  schema: schemaOf('Service', { spec: struct, status: struct }),
  mergeStrategies: { 'spec.ports': { mergeKey: 'port', listMapKeys: ['port', 'protocol'], keyDefaults: { protocol: 'TCP' } }, 'spec.selector': { atomic: true } },
});

/** Containers keyed by name. */
export const POD: ResourceType = resourceType({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', schema: schemaOf('Pod', { spec: struct }), mergeStrategies: { 'spec.containers': { mergeKey: 'name' } } });
