import type { InformerHandler } from '../kube/informer.js';
import type { KubeObject } from '../kube/kube-object.js';

/**
 * The keys of the cached virtual objects by one value each yields (e.g. the Service a slice
 * names), kept by the virtual informer's events: what a secondary source reads to wake the keys a
 * change concerns at the cost of their number, not of a scan of the cache. Register
 * {@link VirtualKeyIndex.handler} on the informer before its handlers that read the index (an
 * informer calls handlers in the order they were added, after its cache is updated). `valueOf`
 * must be pure: a change moves a key from the value of the object's previous state (which the
 * informer hands to `onUpdate` and `onDelete`) to that of its new one. Memory: one map entry per
 * value, holding its one key as a string (the usual case, e.g. a Service with one slice) and a
 * set only while several objects yield the value.
 */
export class VirtualKeyIndex<V extends KubeObject> {
  readonly #valueOf: (object: V) => string | undefined;
  /** Value → the key (`namespace/name`) of the one object yielding it, or the keys of several. */
  readonly #keys = new Map<string, string | Set<string>>();

  /** `valueOf` gives the value an object is found by, or `undefined` to leave it out. */
  constructor(valueOf: (object: V) => string | undefined) {
    this.#valueOf = valueOf;
  }

  /** The informer handler that keeps the index. */
  readonly handler: InformerHandler<V> = {
    // The informer's key is the string its cache holds: the index keeps no copy of its own.
    onAdd: (object, _initial, key) => this.#add(this.#valueOf(object), key),
    onUpdate: (old, object, key) => {
      const before = this.#valueOf(old);
      const after = this.#valueOf(object);
      if (before !== after) this.#remove(before, key);
      this.#add(after, key);
    },
    onDelete: (object, key) => this.#remove(this.#valueOf(object), key),
  };

  /** Keys of the cached objects indexed under `value`; empty when none. */
  keysOf(value: string): string[] {
    const keys = this.#keys.get(value);
    if (keys === undefined) return [];
    return typeof keys === 'string' ? [keys] : [...keys];
  }

  #add(value: string | undefined, key: string): void {
    if (value === undefined) return;
    const keys = this.#keys.get(value);
    if (keys === undefined) this.#keys.set(value, key);
    else if (typeof keys !== 'string') keys.add(key);
    else if (keys !== key) this.#keys.set(value, new Set([keys, key]));
  }

  #remove(value: string | undefined, key: string): void {
    if (value === undefined) return;
    const keys = this.#keys.get(value);
    if (keys === undefined) return;
    if (typeof keys === 'string') {
      if (keys === key) this.#keys.delete(value);
      return;
    }
    keys.delete(key);
    if (keys.size > 1) return;
    const [last] = keys;
    if (last === undefined) this.#keys.delete(value);
    else this.#keys.set(value, last);
  }
}
