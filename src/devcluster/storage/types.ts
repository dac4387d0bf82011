/**
 * The contract between the devcluster's API layer (HTTP, validation, defaulting) and its storage
 * engine (versioned objects, event window, durability). The API layer owns every Kubernetes rule
 * (uid, generation, finalizers, defaults); the store owns ordering, resourceVersions and
 * persistence. Objects cross this boundary as plain JSON values that neither side mutates after
 * handing them over.
 */

/** A Kubernetes object as stored: plain JSON with at least metadata.name. */
export interface StoredObject {
  apiVersion?: string;
  kind?: string;
  metadata: StoredObjectMeta;
  [field: string]: unknown;
}

/** The metadata fields the store itself reads or writes. Other fields pass through untouched. */
export interface StoredObjectMeta {
  name: string;
  /** '' (or absent) for cluster-scoped objects. */
  namespace?: string;
  /** Written by the store on every mutation; the decimal form of the mutation's revision. */
  resourceVersion?: string;
  uid?: string;
  [field: string]: unknown;
}

/**
 * Which collection an object belongs to, e.g. `core/v1/endpoints` or
 * `coordination.k8s.io/v1/leases`. The store treats it as an opaque partition name.
 */
export type ResourceId = string;

/** Identity of one object inside a resource. */
export interface ObjectRef {
  resource: ResourceId;
  /** '' for cluster-scoped objects. */
  namespace: string;
  name: string;
}

/** One committed change, as watchers receive it. */
export interface StoreEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  resource: ResourceId;
  /** The object after the change; for DELETED the last state, with the deletion's revision. */
  object: StoredObject;
  /** Revision of this change; equals Number(object.metadata.resourceVersion). */
  revision: number;
}

/** Preconditions for update and delete. A mismatch fails with code `Conflict`. */
export interface Preconditions {
  resourceVersion?: string;
  uid?: string;
}

/** Stable failure codes of the store; the API layer maps them to Status reasons. */
export type StoreErrorCode = 'NotFound' | 'AlreadyExists' | 'Conflict' | 'Expired' | 'Closed';

/** A failure the API layer turns into a Kubernetes Status. */
export class StoreError extends Error {
  readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
  }
}

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
