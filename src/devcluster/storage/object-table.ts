import type { ObjectRef, ResourceId, StoredObject } from './types.js';

/**
 * The committed objects, by resource, then by `namespace/name`. Holds the frozen objects the store
 * hands out; it neither copies nor validates, the store does that before applying a change.
 */
export class ObjectTable {
  readonly #resources = new Map<ResourceId, Map<string, StoredObject>>();

  /** The object at `ref`, or undefined. */
  get(ref: ObjectRef): StoredObject | undefined {
    return this.#resources.get(ref.resource)?.get(objectKey(ref.namespace, ref.name));
  }

  /** Inserts or replaces the object at its namespace and name. */
  put(resource: ResourceId, object: StoredObject): void {
    let objects = this.#resources.get(resource);
    if (objects === undefined) {
      objects = new Map();
      this.#resources.set(resource, objects);
    }
    objects.set(objectKey(namespaceOf(object), object.metadata.name), object);
  }

  /** Removes the object at `ref`, if present. */
  remove(ref: ObjectRef): void {
    const objects = this.#resources.get(ref.resource);
    if (objects === undefined) {
      return;
    }
    objects.delete(objectKey(ref.namespace, ref.name));
    if (objects.size === 0) {
      this.#resources.delete(ref.resource);
    }
  }

  /** The objects of one resource (optionally one namespace), sorted by namespace then name. */
  list(resource: ResourceId, namespace?: string): StoredObject[] {
    const objects = this.#resources.get(resource);
    if (objects === undefined) {
      return [];
    }
    const entries: [string, StoredObject][] = [];
    for (const entry of objects) {
      if (namespace === undefined || namespaceOf(entry[1]) === namespace) {
        entries.push(entry);
      }
    }
    // Keys are `namespace\0name` and '\0' sorts before every other character, so ordering by key
    // is ordering by namespace, then name.
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return entries.map((entry) => entry[1]);
  }

  /** Every object with its resource, in no particular order (for snapshots). */
  *entries(): Generator<{ resource: ResourceId; object: StoredObject }> {
    for (const [resource, objects] of this.#resources) {
      for (const object of objects.values()) {
        yield { resource, object };
      }
    }
  }
}

/** The namespace an object lives in: '' for cluster-scoped objects. */
export function namespaceOf(object: StoredObject): string {
  return object.metadata.namespace ?? '';
}

/** A map key unique per namespace and name ('\0' cannot appear in either). */
export function objectKey(namespace: string, name: string): string {
  return `${namespace}\u0000${name}`;
}
