/**
 * The storage interface of the API-server core: what the generic registry store, the list and
 * the watch handlers need from wherever objects live. The devcluster implements it on its own
 * versioned store (memory or durable log); the management API will implement it on labelled
 * Secrets in the host cluster.
 *
 * The core owns every Kubernetes rule (uid, generation, finalizers, defaults, validation); a
 * storage owns ordering, resourceVersions and persistence. resourceVersions are opaque at this
 * boundary: the core never parses, compares or invents one, it only hands back those a storage
 * gave out (or a client sent). Objects cross the boundary as plain JSON values that neither side
 * mutates after handing them over.
 */

/** A Kubernetes object as stored: plain JSON with at least metadata.name. */
export interface StoredObject {
  apiVersion?: string;
  kind?: string;
  metadata: StoredObjectMeta;
  [field: string]: unknown;
}

/** The metadata fields a storage itself reads or writes. Other fields pass through untouched. */
export interface StoredObjectMeta {
  name: string;
  /** '' (or absent) for cluster-scoped objects. */
  namespace?: string;
  /** Written by the storage on every mutation; opaque to the core. */
  resourceVersion?: string;
  uid?: string;
  [field: string]: unknown;
}

/**
 * Which collection an object belongs to, e.g. `core/v1/endpoints` or
 * `coordination.k8s.io/v1/leases`. A storage treats it as an opaque partition name.
 */
export type ResourceId = string;

/** Identity of one object inside a resource. */
export interface ObjectRef {
  resource: ResourceId;
  /** '' for cluster-scoped objects. */
  namespace: string;
  name: string;
}

/** Preconditions of update and delete. A mismatch fails with code `Conflict`. */
export interface Preconditions {
  resourceVersion?: string;
  uid?: string;
}

/**
 * Stable failure codes of a storage; the core maps each to one Status reason:
 * `NotFound` 404, `AlreadyExists` and `Conflict` 409, `Expired` 410, `InvalidResourceVersion`
 * 400, `Closed` 503.
 */
export type StorageErrorCode = 'NotFound' | 'AlreadyExists' | 'Conflict' | 'Expired' | 'InvalidResourceVersion' | 'Closed';

/**
 * A storage failure the core turns into a Kubernetes Status. For `Expired` and
 * `InvalidResourceVersion` the message is sent to the client as the Status message, so it names
 * the resourceVersion the client gave. Not an `ApiError`: a storage states what went wrong with
 * the data, and the core (the object writer) words the Status for the request that hit it.
 */
export class StorageError extends Error {
  readonly code: StorageErrorCode;
  constructor(code: StorageErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageError';
    this.code = code;
  }
}

/** A consistent snapshot of one collection. */
export interface StorageList {
  /** Sorted by namespace, then name. */
  items: StoredObject[];
  /** The resourceVersion the snapshot reflects: a watch from it misses no later change. */
  resourceVersion: string;
}

/** Options of {@link Storage.list}. */
export interface StorageListOptions {
  /** Restrict to one namespace; undefined for all namespaces. */
  namespace?: string;
  /**
   * The client's `resourceVersion` ('' or undefined when unset): the snapshot is at least as new.
   * One the storage cannot have given out fails with `InvalidResourceVersion`.
   */
  resourceVersion?: string;
  /**
   * List the collection exactly as it was at `resourceVersion` (`resourceVersionMatch=Exact`)
   * instead of at least as new. Fails with `Expired` when the storage no longer knows that state.
   */
  exact?: boolean;
}

/** One committed change, as a watch receives it. */
export interface StorageEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The object after the change; for DELETED its last state, with the deletion's resourceVersion. */
  object: StoredObject;
  /**
   * The object before a MODIFIED or DELETED change (with its own, older resourceVersion), when the
   * storage knows it; absent for ADDED. A watch uses it to tell whether the object matched its
   * selectors before, and sends it as the DELETED object of a change that leaves them.
   */
  previous?: StoredObject;
  /**
   * True for the retained changes a watch resumed from an older resourceVersion receives first:
   * what the object looked like before such a change is unknown to the watcher.
   */
  replayed: boolean;
}

/** Why a storage, rather than the watcher, ended a watch. */
export type StorageWatchEnd = 'storage-closed' | 'failed';

/** Receives a watch's events in commit order. */
export interface StorageWatchListener {
  onEvent(event: StorageEvent): void;
  /** The storage ended the watch; never called after the watcher's own `close()`. */
  onClosed(end: StorageWatchEnd): void;
}

/** Which changes a watch receives. */
export interface StorageWatchFilter {
  resource: ResourceId;
  /** Restrict to one namespace; undefined for all namespaces. */
  namespace?: string;
}

/** An open watch. */
export interface StorageWatch {
  /** Stops delivery at once; idempotent. */
  close(): void;
  /**
   * A resourceVersion at least as new as every event delivered so far (and as the watch's start),
   * for BOOKMARK events: a watch resumed from it misses nothing this one would have delivered.
   */
  progressResourceVersion(): string;
}

/**
 * Where the core keeps objects. Reads reflect every write that has resolved. Mutations resolve
 * once the change is committed (durable, when the storage is) and watchers have been told.
 */
export interface Storage {
  /** The object, or undefined when there is none. */
  get(ref: ObjectRef): Promise<StoredObject | undefined>;
  /**
   * Only for a storage whose `get` answers from a cache that may lag writes made elsewhere (by
   * another replica on the same source of truth): the object as the source of truth holds it now.
   * The registry store reads it, as the real registry's GuaranteedUpdate re-reads etcd, when a
   * write computed from `get` failed on a stale read (a conflict, a no-op, a missing object), so
   * a write without a client precondition never fails because the cache lagged. A storage without
   * it promises that `get` is current.
   */
  getLatest?(ref: ObjectRef): Promise<StoredObject | undefined>;
  /**
   * True when every MODIFIED and DELETED event its watches deliver carries `previous`: a watch
   * with selectors then decides from the event alone and remembers nothing per object. Absent,
   * each such watch keeps what it last saw of every object (memory per watcher and object).
   */
  readonly eventsCarryPrevious?: boolean;
  /** A consistent snapshot of one resource (optionally one namespace). */
  list(resource: ResourceId, options?: StorageListOptions): Promise<StorageList>;
  /** Fails with `AlreadyExists`. Returns the stored object with its new resourceVersion. */
  create(resource: ResourceId, object: StoredObject): Promise<StoredObject>;
  /** Fails with `NotFound` or `Conflict` (preconditions). Returns the stored object. */
  update(resource: ResourceId, object: StoredObject, preconditions?: Preconditions): Promise<StoredObject>;
  /** Fails with `NotFound` or `Conflict`. Returns the object as deleted. */
  delete(ref: ObjectRef, preconditions?: Preconditions): Promise<StoredObject>;
  /**
   * Delivers every change of `filter` after `resourceVersion` (one the storage gave out): first
   * the retained ones (`replayed`), then live ones. Fails with `Expired` when `resourceVersion` is
   * older than what the storage retains, `InvalidResourceVersion` when it cannot be one of its
   * own. Events may reach `listener` before the returned promise resolves.
   */
  watch(filter: StorageWatchFilter, resourceVersion: string, listener: StorageWatchListener): Promise<StorageWatch>;
}
