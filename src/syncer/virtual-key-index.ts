import type { InformerHandler } from '../kube/informer.js';
import type { KubeObject } from '../kube/kube-object.js';
import { objectKey } from '../kube/object-key.js';

/**
 * The keys of the cached virtual objects by one value each yields (e.g. the Service a slice
 * names), kept by the virtual informer's events: what a secondary source reads to wake the keys a
 * change concerns at the cost of their number, not of a scan of the cache. Register
 * {@link VirtualKeyIndex.handler} on the informer before its handlers that read the index (an
 * informer calls handlers in the order they were added, after its cache is updated). Memory: one
 * entry per cached object that yields a value.
 */
export class VirtualKeyIndex<V extends KubeObject> {
  readonly #valueOf: (object: V) => string | undefined;
  /** Value → keys (`namespace/name`) of the objects yielding it. */
  readonly #keys = new Map<string, Set<string>>();
  /** Key → the value it was indexed under (to move or drop it on change). */
  readonly #indexedAs = new Map<string, string>();

  /** `valueOf` gives the value an object is found by, or `undefined` to leave it out. */
  constructor(valueOf: (object: V) => string | undefined) {
    this.#valueOf = valueOf;
  }

  /** The informer handler that keeps the index. */
  readonly handler: InformerHandler<V> = {
    onAdd: (object) => this.#put(object),
    onUpdate: (_old, object) => this.#put(object),
    onDelete: (object) => this.#drop(objectKey(object)),
  };

  /** Keys of the cached objects indexed under `value`; empty when none. */
  keysOf(value: string): string[] {
    return [...(this.#keys.get(value) ?? [])];
  }

  #put(object: V): void {
    const key = objectKey(object);
    const value = this.#valueOf(object);
    if (this.#indexedAs.get(key) === value) return;
    this.#drop(key);
    if (value === undefined) return;
    this.#indexedAs.set(key, value);
    let keys = this.#keys.get(value);
    if (keys === undefined) {
      keys = new Set();
      this.#keys.set(value, keys);
    }
    keys.add(key);
  }

  #drop(key: string): void {
    const value = this.#indexedAs.get(key);
    if (value === undefined) return;
    this.#indexedAs.delete(key);
    const keys = this.#keys.get(value);
    keys?.delete(key);
    if (keys?.size === 0) this.#keys.delete(value);
  }
}
