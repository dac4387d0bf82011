import { DelayingWorkQueue, type DelayingQueue } from './delaying-queue.js';
import type { WorkQueueMetrics } from './metrics.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';
import { workQueueDefaults, type WorkQueueOptions } from './work-queue.js';

/** A {@link DelayingQueue} whose retries wait as a {@link RateLimiter} decides. */
export interface RateLimitingQueue extends DelayingQueue {
  /** Adds `key` after the delay the rate limiter gives it (one more failure of `key`). */
  addRateLimited(key: string): void;
  /** Forgets `key`'s failures (after success); does not remove it from the queue. */
  forget(key: string): void;
  /** Failures of `key` since it was last forgotten. */
  numRequeues(key: string): number;
}

/** Options of {@link RateLimitingWorkQueue}. */
export interface RateLimitingWorkQueueOptions extends WorkQueueOptions {
  /** The retry strategy. Default {@link defaultControllerRateLimiter} on the queue's clock. */
  rateLimiter?: RateLimiter;
  /** The delaying queue to feed; default a new {@link DelayingWorkQueue} built from the same options. */
  queue?: DelayingQueue;
}

/**
 * The top layer of the work queue: plain (dedup, one worker per key) → delaying (`addAfter`) →
 * rate limited (`addRateLimited`, `forget`, `numRequeues`). Controllers use this one.
 */
export class RateLimitingWorkQueue implements RateLimitingQueue {
  readonly #queue: DelayingQueue;
  readonly #limiter: RateLimiter;
  readonly #metrics: WorkQueueMetrics;

  constructor(options: RateLimitingWorkQueueOptions = {}) {
    const resolved = workQueueDefaults(options);
    this.#queue = options.queue ?? new DelayingWorkQueue(resolved);
    this.#limiter = options.rateLimiter ?? defaultControllerRateLimiter(resolved.clock);
    this.#metrics = resolved.metrics.workQueue(resolved.name);
  }

  addRateLimited(key: string): void {
    if (this.#queue.shuttingDown()) return;
    this.#metrics.retried();
    this.#queue.addAfter(key, this.#limiter.when(key));
  }

  forget(key: string): void {
    this.#limiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.#limiter.numRequeues(key);
  }

  addAfter(key: string, delayMs: number): void {
    this.#queue.addAfter(key, delayMs);
  }

  add(key: string): void {
    this.#queue.add(key);
  }

  get(): Promise<string | undefined> {
    return this.#queue.get();
  }

  done(key: string): void {
    this.#queue.done(key);
  }

  len(): number {
    return this.#queue.len();
  }

  shutDown(): void {
    this.#queue.shutDown();
  }

  shutDownWithDrain(): Promise<void> {
    return this.#queue.shutDownWithDrain();
  }

  shuttingDown(): boolean {
    return this.#queue.shuttingDown();
  }
}
