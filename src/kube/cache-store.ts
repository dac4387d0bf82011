import type { KubeObject } from './kube-object.js';
import { objectKey } from './object-key.js';

/** Computes the values under which an object is indexed (none, one or several). Must be pure. */
export type IndexFunc<T extends KubeObject> = (object: T) => readonly string[];

/** The usual name of the {@link indexByNamespace} index. */
export const NAMESPACE_INDEX = 'namespace';

/**
 * Objects by `metadata.namespace` (`''` for cluster-scoped), for a cache whose readers list one
 * namespace. Not built in: an index costs a set entry per object, so a cache has only the indexes
 * its readers query.
 */
export const indexByNamespace: IndexFunc<KubeObject> = (object) => [object.metadata?.namespace ?? ''];

/**
 * The changes a {@link CacheStore.replace} made, for the informer to deliver, each with its key:
 * the string the store holds for a key it added or deleted (see {@link CacheStore.upsert}).
 */
export interface ReplaceDelta<T extends KubeObject> {
  /** Objects that were not cached before. */
  added: Array<{ key: string; object: T }>;
  /** Objects whose resourceVersion changed: previous and new state. */
  updated: Array<{ key: string; old: T; current: T }>;
  /** Cached objects that are not in the new list (their last known state). */
  deleted: Array<{ key: string; object: T }>;
}

/**
 * The informer's cache: objects keyed `namespace/name`, with the index functions it was given
 * (none by default) kept consistent on every change. The store holds the objects it is given
 * (callers must treat them as read-only). It is not a source of events by itself: mutations
 * return what changed and the informer decides what to deliver.
 */
export class CacheStore<T extends KubeObject> {
  readonly #items = new Map<string, T>();
  readonly #indexers = new Map<string, IndexFunc<T>>();
  /** index name → index value → keys. */
  readonly #indices = new Map<string, Map<string, Set<string>>>();
  #synced = false;
  #resourceVersion = '';

  /** `indexers`: named index functions (e.g. `{ [NAMESPACE_INDEX]: indexByNamespace }`). Default none. */
  constructor(indexers: Record<string, IndexFunc<T>> = {}) {
    for (const [name, fn] of Object.entries(indexers)) this.addIndexer(name, fn);
  }

  /** Adds (or replaces) an index function and indexes the objects already cached. */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    this.#indexers.set(name, fn);
    const index = new Map<string, Set<string>>();
    this.#indices.set(name, index);
    for (const [key, object] of this.#items) addToIndex(index, fn(object), key);
  }

  /** The cached object under `key`, or undefined. */
  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  /** All cached objects, in insertion order. */
  list(): T[] {
    return [...this.#items.values()];
  }

  /** All cached keys. */
  keys(): string[] {
    return [...this.#items.keys()];
  }

  /** All cached objects with their keys (the strings the store holds). */
  entries(): Array<[string, T]> {
    return [...this.#items];
  }

  /** Number of cached objects. */
  get size(): number {
    return this.#items.size;
  }

  /** Objects whose index `indexName` yields `value`. Throws RangeError for an unknown index. */
  byIndex(indexName: string, value: string): T[] {
    const keys = this.#index(indexName).get(value);
    if (keys === undefined) return [];
    const objects: T[] = [];
    for (const key of keys) {
      const object = this.#items.get(key);
      if (object !== undefined) objects.push(object);
    }
    return objects;
  }

  /**
   * Inserts or replaces `object` under `key` (its {@link objectKey}, computed when not given);
   * returns the previous state under its key, if any. A new key is held as the very string given:
   * a caller that hands the same string on (the informer, to its handlers) lets every map keyed by
   * it share one copy instead of holding its own (~40 bytes per key).
   */
  upsert(object: T, key = objectKey(object)): T | undefined {
    const old = this.#items.get(key);
    if (old !== undefined) this.#unindex(key, old);
    this.#items.set(key, object);
    this.#indexObject(key, object);
    return old;
  }

  /** Removes the object under `key`; returns what was cached, if anything. */
  delete(key: string): T | undefined {
    const old = this.#items.get(key);
    if (old === undefined) return undefined;
    this.#unindex(key, old);
    this.#items.delete(key);
    return old;
  }

  /**
   * Makes the cache hold exactly `items` (a fresh list at `resourceVersion`) and reports the
   * difference: new keys are added, keys whose resourceVersion changed are updated, keys missing
   * from `items` are deleted; unchanged objects produce nothing. Marks the store synced.
   */
  replace(items: readonly T[], resourceVersion: string): ReplaceDelta<T> {
    const delta: ReplaceDelta<T> = { added: [], updated: [], deleted: [] };
    const seen = new Set<string>();
    for (const item of items) {
      const key = objectKey(item);
      seen.add(key);
      const old = this.upsert(item, key);
      if (old === undefined) delta.added.push({ key, object: item });
      else if (old.metadata?.resourceVersion !== item.metadata?.resourceVersion) delta.updated.push({ key, old, current: item });
    }
    for (const key of this.keys()) {
      if (seen.has(key)) continue;
      const old = this.delete(key);
      if (old !== undefined) delta.deleted.push({ key, object: old });
    }
    this.#resourceVersion = resourceVersion;
    this.#synced = true;
    return delta;
  }

  /**
   * Marks the store synced at `resourceVersion` without a {@link CacheStore.replace}: for a first
   * list stored object by object with {@link CacheStore.upsert} (nothing was cached before it).
   */
  markSynced(resourceVersion: string): void {
    this.#resourceVersion = resourceVersion;
    this.#synced = true;
  }

  /** True once {@link CacheStore.replace} or {@link CacheStore.markSynced} has run (the first list is in). */
  hasSynced(): boolean {
    return this.#synced;
  }

  /** The resourceVersion of the last list or event applied (`''` before the first list). */
  get resourceVersion(): string {
    return this.#resourceVersion;
  }

  /** Records the resourceVersion of an applied watch event or bookmark. */
  setResourceVersion(resourceVersion: string): void {
    this.#resourceVersion = resourceVersion;
  }

  #index(name: string): Map<string, Set<string>> {
    const index = this.#indices.get(name);
    if (index === undefined) throw new RangeError(`no index named ${JSON.stringify(name)}`);
    return index;
  }

  #indexObject(key: string, object: T): void {
    for (const [name, fn] of this.#indexers) addToIndex(this.#index(name), fn(object), key);
  }

  #unindex(key: string, object: T): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#index(name);
      for (const value of fn(object)) {
        const keys = index.get(value);
        if (keys === undefined) continue;
        keys.delete(key);
        if (keys.size === 0) index.delete(value);
      }
    }
  }
}

function addToIndex(index: Map<string, Set<string>>, values: readonly string[], key: string): void {
  for (const value of values) {
    let keys = index.get(value);
    if (keys === undefined) {
      keys = new Set();
      index.set(value, keys);
    }
    keys.add(key);
  }
}
