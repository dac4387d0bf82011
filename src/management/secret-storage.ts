import { Registry } from 'prom-client';
import { type ObjectRef, type Preconditions, type ResourceId, type Storage, StorageError, type StorageEvent, type StorageList, type StorageListOptions, type StorageWatch, type StorageWatchFilter, type StorageWatchListener, type StoredObject } from '../apiserver/index.js';
import { isAlreadyExists, isConflict, isNotFound } from '../apimachinery/index.js';
import { CoreResources, collectionPath, objectPath } from '../kube/api-path.js';
import { realClock, type Clock } from '../kube/clock.js';
import { KubeMetrics } from '../kube/metrics.js';
import { Reflector, type ListerWatcher, type ReflectorOptions } from '../kube/reflector.js';
import type { RestClient } from '../kube/rest-client.js';
import { silentLogger, type Logger } from '../observe/logger.js';
import { ChangeLog } from './change-log.js';
import { RESOURCE_LABEL, decodeSecret, encodeSecret, identityKey, secretNameFor, type ManagementSecret } from './secret-encoding.js';

/** The calls the store makes on the host API; {@link RestClient} provides them. */
export type SecretClient = ListerWatcher & Pick<RestClient, 'get' | 'create' | 'update' | 'delete'>;

/** Options of {@link SecretStorage}. */
export interface SecretStorageOptions {
  /** Client of the host cluster. Required. */
  client: SecretClient;
  /** Host namespace the management Secrets live in (vcsync's own). Required. */
  namespace: string;
  /** Name of the store's watch in logs and the `informer` metrics label. Default `management-secrets`. */
  name?: string;
  /**
   * Changes kept for watches that resume from an older resourceVersion; at most twice as many
   * resourceVersions (of changes and bookmarks) are remembered. Default 1000.
   */
  replayWindow?: number;
  /**
   * How long a list or watch at a resourceVersion this replica has not seen yet waits for its
   * watch to catch up (another replica may have written it), in ms. Default 3000.
   */
  unknownResourceVersionWaitMs?: number;
  /** How long a write waits for its own change to come back through the watch, in ms. Default 10 000. */
  writeVisibleTimeoutMs?: number;
  /** Extra options of the underlying reflector (watch timeouts, backoff). Default none. */
  reflector?: Partial<Omit<ReflectorOptions, 'name' | 'client' | 'resource' | 'namespace' | 'labelSelector' | 'clock' | 'logger' | 'metrics'>>;
  /** Time source of the waits. Default the real clock. */
  clock?: Clock;
  /** Logger. Default silent. */
  logger?: Logger;
  /** Metrics of the watch. Default a private registry. */
  metrics?: KubeMetrics;
}

type Resolved = Readonly<Required<Omit<SecretStorageOptions, 'reflector'>>> & Readonly<Pick<SecretStorageOptions, 'reflector'>>;

function withDefaults(options: SecretStorageOptions): Resolved {
  const name = options.name ?? 'management-secrets';
  return Object.freeze({
    ...options,
    name,
    replayWindow: options.replayWindow ?? 1000,
    unknownResourceVersionWaitMs: options.unknownResourceVersionWaitMs ?? 3000,
    writeVisibleTimeoutMs: options.writeVisibleTimeoutMs ?? 10_000,
    clock: options.clock ?? realClock,
    logger: (options.logger ?? silentLogger()).child({ component: name, namespace: options.namespace }),
    metrics: options.metrics ?? new KubeMetrics(new Registry()),
  });
}

/**
 * What every pending wait is shown: one change applied to the cache (`secretName`, `event`), or
 * the cache reaching a resourceVersion (`relisted` when by a full list).
 */
interface AppliedChange {
  secretName?: string;
  event?: StorageEvent;
  relisted?: boolean;
}

interface Watcher {
  filter: StorageWatchFilter;
  listener: StorageWatchListener;
}

/** A pending wait: answers true when it is done (and is then dropped). */
type Waiter = (change: AppliedChange | 'closed') => boolean;

const CONFLICT_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

function describe(ref: ObjectRef): string {
  return ref.namespace === '' ? `${ref.resource} "${ref.name}"` : `${ref.resource} "${ref.namespace}/${ref.name}"`;
}

function compareObjects(a: StoredObject, b: StoredObject): number {
  const byNamespace = (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '');
  return byNamespace !== 0 ? byNamespace : a.metadata.name.localeCompare(b.metadata.name);
}

