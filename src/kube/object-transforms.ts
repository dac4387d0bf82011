import type { NamedTransform } from './informer.js';
import type { KubeObject, ObjectMeta } from './kube-object.js';

/**
 * `metadata` without `managedFields`, as a new object (`undefined` stays `undefined`). Field
 * ownership is the server's bookkeeping: about 0.5-1 KB per object on a real API server, read by
 * no cache reader (a reader that needs it GETs the object). Built by copying, not `delete`, so
 * the result keeps V8's compact in-object layout.
 */
export function metadataWithoutManagedFields(metadata: ObjectMeta | undefined): ObjectMeta | undefined {
  if (metadata === undefined || !Object.hasOwn(metadata, 'managedFields')) return metadata;
  const rest: ObjectMeta = {};
  for (const [field, value] of Object.entries(metadata)) {
    if (field !== 'managedFields') rest[field] = value;
  }
  return rest;
}

/**
 * An informer transform (see `ObjectTransform` in informer.ts) that caches objects whole except
 * `metadata.managedFields`. The input is not modified.
 */
export function withoutManagedFields<T extends KubeObject>(object: T): T {
  const metadata = metadataWithoutManagedFields(object.metadata);
  return metadata === object.metadata ? object : { ...object, metadata };
}

/**
 * {@link withoutManagedFields} as a shared informer's transform; its list pages are parsed without
 * them (for the built-in kinds it caches, whose only field of that name is metadata's).
 */
export const WITHOUT_MANAGED_FIELDS: NamedTransform = Object.freeze({ name: 'without-managed-fields', apply: withoutManagedFields, dropsManagedFields: true });
