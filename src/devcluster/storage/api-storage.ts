import { type ObjectRef, type Preconditions, type ResourceId, type Storage, StorageError, type StorageList, type StorageListOptions, type StorageWatch, type StorageWatchFilter, type StorageWatchListener, type StoredObject } from '../../apiserver/index.js';
import { StoreError, type Store, type WatchHandle } from './types.js';
import type { ClosableWatchListener } from './watch-hub.js';

/** The engine's resourceVersions: decimal revisions. */
const DECIMAL = /^\d+$/;

function invalidResourceVersion(resourceVersion: string): StorageError {
  return new StorageError('InvalidResourceVersion', `invalid resource version: ${resourceVersion}`);
}

/**
 * The devcluster's storage engine as the API-server core's {@link Storage}: resourceVersions are
 * the engine's revisions in decimal; reads answer at once from committed state; a watch's
 * replays are the retained events up to the revision current when it registered.
 */
export class ApiStorage implements Storage {
  /** The engine gives every MODIFIED and DELETED event the state it replaced. */
  readonly eventsCarryPrevious = true;
  readonly #store: Store;

  /** Does no I/O; `store` stays owned (and closed) by the caller. */
  constructor(store: Store) {
    this.#store = store;
  }

  async get(ref: ObjectRef): Promise<StoredObject | undefined> {
    return this.#store.get(ref);
  }

  async list(resource: ResourceId, options: StorageListOptions = {}): Promise<StorageList> {
    const resourceVersion = options.resourceVersion ?? '';
    if (resourceVersion !== '' && !DECIMAL.test(resourceVersion)) throw invalidResourceVersion(resourceVersion);
    if (options.exact === true && resourceVersion !== '') {
      const at = Number(resourceVersion);
      if (!Number.isSafeInteger(at)) throw invalidResourceVersion(resourceVersion);
      try {
        const { items, revision } = this.#store.listAt(resource, at, options.namespace);
        return { items, resourceVersion: String(revision) };
      } catch (error: unknown) {
        if (error instanceof StoreError && error.code === 'Expired') {
          // The real server's words for a list at a compacted revision.
          throw new StorageError('Expired', 'The resourceVersion for the provided list is too old.', { cause: error });
        }
        throw error;
      }
    }
    // Every revision the engine handed out is committed, so any valid one is served by the latest.
    const { items, revision } = this.#store.list(resource, options.namespace);
    return { items, resourceVersion: String(revision) };
  }

  create(resource: ResourceId, object: StoredObject): Promise<StoredObject> {
    return this.#store.create(resource, object);
  }

  update(resource: ResourceId, object: StoredObject, preconditions?: Preconditions): Promise<StoredObject> {
    return this.#store.update(resource, object, preconditions);
  }

  delete(ref: ObjectRef, preconditions?: Preconditions): Promise<StoredObject> {
    return this.#store.delete(ref, preconditions);
  }

  async watch(filter: StorageWatchFilter, resourceVersion: string, listener: StorageWatchListener): Promise<StorageWatch> {
    const after = Number(resourceVersion);
    if (!DECIMAL.test(resourceVersion) || !Number.isSafeInteger(after)) throw invalidResourceVersion(resourceVersion);
    const store = this.#store;
    // The engine replays retained events synchronously inside watch(): those up to now.
    const replayUntil = store.currentRevision();
    let lastRevision = after;
    const engineListener: ClosableWatchListener = {
      onEvent: (event) => {
        lastRevision = event.revision;
        listener.onEvent({ type: event.type, object: event.object, replayed: event.revision <= replayUntil, ...(event.previous !== undefined ? { previous: event.previous } : {}) });
      },
      onClosed: (end) => listener.onClosed(end.reason === 'store-closed' ? 'storage-closed' : 'failed'),
    };
    let handle: WatchHandle;
    try {
      handle = store.watch({ resource: filter.resource, ...(filter.namespace !== undefined ? { namespace: filter.namespace } : {}) }, after, engineListener);
    } catch (error: unknown) {
      if (error instanceof StoreError && error.code === 'Expired') {
        throw new StorageError('Expired', `too old resource version: ${after} (${store.oldestWatchableRevision()})`, { cause: error });
      }
      throw error;
    }
    return {
      close: () => handle.close(),
      progressResourceVersion: () => String(Math.max(lastRevision, store.currentRevision())),
    };
  }
}
