import { Registry } from 'prom-client';
import { CacheStore, type IndexFunc } from './cache-store.js';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { realClock, sleep, type Clock } from './clock.js';
import type { KubeObject } from './kube-object.js';
import { KubeMetrics, type WatchMetrics } from './metrics.js';
import { objectKey } from './object-key.js';
import { Reflector, type ReflectorOptions, type ReflectorSink } from './reflector.js';
import { silentLogger, type Logger } from '../observe/logger.js';

/**
 * What an informer tells its consumers. Handlers run synchronously, in event order, on the
 * informer's own turn: keep them short (enqueue a key). A handler that throws, or is async and
 * rejects, is logged and counted; the informer and the other handlers carry on. Each call gets the
 * object's key (`namespace/name`); for an added object it is the string the cache holds, so a
 * consumer that keys its own map by it stores no copy of its own.
 */
export interface InformerHandler<T extends KubeObject> {
  /** A new object; `inInitialList` is true while delivering the first list. */
  onAdd?(object: T, inInitialList: boolean, key: string): void | Promise<void>;
  /** A changed object, or the same object re-delivered by a periodic resync (`old === current`). */
  onUpdate?(old: T, current: T, key: string): void | Promise<void>;
  /** A removed object, in its last known state. */
  onDelete?(object: T, key: string): void | Promise<void>;
}

export type { NamedTransform, ObjectTransform } from './reflector.js';

/** Options of {@link Informer}: the reflector's plus the cache's and resync's. */
export interface InformerOptions<T extends KubeObject = KubeObject> extends ReflectorOptions<T> {
  /** Cache indexes by name, for {@link Informer.byIndex} (e.g. `{ namespace: indexByNamespace }`). Default none. */
  indexers?: Record<string, IndexFunc<T>>;
  /** Every cached object is re-delivered to `onUpdate` this often, in ms; 0 disables. Default 36 000 000 (10 h). */
  resyncPeriodMs?: number;
  /** Each resync interval is stretched by up to this random fraction. Default 0.1. */
  resyncJitter?: number;
}

/**
 * Objects of a first list stored and delivered between two turns of the event loop: a list of
 * 50,000 otherwise holds it (and `/readyz`, `/metrics`, the other informers' lists) for the whole
 * store and enqueue, a few hundred ms.
 */
const INITIAL_LIST_CHUNK = 1000;

interface Resolved {
  readonly name: string;
  readonly resyncPeriodMs: number;
  readonly resyncJitter: number;
  readonly random: () => number;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: KubeMetrics;
}

function withDefaults<T extends KubeObject>(options: InformerOptions<T>): Resolved {
  return Object.freeze({
    name: options.name,
    resyncPeriodMs: options.resyncPeriodMs ?? 36_000_000,
    resyncJitter: options.resyncJitter ?? 0.1,
    random: options.random ?? Math.random,
    clock: options.clock ?? realClock,
    logger: (options.logger ?? silentLogger()).child({ informer: options.name }),
    metrics: options.metrics ?? new KubeMetrics(new Registry()),
  });
}

/**
 * A reflector feeding a {@link CacheStore}, with typed handlers and periodic resync. The cache
 * is updated before handlers see a change, so a handler (or a worker it wakes) that reads the
 * cache sees at least that state. A relist delivers adds, updates (changed resourceVersion) and
 * deletes (objects gone while the watch was down) as the difference to the cache.
 */
export class Informer<T extends KubeObject> {
  readonly #options: Resolved;
  readonly #store: CacheStore<T>;
  readonly #reflector: Reflector<T>;
  readonly #metrics: WatchMetrics;
  readonly #handlers = new Set<InformerHandler<T>>();
  #syncWaiters: Array<() => void> = [];

  constructor(options: InformerOptions<T>) {
    this.#options = withDefaults(options);
    this.#store = new CacheStore<T>(options.indexers);
    this.#metrics = this.#options.metrics.watch(this.#options.name);
    const sink: ReflectorSink<T> = {
      replace: (items, resourceVersion) => this.#replace(items, resourceVersion),
      apply: (type, object) => this.#apply(type, object),
      bookmark: (resourceVersion) => this.#store.setResourceVersion(resourceVersion),
    };
    this.#reflector = new Reflector<T>({ ...options, metrics: this.#options.metrics }, sink);
  }

  /** The informer's name (its metrics label). */
  get name(): string {
    return this.#options.name;
  }

