import type { KubeObject } from './kube-object.js';

/**
 * The cache and queue key of an object: `namespace/name`, or just `name` for cluster-scoped
 * objects (the same convention as client-go's `MetaNamespaceKeyFunc`).
 */
export function objectKey(object: KubeObject): string {
  const name = object.metadata?.name ?? '';
  const namespace = object.metadata?.namespace;
  return namespace !== undefined && namespace !== '' ? `${namespace}/${name}` : name;
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
