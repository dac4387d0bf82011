import type { Logger } from '../../observe/logger.js';
import { deepFreeze } from '../../apimachinery/index.js';
import { EventWindow } from './event-window.js';
import type { LogRecord } from './log-record.js';
import { namespaceOf, objectKey, ObjectTable } from './object-table.js';
import {
  StoreError,
  type ObjectRef,
  type Preconditions,
  type ResourceId,
  type Store,
  type StoreEvent,
  type StoredObject,
  type WatchFilter,
  type WatchHandle,
} from './types.js';
import { WatchHub, type ClosableWatchListener } from './watch-hub.js';

/**
 * Where the store sends each change before it counts as committed. Implemented by the durable
 * log; absent for a memory-only store.
 */
export interface Journal {
  /**
   * Queues `record` behind every record appended before it. Once it is durable, calls
   * `onDurable` synchronously (records in append order), then resolves. Rejects when the write
   * failed; `onDurable` is then never called for it.
   */
  append(record: LogRecord, onDurable: () => void): Promise<void>;
  /** Waits for queued records, then releases the files. */
  close(): Promise<void>;
}

/** What {@link VersionedStore} starts from and writes through. */
export interface VersionedStoreInit {
  /** Retained events for watch resume; a positive integer. */
  watchWindow: number;
  logger: Logger;
  /** Persists changes; undefined for a memory-only store. */
  journal?: Journal | undefined;
  /** Objects recovered from disk (frozen). Default: none. */
  objects?: ObjectTable | undefined;
  /** Highest revision recovered from disk. Default 0. */
  revision?: number | undefined;
  /** The most recent recovered events, oldest first, for the watch window. Default: none. */
  events?: readonly StoreEvent[] | undefined;
}

interface PendingState {
  /** The object after the newest uncommitted change; undefined after a pending delete. */
  object: StoredObject | undefined;
  revision: number;
}

const EVENT_TYPES = { create: 'ADDED', update: 'MODIFIED', delete: 'DELETED' } as const;

/**
 * The {@link Store} implementation: committed objects, the event window and watches in memory,
 * and an optional {@link Journal} for durability.
 *
 * A mutation checks its preconditions synchronously against the newest state, including changes
 * still waiting for their fsync, and takes the next revision at once; so of two concurrent updates
 * with the same expected resourceVersion exactly one wins. Reads (`get`, `list`,
 * `currentRevision`) only show committed (durable) changes, so nothing a client reads can vanish
 * in a crash. Objects handed out are deeply frozen; copy before changing them.
 */
export class VersionedStore implements Store {
  readonly #logger: Logger;
  readonly #journal: Journal | undefined;
  readonly #objects: ObjectTable;
  readonly #window: EventWindow;
  readonly #hub: WatchHub;
  /** Uncommitted changes by resource+key, only while a journal write is pending. */
  readonly #pending = new Map<string, PendingState>();
  /** Last revision handed to a mutation. */
  #assignedRevision: number;
  /** Last revision committed (durable, applied and published). */
  #committedRevision: number;
  #closed = false;
  #closing: Promise<void> | undefined;
  /** Set when the journal failed: no further writes are accepted. */
  #failure: unknown;

  /** Builds the store from recovered state; does no I/O. */
  constructor(init: VersionedStoreInit) {
    this.#logger = init.logger;
    this.#journal = init.journal;
    this.#objects = init.objects ?? new ObjectTable();
    this.#window = new EventWindow(init.watchWindow);
    this.#hub = new WatchHub(init.logger);
    this.#assignedRevision = init.revision ?? 0;
    this.#committedRevision = this.#assignedRevision;
    for (const event of init.events ?? []) {
      this.#window.push(event);
    }
  }

  currentRevision(): number {
    return this.#committedRevision;
  }

  /**
   * The revision just before the oldest retained event; with nothing retained (a fresh or just
   * reopened store with an empty log), the current revision. A watch may start after any revision
   * from this one up.
   */
  oldestWatchableRevision(): number {
    const oldest = this.#window.oldest();
    return oldest === undefined ? this.#committedRevision : oldest.revision - 1;
  }

