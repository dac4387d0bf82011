import type { Informer } from '../../src/kube/informer.js';
import type { KubeObject } from '../../src/kube/kube-object.js';
import type { ObjectPatcher } from '../../src/syncer/object-patcher.js';

/** An informer cache the test fills by hand (a controller only reads it in reconcile). */
export function cacheOf<T extends KubeObject>(objects: T[]): Informer<T> {
  const byKey = new Map(objects.map((o) => [`${o.metadata?.namespace}/${o.metadata?.name}`, o]));
  return { get: (key: string) => byKey.get(key), list: () => [...byKey.values()] } as unknown as Informer<T>;
}

/** A patcher of a config without patches: host objects pass through as translated. */
export const passThrough: ObjectPatcher = {
  reverses: false,
  readsHost: false,
  toHost: ({ host }) => Promise.resolve({ object: host, imports: [] }),
  toVirtual: ({ virtual }) => Promise.resolve(virtual),
};
