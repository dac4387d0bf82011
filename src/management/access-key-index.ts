import type { StorageEvent, StoredObject } from '../apiserver/index.js';
import { isKeyHash } from './access-key-hasher.js';
import { specOf } from './owned-access-key-kind.js';

/**
 * Which OwnedAccessKey holds each key hash, so that a key missing from the authenticator's cache
 * is found without listing every stored key. Built from a list of the keys ({@link replace}) and
 * kept by the watch events that follow it ({@link apply}); one entry per stored key (the hash and
 * name strings are the stored object's own), none after the key is deleted.
 *
 * It names objects and holds none: the caller reads the named object from storage and compares
 * its hash in constant time. An index that lagged the storage could therefore refuse a key, never
 * accept one that was deleted, disabled, given a new key or expired.
 *
 * Two objects may hold the same hash (a client-chosen key given twice); the lookup then names the
 * first by name (code-unit order), as the first match of a list sorted by name would.
 */
export class AccessKeyIndex {
  /** Key hash → the names of the objects holding it: one name, or several sorted. */
  readonly #namesByHash = new Map<string, string | string[]>();
  /** Object name → the key hash it holds (objects without a stored hash are absent). */
  readonly #hashByName = new Map<string, string>();

  /** Objects indexed right now. */
  get size(): number {
    return this.#hashByName.size;
  }

  /** The name of the object holding `hash`, or undefined when none does. */
  nameOf(hash: string): string | undefined {
    const names = this.#namesByHash.get(hash);
    return typeof names === 'string' ? names : names?.[0];
  }

  /** The hash the object `name` held when last indexed, or undefined. */
  hashOf(name: string): string | undefined {
    return this.#hashByName.get(name);
  }

  /** Forgets everything and indexes `objects` (a list of the keys). */
  replace(objects: Iterable<StoredObject>): void {
    this.clear();
    for (const object of objects) this.#put(object);
  }

  /** Applies one committed change of a key object. */
  apply(event: Pick<StorageEvent, 'type' | 'object'>): void {
    this.#remove(event.object.metadata.name);
    if (event.type !== 'DELETED') this.#put(event.object);
  }

  /** Forgets every object. */
  clear(): void {
    this.#namesByHash.clear();
    this.#hashByName.clear();
  }

  #put(object: StoredObject): void {
    const hash = specOf(object)['key'];
    if (!isKeyHash(hash)) return;
    const name = object.metadata.name;
    this.#remove(name);
    this.#hashByName.set(name, hash);
    const names = this.#namesByHash.get(hash);
    if (names === undefined) this.#namesByHash.set(hash, name);
    else this.#namesByHash.set(hash, [...(typeof names === 'string' ? [names] : names), name].sort(byCodeUnits));
  }

  #remove(name: string): void {
    const hash = this.#hashByName.get(name);
    if (hash === undefined) return;
    this.#hashByName.delete(name);
    const names = this.#namesByHash.get(hash);
    if (typeof names === 'string' || names === undefined) {
      this.#namesByHash.delete(hash);
      return;
    }
    const rest = names.filter((other) => other !== name);
    const [only, ...others] = rest;
    this.#namesByHash.set(hash, only !== undefined && others.length === 0 ? only : rest);
  }
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