function refOf(resource: ResourceId, object: StoredObject): ObjectRef {
  return { resource, namespace: object.metadata.namespace ?? '', name: object.metadata.name };
}

/**
 * The API-server core's {@link Storage} over labelled Secrets in one host namespace, one Secret
 * per object (see `secret-encoding.ts` for names, labels and the data key). Several replicas
 * may share the namespace: the host API is the only source of truth.
 *
 * - A reflector on the labelled Secrets keeps an in-memory cache; `get` and `list` answer from it
 *   once the first list is in. The cache may lag another replica's write: `getLatest` reads the
 *   host, and the registry store re-reads through it when a write computed from the cache failed.
 * - resourceVersions are the Secrets' own, passed through verbatim and never compared by size.
 *   The store knows the order of those its watch has seen; a list or watch at one it has not seen
 *   waits up to `unknownResourceVersionWaitMs` for the watch to catch up (another replica wrote
 *   it), then treats it as older than its window: a watch fails with `Expired` (the client
 *   relists), a list answers from the cache.
 * - Writes go to the host with the Secret's resourceVersion as precondition, and resolve once the
 *   store's own watch has seen the change (so reads reflect it and watchers were told), or after
 *   `writeVisibleTimeoutMs` when the watch lags (the write stands; a warning is logged).
 * - Watches receive the watch's changes with `previous`; the last `replayWindow` changes are
 *   replayed to a watch resumed from an older resourceVersion.
 * - `list` with `exact` serves only the newest resourceVersion (older states are not kept).
 *
 * `run(signal)` must be running for any call to complete.
 */
export class SecretStorage implements Storage {
  /** Every MODIFIED and DELETED change is recorded with the cached state it replaced. */
  readonly eventsCarryPrevious = true;
  readonly #options: Resolved;
  readonly #reflector: Reflector<ManagementSecret>;
  /** identity → object (with the Secret's resourceVersion). */
  readonly #objects = new Map<string, StoredObject>();
  /** Secret name → the identity of the object it holds. */
  readonly #secrets = new Map<string, ObjectRef>();
  readonly #log: ChangeLog;
  readonly #watchers = new Set<Watcher>();
  readonly #waiters = new Set<Waiter>();
  #synced = false;
  #closed = false;
  #running = false;

  /** Does no I/O; nothing happens until {@link SecretStorage.run}. */
  constructor(options: SecretStorageOptions) {
    this.#options = withDefaults(options);
    this.#log = new ChangeLog(this.#options.replayWindow);
    const { name, client, namespace, clock, logger, metrics } = this.#options;
    this.#reflector = new Reflector<ManagementSecret>(
      { ...this.#options.reflector, name, client, namespace, resource: CoreResources.secrets, labelSelector: RESOURCE_LABEL, clock, logger, metrics },
      {
        replace: (items, resourceVersion) => this.#replace(items, resourceVersion),
        apply: (type, secret) => this.#apply(type, secret),
        bookmark: (resourceVersion) => this.#advance(resourceVersion),
      },
    );
  }

  /** True once the first list of the Secrets is in the cache. */
  hasSynced(): boolean {
    return this.#synced;
  }

  /**
   * Lists and watches the Secrets until `signal` aborts; then ends every open watch
   * (`storage-closed`) and fails calls still waiting with `Closed`. Rejects only if called twice.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error(`secret storage ${this.#options.name} is already running`);
    this.#running = true;
    try {
      await this.#reflector.run(signal);
    } finally {
      this.#close();
    }
  }

  async get(ref: ObjectRef): Promise<StoredObject | undefined> {
    await this.#ready();
    return this.#objects.get(identityKey(ref));
  }

  /** The object as the host holds it now (a GET of its Secret), whatever the cache has seen. */
  async getLatest(ref: ObjectRef): Promise<StoredObject | undefined> {
    await this.#ready();
    return this.#readHost(ref);
  }