  get(ref: ObjectRef): StoredObject | undefined {
    this.#assertReadable();
    return this.#objects.get(ref);
  }

  list(resource: ResourceId, namespace?: string): { items: StoredObject[]; revision: number } {
    this.#assertReadable();
    return { items: this.#objects.list(resource, namespace), revision: this.#committedRevision };
  }

  listAt(resource: ResourceId, revision: number, namespace?: string): { items: StoredObject[]; revision: number } {
    this.#assertReadable();
    const oldest = this.oldestWatchableRevision();
    if (revision < oldest) {
      throw new StoreError('Expired', `too old resource version: ${revision} (oldest listable is ${oldest})`);
    }
    const objects = new Map<string, StoredObject>();
    for (const object of this.#objects.list(resource, namespace)) {
      objects.set(objectKey(namespaceOf(object), object.metadata.name), object);
    }
    const later = [...this.#window.after(revision)].filter(
      (event) => event.resource === resource && (namespace === undefined || namespaceOf(event.object) === namespace),
    );
    // Undo the later changes, newest first: each one's previous state is what it replaced.
    for (const event of later.reverse()) {
      const key = objectKey(namespaceOf(event.object), event.object.metadata.name);
      if (event.previous === undefined) {
        objects.delete(key);
      } else {
        objects.set(key, event.previous);
      }
    }
    const keys = [...objects.keys()].sort();
    return { items: keys.map((key) => objects.get(key) as StoredObject), revision: Math.min(revision, this.#committedRevision) };
  }

  async create(resource: ResourceId, object: StoredObject): Promise<StoredObject> {
    this.#assertWritable();
    const ref = refOf(resource, object);
    if (this.#newest(ref) !== undefined) {
      throw new StoreError('AlreadyExists', `${describe(ref)} already exists`);
    }
    return this.#submit('create', resource, object);
  }

  async update(resource: ResourceId, object: StoredObject, preconditions?: Preconditions): Promise<StoredObject> {
    this.#assertWritable();
    const ref = refOf(resource, object);
    const current = this.#newest(ref);
    if (current === undefined) {
      throw new StoreError('NotFound', `${describe(ref)} not found`);
    }
    checkPreconditions(ref, current, preconditions);
    return this.#submit('update', resource, object);
  }

  async delete(ref: ObjectRef, preconditions?: Preconditions): Promise<StoredObject> {
    this.#assertWritable();
    const current = this.#newest(ref);
    if (current === undefined) {
      throw new StoreError('NotFound', `${describe(ref)} not found`);
    }
    checkPreconditions(ref, current, preconditions);
    return this.#submit('delete', ref.resource, current);
  }

  watch(filter: WatchFilter, afterRevision: number, listener: ClosableWatchListener): WatchHandle {
    this.#assertReadable();
    const oldest = this.oldestWatchableRevision();
    if (afterRevision < oldest) {
      throw new StoreError(
        'Expired',
        `too old resource version: ${afterRevision} (oldest watchable is ${oldest})`,
      );
    }
    return this.#hub.add(filter, afterRevision, listener, this.#window.after(afterRevision));
  }

  close(): Promise<void> {
    if (this.#closing !== undefined) {
      return Promise.reject(new StoreError('Closed', 'the store is already closed'));
    }
    this.#closed = true;
    this.#closing = this.#finishClose();
    return this.#closing;
  }

  async #finishClose(): Promise<void> {
    try {
      await this.#journal?.close();
    } finally {
      this.#hub.closeAll();
    }
  }

  #submit(op: LogRecord['op'], resource: ResourceId, input: StoredObject): Promise<StoredObject> {
    const revision = ++this.#assignedRevision;
    const object = stamp(input, revision);
    const record: LogRecord = { rev: revision, op, resource, object };
    if (this.#journal === undefined) {
      this.#commit(record);
      return Promise.resolve(object);
    }
    const key = pendingKey(resource, namespaceOf(object), object.metadata.name);
    this.#pending.set(key, { object: op === 'delete' ? undefined : object, revision });
    return this.#journal.append(record, () => this.#commit(record)).then(
      () => object,
      (error: unknown) => {
        this.#fail(error);
        throw new StoreError('Closed', `the change was not persisted and the store stopped accepting writes: ${String(error)}`, {
          cause: error,
        });
      },
    );
  }

