/**
 * The devcluster's storage engine (versioned objects, event window, durability) as the engine
 * itself exposes it, with numeric revisions; `api-storage.ts` adapts it to the API-server core's
 * `Storage` interface. The core owns every Kubernetes rule (uid, generation, finalizers,
 * defaults); the store owns ordering, resourceVersions and persistence.
 */

import type { ObjectRef, Preconditions, ResourceId, StoredObject } from '../../apiserver/index.js';

export type { ObjectRef, Preconditions, ResourceId, StoredObject, StoredObjectMeta } from '../../apiserver/index.js';

/** One committed change, as watchers receive it. */
export interface StoreEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  resource: ResourceId;
  /** The object after the change; for DELETED the last state, with the deletion's revision. */
  object: StoredObject;
  /** Revision of this change; equals Number(object.metadata.resourceVersion). */
  revision: number;
  /** The object before a MODIFIED or DELETED change; absent for ADDED. */
  previous?: StoredObject;
}

/**
 * The engine fails with the core's storage error, so failures cross the storage interface
 * unchanged. Codes used here: `NotFound`, `AlreadyExists`, `Conflict`, `Expired`, `Closed`.
 */
export { StorageError as StoreError, type StorageErrorCode as StoreErrorCode } from '../../apiserver/index.js';

/** Receives committed events in revision order, synchronously, on the committing tick. */
export interface WatchListener {
  onEvent(event: StoreEvent): void;
}

/** A registered watch; `close()` is idempotent and stops delivery at once. */
export interface WatchHandle {
  close(): void;
}

/** Selects which events a watch receives. */
export interface WatchFilter {
  resource: ResourceId;
  /** Restrict to one namespace; undefined for all namespaces. */
  namespace?: string;
}

/**
 * The storage engine. Revisions form one strictly increasing sequence per store, including after
 * a restart from its data directory. Mutations resolve only after the change is durable (when a
 * data directory is configured) and after listeners have been notified.
 */
export interface Store {
  /** The revision of the latest committed change (0 for an empty store). */
  currentRevision(): number;
  /** The oldest revision a watch may start after without `Expired`. */
  oldestWatchableRevision(): number;
  get(ref: ObjectRef): StoredObject | undefined;
  /**
   * A consistent snapshot of one resource (optionally one namespace), sorted by namespace then
   * name, with the revision it reflects.
   */
  list(resource: ResourceId, namespace?: string): { items: StoredObject[]; revision: number };
  /**
   * The same snapshot as it was at `revision`, rebuilt from the retained events. Throws
   * `StoreError('Expired')` when `revision` is older than the retained window.
   */
  listAt(resource: ResourceId, revision: number, namespace?: string): { items: StoredObject[]; revision: number };
  /** Fails with `AlreadyExists`. Returns the stored object with its new resourceVersion. */
  create(resource: ResourceId, object: StoredObject): Promise<StoredObject>;
  /** Fails with `NotFound` or `Conflict` (preconditions). */
  update(resource: ResourceId, object: StoredObject, preconditions?: Preconditions): Promise<StoredObject>;
  /** Fails with `NotFound` or `Conflict`. Returns the object as deleted. */
  delete(ref: ObjectRef, preconditions?: Preconditions): Promise<StoredObject>;
  /**
   * Delivers every event of `filter` with a revision strictly greater than `afterRevision`,
   * first the retained ones, then live ones. Throws `StoreError('Expired')` when `afterRevision`
   * is older than the retained window.
   */
  watch(filter: WatchFilter, afterRevision: number, listener: WatchListener): WatchHandle;
  /** Flushes, releases the data directory and closes every watch. */
  close(): Promise<void>;
}