  /**
   * Registers `handler`; it first receives an add for every cached object (once synced: all of
   * them; while a first list is being stored: those stored so far, the rest follows). Returns a
   * function that unregisters it.
   */
  addHandler(handler: InformerHandler<T>): () => void {
    this.#handlers.add(handler);
    for (const [key, object] of this.#store.entries()) this.#call('onAdd', () => handler.onAdd?.(object, true, key));
    return () => {
      this.#handlers.delete(handler);
    };
  }

  /** The cached object under `namespace/name` (or `name` when cluster-scoped). */
  get(key: string): T | undefined {
    return this.#store.get(key);
  }

  /** All cached objects. */
  list(): T[] {
    return this.#store.list();
  }

  /** Cached objects whose index `indexName` (one of the `indexers`) yields `value`; throws RangeError for an index it was not given. */
  byIndex(indexName: string, value: string): T[] {
    return this.#store.byIndex(indexName, value);
  }

  /** True once the first list has been stored and delivered. */
  hasSynced(): boolean {
    return this.#store.hasSynced();
  }

  /** Whether the informer's last list or watch request reached the API server (see {@link Reflector.connected}). */
  connected(): boolean {
    return this.#reflector.connected;
  }

  /** The resourceVersion the cache reflects (last list, event or bookmark). */
  get resourceVersion(): string {
    return this.#store.resourceVersion;
  }

  /** Resolves true once synced, or false if `signal` aborts first. */
  async waitForCacheSync(signal: AbortSignal): Promise<boolean> {
    if (this.hasSynced()) return true;
    if (signal.aborted) return false;
    return new Promise<boolean>((resolve) => {
      const onAbort = (): void => resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#syncWaiters.push(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  /** Lists, watches and resyncs until `signal` aborts; resolves after the watch is closed. */
  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.#reflector.run(signal), this.#resyncLoop(signal)]);
  }

  async #resyncLoop(signal: AbortSignal): Promise<void> {
    const { resyncPeriodMs, resyncJitter, random, clock } = this.#options;
    if (resyncPeriodMs <= 0) return;
    while (!signal.aborted) {
      const elapsed = await sleep(clock, resyncPeriodMs * (1 + resyncJitter * random()), signal);
      if (!elapsed) return;
      if (!this.#store.hasSynced()) continue;
      const entries = this.#store.entries();
      this.#options.logger.debug({ objects: entries.length }, 'Resyncing cached objects');
      for (const [key, object] of entries) this.#deliver('onUpdate', (h) => h.onUpdate?.(object, object, key));
    }
  }

  #replace(items: T[], resourceVersion: string): void | Promise<void> {
    if (!this.#store.hasSynced() && this.#store.size === 0 && items.length > INITIAL_LIST_CHUNK) return this.#storeFirstList(items, resourceVersion);
    const initial = !this.#store.hasSynced();
    const delta = this.#store.replace(items, resourceVersion);
    for (const { key, object } of delta.added) this.#deliver('onAdd', (h) => h.onAdd?.(object, initial, key));
    for (const { key, old, current } of delta.updated) this.#deliver('onUpdate', (h) => h.onUpdate?.(old, current, key));
    for (const { key, object } of delta.deleted) this.#deliver('onDelete', (h) => h.onDelete?.(object, key));
    if (initial) {
      const waiters = this.#syncWaiters;
      this.#syncWaiters = [];
      for (const wake of waiters) wake();
    }
  }

  /**
   * A large first list into an empty cache: stored and delivered (as adds) {@link INITIAL_LIST_CHUNK}
   * objects at a time, with a turn of the event loop between chunks; synced after the last. Nothing
   * reads the cache before it is synced, and the reflector waits for this before it watches.
   */
  async #storeFirstList(items: T[], resourceVersion: string): Promise<void> {
    for (let start = 0; start < items.length; start += INITIAL_LIST_CHUNK) {
      if (start > 0) await nextTurn();
      const end = Math.min(items.length, start + INITIAL_LIST_CHUNK);
      for (let index = start; index < end; index += 1) {
        const object = items[index] as T;
        const key = objectKey(object);
        const old = this.#store.upsert(object, key);
        if (old === undefined) this.#deliver('onAdd', (h) => h.onAdd?.(object, true, key));
        else if (old.metadata?.resourceVersion !== object.metadata?.resourceVersion) this.#deliver('onUpdate', (h) => h.onUpdate?.(old, object, key));
      }
    }
    this.#store.markSynced(resourceVersion);
    const waiters = this.#syncWaiters;
    this.#syncWaiters = [];
    for (const wake of waiters) wake();
  }

  #apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): void {
    const resourceVersion = object.metadata?.resourceVersion;
    if (resourceVersion !== undefined) this.#store.setResourceVersion(resourceVersion);
    const key = objectKey(object);
    if (type === 'DELETED') {
      const old = this.#store.delete(key);
      if (old === undefined) return;
      this.#deliver('onDelete', (h) => h.onDelete?.(object, key));
      return;
    }
    const old = this.#store.upsert(object, key);
    if (old === undefined) this.#deliver('onAdd', (h) => h.onAdd?.(object, false, key));
    else this.#deliver('onUpdate', (h) => h.onUpdate?.(old, object, key));
  }

  #deliver(kind: keyof InformerHandler<T>, call: (handler: InformerHandler<T>) => unknown): void {
    for (const handler of [...this.#handlers]) this.#call(kind, () => call(handler));
  }

  #call(kind: string, call: () => unknown): void {
    try {
      const result = call();
      if (result instanceof Promise) {
        result.catch((err: unknown) => this.#handlerFailed(kind, err));
      }
    } catch (err) {
      this.#handlerFailed(kind, err);
    }
  }

  #handlerFailed(kind: string, err: unknown): void {
    this.#metrics.handlerFailed();
    this.#options.logger.error({ err, handler: kind }, 'Informer event handler threw; the event was still applied to the cache');
  }
}