  /** Applies a durable change: objects, revision, window, watchers (in that order). */
  #commit(record: LogRecord): void {
    const { object, resource, rev } = record;
    const namespace = namespaceOf(object);
    const previous = this.#objects.get({ resource, namespace, name: object.metadata.name });
    if (record.op === 'delete') {
      this.#objects.remove({ resource, namespace, name: object.metadata.name });
    } else {
      this.#objects.put(resource, object);
    }
    this.#committedRevision = rev;
    const key = pendingKey(resource, namespace, object.metadata.name);
    if (this.#pending.get(key)?.revision === rev) {
      this.#pending.delete(key);
    }
    const event: StoreEvent = { type: EVENT_TYPES[record.op], resource, object, revision: rev, ...(previous !== undefined ? { previous } : {}) };
    this.#window.push(event);
    this.#hub.publish([event]);
  }

  #fail(error: unknown): void {
    if (this.#failure === undefined) {
      this.#failure = error;
      this.#logger.error({ err: error }, 'Store write failed; refusing further writes');
    }
  }

  /** The newest state of `ref`, counting changes that wait for their fsync. */
  #newest(ref: ObjectRef): StoredObject | undefined {
    const pending = this.#pending.get(pendingKey(ref.resource, ref.namespace, ref.name));
    return pending !== undefined ? pending.object : this.#objects.get(ref);
  }

  #assertReadable(): void {
    if (this.#closed) {
      throw new StoreError('Closed', 'the store is closed');
    }
  }

  #assertWritable(): void {
    this.#assertReadable();
    if (this.#failure !== undefined) {
      throw new StoreError('Closed', `the store stopped accepting writes after a write failed: ${String(this.#failure)}`, {
        cause: this.#failure,
      });
    }
  }
}

function refOf(resource: ResourceId, object: StoredObject): ObjectRef {
  const name: unknown = object.metadata?.name;
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`a ${resource} object needs a non-empty metadata.name`);
  }
  return { resource, namespace: namespaceOf(object), name };
}

function describe(ref: ObjectRef): string {
  return ref.namespace === '' ? `${ref.resource} "${ref.name}"` : `${ref.resource} "${ref.namespace}/${ref.name}"`;
}

function checkPreconditions(ref: ObjectRef, current: StoredObject, preconditions: Preconditions | undefined): void {
  const expectedVersion = preconditions?.resourceVersion;
  if (expectedVersion !== undefined && expectedVersion !== current.metadata.resourceVersion) {
    throw new StoreError(
      'Conflict',
      `${describe(ref)} has resourceVersion ${current.metadata.resourceVersion ?? '(none)'}, not ${expectedVersion}: ` +
        'the object has been modified; read it again and retry',
    );
  }
  const expectedUid = preconditions?.uid;
  if (expectedUid !== undefined && expectedUid !== current.metadata.uid) {
    throw new StoreError('Conflict', `${describe(ref)} has uid ${current.metadata.uid ?? '(none)'}, not ${expectedUid}`);
  }
}

/**
 * A deeply frozen copy of `object` carrying `revision` as its resourceVersion. The copy goes
 * through JSON so that what is stored is exactly what the log persists (`undefined` fields vanish)
 * and a caller's later changes to its input have no effect.
 */
function stamp(object: StoredObject, revision: number): StoredObject {
  const copy = JSON.parse(JSON.stringify(object)) as StoredObject;
  copy.metadata.resourceVersion = String(revision);
  return deepFreeze(copy);
}

function pendingKey(resource: ResourceId, namespace: string, name: string): string {
  return `${resource}\u0000${objectKey(namespace, name)}`;
}
