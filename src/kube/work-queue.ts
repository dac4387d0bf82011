import { Registry } from 'prom-client';
import { realClock, type Clock } from './clock.js';
import { KubeMetrics, type WorkQueueMetrics } from './metrics.js';

/**
 * A work queue of keys with client-go's guarantees:
 * - a key is queued at most once: adding a key that is already waiting does nothing;
 * - a key is never processed by two workers at once: a key added while a worker holds it is
 *   marked dirty and queued again only when that worker calls {@link Queue.done};
 * - keys are handed out in the order they were (first) added.
 */
export interface Queue {
  /** Marks `key` as needing processing. Ignored after shutdown. */
  add(key: string): void;
  /**
   * Waits for a key and hands it to the caller, who must call {@link Queue.done} when finished.
   * Keys still queued at shutdown are handed out; once the queue is empty and shut down,
   * resolves `undefined` (the worker should then exit).
   */
  get(): Promise<string | undefined>;
  /** Ends processing of `key`; if it was re-added meanwhile it is queued again. */
  done(key: string): void;
  /** Number of keys waiting (not counting keys being processed). */
  len(): number;
  /** Stops accepting keys and wakes idle workers (`get` → `undefined` once the queue is empty). */
  shutDown(): void;
  /**
   * Like {@link Queue.shutDown}, then resolves once no key is being processed (every key handed
   * out has been marked done). Keys still waiting are not awaited: workers may keep taking them.
   */
  shutDownWithDrain(): Promise<void>;
  /** True after {@link Queue.shutDown}. */
  shuttingDown(): boolean;
}

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions {
  /** Queue name, the `name` label of its metrics (keep it a fixed word such as `endpoints`). Default `default`. */
  name?: string;
  /** Time source for the queue and work duration metrics. Default the real clock. */
  clock?: Clock;
  /** Metrics sink. Default a private registry (nothing exported). */
  metrics?: KubeMetrics;
  /**
   * Keys handed out between two turns of the event loop: after this many, {@link Queue.get}
   * waits for a macrotask boundary (`setImmediate`) before handing out the next key, so that
   * workers whose reconciles complete without I/O (an initial sync of objects already in sync)
   * cannot starve sockets and timers: `/readyz`, `/metrics` and watch events. Default
   * {@link DEFAULT_YIELD_EVERY}.
   */
  yieldEvery?: number;
}

/** Default {@link WorkQueueOptions.yieldEvery}: one macrotask boundary per 64 keys, a few ms of reconciles without I/O. */
export const DEFAULT_YIELD_EVERY = 64;

interface ResolvedOptions {
  readonly name: string;
  readonly clock: Clock;
  readonly metrics: KubeMetrics;
  readonly yieldEvery: number;
}

/** Fills in {@link WorkQueueOptions} defaults; returns a new frozen object. */
export function workQueueDefaults(options: WorkQueueOptions): ResolvedOptions {
  return Object.freeze({
    name: options.name ?? 'default',
    clock: options.clock ?? realClock,
    metrics: options.metrics ?? new KubeMetrics(new Registry()),
    yieldEvery: options.yieldEvery ?? DEFAULT_YIELD_EVERY,
  });
}

/** The plain {@link Queue}: dedup, one worker per key, re-queue on done, shutdown with drain. */
export class WorkQueue implements Queue {
  readonly #clock: Clock;
  readonly #metrics: WorkQueueMetrics;
  /** Keys waiting, in order; `#head` is the index of the next one. */
  #order: string[] = [];
  #head = 0;
  /** Keys that need processing (waiting, or re-added while processing) → when first added. */
  readonly #dirty = new Map<string, number>();
  /** Keys held by workers → when the worker got them. */
  readonly #processing = new Map<string, number>();
  #waiters: Array<() => void> = [];
  #drainWaiters: Array<() => void> = [];
  #shuttingDown = false;
  readonly #yieldEvery: number;
  /** Keys handed out since the last macrotask boundary this queue waited for. */
  #handedOut = 0;
  /** The pending boundary every `get` waits for once {@link WorkQueueOptions.yieldEvery} keys were handed out. */
  #turn: Promise<void> | undefined;

  constructor(options: WorkQueueOptions = {}) {
    const resolved = workQueueDefaults(options);
    this.#clock = resolved.clock;
    this.#yieldEvery = resolved.yieldEvery;
    this.#metrics = resolved.metrics.workQueue(resolved.name);
    this.#metrics.setInFlightProvider(() => this.#inFlight());
  }

  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#metrics.added();
    this.#dirty.set(key, this.#clock.now());
    if (this.#processing.has(key)) return;
    this.#push(key);
  }

  async get(): Promise<string | undefined> {
    if (this.#handedOut >= this.#yieldEvery) await this.#nextTurn();
    while (this.len() === 0 && !this.#shuttingDown) {
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    const key = this.#shift();
    if (key === undefined) return undefined;
    const now = this.#clock.now();
    const addedAt = this.#dirty.get(key) ?? now;
    this.#metrics.observeQueueSeconds((now - addedAt) / 1000);
    this.#dirty.delete(key);
    this.#processing.set(key, now);
    this.#handedOut += 1;
    return key;
  }

  done(key: string): void {
    const startedAt = this.#processing.get(key);
    if (startedAt === undefined) return;
    this.#processing.delete(key);
    this.#metrics.observeWorkSeconds((this.#clock.now() - startedAt) / 1000);
    if (this.#dirty.has(key)) this.#push(key);
    if (this.#processing.size === 0) this.#wakeDrainWaiters();
  }

  len(): number {
    return this.#order.length - this.#head;
  }

  shutDown(): void {
    this.#shuttingDown = true;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  async shutDownWithDrain(): Promise<void> {
    this.shutDown();
    while (this.#processing.size > 0) {
      await new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
    }
  }

  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  #push(key: string): void {
    this.#order.push(key);
    this.#metrics.setDepth(this.len());
    this.#waiters.shift()?.();
  }

  #shift(): string | undefined {
    if (this.len() === 0) return undefined;
    const key = this.#order[this.#head];
    this.#head += 1;
    if (this.#head > 1024 && this.#head * 2 > this.#order.length) {
      this.#order = this.#order.slice(this.#head);
      this.#head = 0;
    }
    this.#metrics.setDepth(this.len());
    return key;
  }

  /**
   * One shared macrotask boundary: workers resume only after the event loop has run its timers
   * and polled I/O. Every worker waits for it, since one worker looping on resolved promises is
   * enough to keep the loop from turning.
   */
  #nextTurn(): Promise<void> {
    this.#turn ??= new Promise<void>((resolve) => {
      setImmediate(() => {
        this.#turn = undefined;
        this.#handedOut = 0;
        resolve();
      });
    });
    return this.#turn;
  }

  #wakeDrainWaiters(): void {
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const wake of waiters) wake();
  }

  #inFlight(): { unfinishedSeconds: number; longestSeconds: number } {
    const now = this.#clock.now();
    let unfinishedMs = 0;
    let longestMs = 0;
    for (const startedAt of this.#processing.values()) {
      unfinishedMs += now - startedAt;
      longestMs = Math.max(longestMs, now - startedAt);
    }
    return { unfinishedSeconds: unfinishedMs / 1000, longestSeconds: longestMs / 1000 };
  }
}