  async list(resource: ResourceId, options: StorageListOptions = {}): Promise<StorageList> {
    await this.#ready();
    const resourceVersion = options.resourceVersion ?? '';
    if (resourceVersion !== '' && resourceVersion !== '0') {
      const known = await this.#waitKnown(resourceVersion);
      if (options.exact === true && (!known || resourceVersion !== this.#log.latest)) {
        // The real server's words for a list at a compacted revision.
        throw new StorageError('Expired', 'The resourceVersion for the provided list is too old.');
      }
    }
    const items: StoredObject[] = [];
    for (const [key, object] of this.#objects) {
      if (!key.startsWith(`${resource}\u0000`)) continue;
      if (options.namespace !== undefined && (object.metadata.namespace ?? '') !== options.namespace) continue;
      items.push(object);
    }
    items.sort(compareObjects);
    return { items, resourceVersion: this.#log.latest };
  }

  async create(resource: ResourceId, object: StoredObject): Promise<StoredObject> {
    await this.#ready();
    const ref = refOf(resource, object);
    let written: ManagementSecret;
    try {
      written = await this.#options.client.create(collectionPath(CoreResources.secrets, this.#options.namespace), encodeSecret(resource, object, this.#options.namespace));
    } catch (error: unknown) {
      if (isAlreadyExists(error)) throw new StorageError('AlreadyExists', `${describe(ref)} already exists`, { cause: error });
      throw error;
    }
    return this.#visible(written);
  }

  async update(resource: ResourceId, object: StoredObject, preconditions: Preconditions = {}): Promise<StoredObject> {
    await this.#ready();
    const ref = refOf(resource, object);
    // Without a resourceVersion precondition an update applies to whatever is current: retry a
    // conflict with a fresh read from the host, as the real registry's GuaranteedUpdate does.
    for (let attempt = 0; ; attempt += 1) {
      const current = attempt === 0 ? await this.#current(ref) : await this.#readHost(ref);
      if (current === undefined) throw new StorageError('NotFound', `${describe(ref)} not found`);
      if (preconditions.uid !== undefined && current.metadata.uid !== preconditions.uid) {
        throw new StorageError('Conflict', `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${String(current.metadata.uid ?? '')}`);
      }
      const expected = preconditions.resourceVersion ?? current.metadata.resourceVersion ?? '';
      const secret = encodeSecret(resource, object, this.#options.namespace, expected);
      try {
        const written = await this.#options.client.update<ManagementSecret>(this.#secretPath(ref), secret);
        return await this.#visible(written);
      } catch (error: unknown) {
        if (isNotFound(error)) throw new StorageError('NotFound', `${describe(ref)} not found`, { cause: error });
        if (!isConflict(error)) throw error;
        if (preconditions.resourceVersion !== undefined || attempt >= 2) throw new StorageError('Conflict', `Operation cannot be fulfilled on ${describe(ref)}: ${CONFLICT_MESSAGE}`, { cause: error });
      }
    }
  }

  async delete(ref: ObjectRef, preconditions: Preconditions = {}): Promise<StoredObject> {
    await this.#ready();
    const current = await this.#current(ref);
    if (current === undefined) throw new StorageError('NotFound', `${describe(ref)} not found`);
    if (preconditions.uid !== undefined && current.metadata.uid !== preconditions.uid) {
      throw new StorageError('Conflict', `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${String(current.metadata.uid ?? '')}`);
    }
    const secretName = secretNameFor(ref);
    // Registered before the call: the watch may report the deletion before the answer arrives.
    let deleted: StoredObject | undefined;
    const gone = this.#wait((change) => {
      if (change === 'closed') return true;
      if (change.secretName === secretName && change.event?.type === 'DELETED') deleted = change.event.object;
      else if (change.relisted === true && !this.#secrets.has(secretName)) deleted = { ...current, metadata: { ...current.metadata, resourceVersion: this.#log.latest } };
      return deleted !== undefined;
    }, this.#options.writeVisibleTimeoutMs);
    try {
      const body = preconditions.resourceVersion !== undefined ? { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: preconditions.resourceVersion } } : undefined;
      await this.#options.client.delete(this.#secretPath(ref), body !== undefined ? { body } : {});
    } catch (error: unknown) {
      gone.cancel();
      if (isNotFound(error)) throw new StorageError('NotFound', `${describe(ref)} not found`, { cause: error });
      if (isConflict(error)) throw new StorageError('Conflict', `Operation cannot be fulfilled on ${describe(ref)}: ${CONFLICT_MESSAGE}`, { cause: error });
      throw error;
    }
    if (!(await gone.done)) this.#lagging('delete', ref);
    this.#throwIfClosed();
    return deleted ?? current;
  }

  async watch(filter: StorageWatchFilter, resourceVersion: string, listener: StorageWatchListener): Promise<StorageWatch> {
    await this.#ready();
    if (!(await this.#waitKnown(resourceVersion))) {
      throw new StorageError('Expired', `too old resource version: ${resourceVersion}`);
    }
    this.#throwIfClosed();
    const replay = this.#log.since(resourceVersion);
    if (replay === undefined) throw new StorageError('Expired', `too old resource version: ${resourceVersion}`);
    const watcher: Watcher = { filter, listener };
    // Replay and registration happen in one turn: no change can fall between them.
    for (const change of replay) {
      if (matches(filter, change.ref)) listener.onEvent({ ...change.event, replayed: true });
    }
    this.#watchers.add(watcher);
    return {
      close: () => {
        this.#watchers.delete(watcher);
      },
      progressResourceVersion: () => this.#log.latest,
    };
  }

  #secretPath(ref: ObjectRef): string {
    return objectPath(CoreResources.secrets, this.#options.namespace, secretNameFor(ref));
  }

  /** The object as the cache has it, or as the host has it when the cache has not seen it yet. */
  async #current(ref: ObjectRef): Promise<StoredObject | undefined> {
    return this.#objects.get(identityKey(ref)) ?? this.#readHost(ref);
  }

  async #readHost(ref: ObjectRef): Promise<StoredObject | undefined> {
    try {
      const secret = await this.#options.client.get<ManagementSecret>(this.#secretPath(ref));
      const decoded = decodeSecret(secret);
      return 'problem' in decoded || identityKey(decoded.ref) !== identityKey(ref) ? undefined : decoded.object;
    } catch (error: unknown) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** The object a write answered with, once the watch has applied that write. */
  async #visible(written: ManagementSecret): Promise<StoredObject> {
    const decoded = decodeSecret(written);
    if ('problem' in decoded) throw new Error(`the host answered a write of a management Secret with an unreadable Secret: ${decoded.problem}`);
    const resourceVersion = written.metadata?.resourceVersion ?? '';
    if (!(await this.#waitKnown(resourceVersion, this.#options.writeVisibleTimeoutMs, true))) this.#lagging('write', decoded.ref);
    this.#throwIfClosed();
    // The cached object when it is still this write's (the same value, shared); a later write by
    // another replica may already have replaced it.
    const cached = this.#objects.get(identityKey(decoded.ref));
    return cached?.metadata.resourceVersion === resourceVersion ? cached : decoded.object;
  }

  #lagging(operation: string, ref: ObjectRef): void {
    this.#options.logger.warn(
      { operation, resource: ref.resource, objectNamespace: ref.namespace, object: ref.name, timeoutMs: this.#options.writeVisibleTimeoutMs },
      'A management write was committed but the watch of the host Secrets did not report it in time; reads may lag behind it',
    );
  }

  /**
   * Resolves true once `resourceVersion` is one the cache has reached (or the store closes), false
   * after `timeoutMs`. With `relistReaches` (a write waiting for its own change) a relist counts
   * too: a watch that broke may never report the change itself, and the list followed the write.
   */
  async #waitKnown(resourceVersion: string, timeoutMs = this.#options.unknownResourceVersionWaitMs, relistReaches = false): Promise<boolean> {
    if (this.#log.has(resourceVersion)) return true;
    const reached = (change: AppliedChange | 'closed'): boolean =>
      change === 'closed' || this.#log.has(resourceVersion) || (relistReaches && change.relisted === true);
    return this.#wait(reached, timeoutMs).done;
  }

  /** Registers `waiter`; `done` resolves true when it finished, false after `timeoutMs` (none when undefined). */
  #wait(waiter: Waiter, timeoutMs: number | undefined): { done: Promise<boolean>; cancel(): void } {
    const clock = this.#options.clock;
    let cancel = (): void => {};
    const done = new Promise<boolean>((resolve) => {
      const entry: Waiter = (change) => {
        if (!waiter(change)) return false;
        if (timer !== undefined) clock.clearTimer(timer);
        resolve(true);
        return true;
      };
      const timer =
        timeoutMs === undefined
          ? undefined
          : clock.setTimer(() => {
              this.#waiters.delete(entry);
              resolve(false);
            }, timeoutMs);
      cancel = () => {
        if (timer !== undefined) clock.clearTimer(timer);
        this.#waiters.delete(entry);
        resolve(false);
      };
      this.#waiters.add(entry);
    });
    return { done, cancel };
  }

  async #ready(): Promise<void> {
    this.#throwIfClosed();
    if (this.#synced) return;
    await this.#wait((change) => change === 'closed' || this.#synced, undefined).done;
    this.#throwIfClosed();
  }

  #throwIfClosed(): void {
    if (this.#closed) throw new StorageError('Closed', `the management store on the Secrets of namespace ${this.#options.namespace} is shut down`);
  }

  #close(): void {
    this.#closed = true;
    for (const waiter of [...this.#waiters]) if (waiter('closed')) this.#waiters.delete(waiter);
    const watchers = [...this.#watchers];
    this.#watchers.clear();
    for (const { listener } of watchers) listener.onClosed('storage-closed');
  }

  #replace(secrets: ManagementSecret[], resourceVersion: string): void {
    const seen = new Set<string>();
    for (const secret of secrets) {
      const name = secret.metadata?.name ?? '';
      seen.add(name);
      this.#apply(this.#secrets.has(name) ? 'MODIFIED' : 'ADDED', secret, false);
    }
    for (const [name, ref] of [...this.#secrets]) {
      if (seen.has(name)) continue;
      const last = this.#objects.get(identityKey(ref));
      if (last !== undefined) this.#record(name, ref, { type: 'DELETED', object: { ...last, metadata: { ...last.metadata, resourceVersion } }, previous: last, replayed: false });
    }
    this.#synced = true;
    this.#advance(resourceVersion, true);
  }

  #apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', secret: ManagementSecret, notify = true): void {
    const name = secret.metadata?.name ?? '';
    const decoded = decodeSecret(secret);
    const known = this.#secrets.get(name);
    if ('problem' in decoded) {
      this.#options.logger.warn({ secret: name, problem: decoded.problem }, 'A labelled management Secret is unreadable; it is ignored until it is fixed or deleted');
      // An unreadable Secret holds no object: whatever it held before is gone.
      if (known !== undefined) this.#forget(name, known, secret.metadata?.resourceVersion ?? this.#log.latest);
    } else {
      const previous = known !== undefined ? this.#objects.get(identityKey(known)) : undefined;
      if (type === 'DELETED') {
        if (previous !== undefined) this.#record(name, decoded.ref, { type: 'DELETED', object: decoded.object, previous, replayed: false });
      } else if (previous?.metadata.resourceVersion !== decoded.object.metadata.resourceVersion) {
        this.#record(name, decoded.ref, { type: previous === undefined ? 'ADDED' : 'MODIFIED', object: decoded.object, ...(previous !== undefined ? { previous } : {}), replayed: false });
      }
    }
    if (notify) this.#advance(secret.metadata?.resourceVersion ?? '');
  }

  #forget(name: string, ref: ObjectRef, resourceVersion: string): void {
    const last = this.#objects.get(identityKey(ref));
    if (last !== undefined) this.#record(name, ref, { type: 'DELETED', object: { ...last, metadata: { ...last.metadata, resourceVersion } }, previous: last, replayed: false });
  }

  /** Applies one change to the cache, appends it to the log and tells the watchers. */
  #record(secretName: string, ref: ObjectRef, event: StorageEvent): void {
    const key = identityKey(ref);
    if (event.type === 'DELETED') {
      this.#objects.delete(key);
      this.#secrets.delete(secretName);
    } else {
      this.#objects.set(key, event.object);
      this.#secrets.set(secretName, ref);
    }
    // The first list's objects are no change a watch could resume before: nothing to replay.
    this.#log.append({ ref, event }, this.#synced);
    for (const { filter, listener } of [...this.#watchers]) {
      if (matches(filter, ref)) listener.onEvent(event);
    }
    this.#notify({ secretName, event });
  }

  /** Records that the cache now reflects `resourceVersion`. */
  #advance(resourceVersion: string, relisted = false): void {
    this.#log.reached(resourceVersion);
    this.#notify({ relisted });
  }

  #notify(change: AppliedChange): void {
    for (const waiter of [...this.#waiters]) if (waiter(change)) this.#waiters.delete(waiter);
  }
}

function matches(filter: StorageWatchFilter, ref: ObjectRef): boolean {
  return ref.resource === filter.resource && (filter.namespace === undefined || filter.namespace === ref.namespace);
}
