import type { KubeObject } from './kube-object.js';

/**
 * The cache and queue key of an object: `namespace/name`, or just `name` for cluster-scoped
 * objects (the same convention as client-go's `MetaNamespaceKeyFunc`).
 */
export function objectKey(object: KubeObject): string {
  const name = object.metadata?.name ?? '';
  const namespace = object.metadata?.namespace;
  return namespace !== undefined && namespace !== '' ? joinKey(namespace, name) : name;
}

/**
 * `namespace/name` as one flat string. Keys live as long as the objects they key (a cache's map,
 * an index, the converge memory): `+` or a template literal makes V8 a rope of the two parts,
 * which hashing as a map key later flattens into a second string while the rope stays, 72 bytes
 * for a 23-character key where `join` builds the 40-byte flat string directly.
 */
export function joinKey(namespace: string, name: string): string {
  return [namespace, name].join('/');
}

/** The parts of a key made by {@link objectKey}; `namespace` is `''` for cluster-scoped keys. */
export interface KeyParts {
  namespace: string;
  name: string;
}

/** Splits a key made by {@link objectKey}. A key with more than one `/` is rejected. */
export function splitObjectKey(key: string): KeyParts {
  const parts = key.split('/');
  if (parts.length === 1) return { namespace: '', name: parts[0] ?? '' };
  if (parts.length === 2) return { namespace: parts[0] ?? '', name: parts[1] ?? '' };
  throw new RangeError(`invalid object key ${JSON.stringify(key)}: expected "namespace/name" or "name"`);
}
