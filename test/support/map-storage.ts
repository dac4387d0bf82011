import {
  StorageError,
  type ObjectRef,
  type Preconditions,
  type ResourceId,
  type Storage,
  type StorageList,
  type StorageListOptions,
  type StorageWatch,
  type StorageWatchEnd,
  type StorageWatchFilter,
  type StorageWatchListener,
  type StoredObject,
} from '../../src/apiserver/storage.js';

/**
 * The smallest honest {@link Storage}: a map, resourceVersions that are not numbers (`v1`, `v2`…,
 * so nothing in the core can get away with parsing them), and watches of live changes only. A
 * stand-in for storages other than the devcluster's (the management API's host Secrets).
 */
export class MapStorage implements Storage {
  readonly #objects = new Map<string, StoredObject>();
  readonly #watches = new Set<{ filter: StorageWatchFilter; listener: StorageWatchListener }>();
  #version = 0;
  /** When set, watch() waits for it before registering: a storage that answers slowly. */
  holdWatches: Promise<void> | undefined;
  /** Calls of watch() so far. */
  watchCalls = 0;
  /** Watches registered so far, and how many of them are still open. */
  readonly registered = { total: 0, open: 0 };
  /** The update {@link holdNextUpdate} is waiting for, then the one it holds back. */
  #hold: { matches: (object: StoredObject) => boolean; held?: { id: string; release: () => void; committed: Promise<unknown> } } | undefined;
  /** Updates that were held back and then committed just before another update of the same object. */
  interleaved = 0;

  /**
   * Two writers racing on one object, deterministically: the next update whose new object
   * `matches` is held back until another update of the same object arrives, which was therefore
   * computed from a read taken before the held one; the held one is committed first, so the other
   * finds the object changed under it (a Conflict unless its writer reads again and retries).
   */
  holdNextUpdate(matches: (object: StoredObject) => boolean): void {
    this.#hold = { matches };
  }

  /** Whether an update is being held back by {@link holdNextUpdate} right now. */
  get holding(): boolean {
    return this.#hold?.held !== undefined;
  }

  async get(ref: ObjectRef): Promise<StoredObject | undefined> {
    return this.#objects.get(key(ref.resource, ref.namespace, ref.name));
  }

  async list(resource: ResourceId, options: StorageListOptions = {}): Promise<StorageList> {
    const items = [...this.#objects.entries()]
      .filter(([entry, object]) => entry.startsWith(`${resource}|`) && (options.namespace === undefined || (object.metadata.namespace ?? '') === options.namespace))
      .map(([, object]) => object);
    return { items, resourceVersion: `v${this.#version}` };
  }

  async create(resource: ResourceId, object: StoredObject): Promise<StoredObject> {
    const id = key(resource, object.metadata.namespace ?? '', object.metadata.name);
    if (this.#objects.has(id)) throw new StorageError('AlreadyExists', `${id} exists`);
    return this.#commit('ADDED', resource, id, object);
  }

  async update(resource: ResourceId, object: StoredObject, preconditions?: Preconditions): Promise<StoredObject> {
    const id = key(resource, object.metadata.namespace ?? '', object.metadata.name);
    const hold = this.#hold;
    if (hold !== undefined && hold.held === undefined && hold.matches(object)) {
      let release = (): void => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const committed = gate.then(() => this.#replace(resource, id, object, preconditions));
      hold.held = { id, release, committed };
      return committed;
    }
    if (hold?.held?.id === id) {
      this.#hold = undefined;
      this.interleaved += 1;
      hold.held.release();
      await hold.held.committed.catch(() => undefined);
    }
    return this.#replace(resource, id, object, preconditions);
  }

  #replace(resource: ResourceId, id: string, object: StoredObject, preconditions: Preconditions | undefined): StoredObject {
    this.#check(id, preconditions);
    return this.#commit('MODIFIED', resource, id, object);
  }

  async delete(ref: ObjectRef, preconditions?: Preconditions): Promise<StoredObject> {
    const id = key(ref.resource, ref.namespace, ref.name);
    const current = this.#check(id, preconditions);
    return this.#commit('DELETED', ref.resource, id, current);
  }

  async watch(filter: StorageWatchFilter, resourceVersion: string, listener: StorageWatchListener): Promise<StorageWatch> {
    this.watchCalls += 1;
    await this.holdWatches;
    if (!/^v\d+$/.test(resourceVersion)) throw new StorageError('InvalidResourceVersion', `invalid resource version: ${resourceVersion}`);
    if (resourceVersion !== `v${this.#version}`) throw new StorageError('Expired', `too old resource version: ${resourceVersion}`);
    const watch = { filter, listener };
    this.#watches.add(watch);
    this.registered.total += 1;
    this.registered.open += 1;
    const close = (): void => {
      if (this.#watches.delete(watch)) this.registered.open -= 1;
    };
    return { close, progressResourceVersion: () => `v${this.#version}` };
  }

  /** Ends every open watch as the storage would (`onClosed(end)`): watchers must list again. */
  endWatches(end: StorageWatchEnd): void {
    for (const watch of [...this.#watches]) {
      this.#watches.delete(watch);
      this.registered.open -= 1;
      watch.listener.onClosed(end);
    }
  }

  #check(id: string, preconditions: Preconditions | undefined): StoredObject {
    const current = this.#objects.get(id);
    if (current === undefined) throw new StorageError('NotFound', `${id} not found`);
    if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== current.metadata.resourceVersion) {
      throw new StorageError('Conflict', `${id} was modified`);
    }
    return current;
  }

  #commit(type: 'ADDED' | 'MODIFIED' | 'DELETED', resource: ResourceId, id: string, object: StoredObject): StoredObject {
    this.#version += 1;
    const stored = structuredClone(object);
    stored.metadata.resourceVersion = `v${this.#version}`;
    if (type === 'DELETED') this.#objects.delete(id);
    else this.#objects.set(id, stored);
    for (const { filter, listener } of this.#watches) {
      if (filter.resource === resource) listener.onEvent({ type, object: stored, replayed: false });
    }
    return stored;
  }
}

function key(resource: ResourceId, namespace: string, name: string): string {
  return `${resource}|${namespace}|${name}`;
}
