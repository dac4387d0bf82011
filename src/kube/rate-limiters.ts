import type { Clock } from './clock.js';
import { TokenBucket } from './token-bucket.js';

/**
 * Decides how long a key must wait before it is retried. Strategies are small and combined
 * with {@link MaxOfRateLimiter}; all are synchronous and keyed by the queue key.
 */
export interface RateLimiter {
  /** Records one more failure of `key` and returns the delay in ms before it may be retried. */
  when(key: string): number;
  /** Forgets `key`'s failures (call after it succeeds); the next `when` starts from scratch. */
  forget(key: string): void;
  /** How many times `key` has been rate-limited since it was last forgotten. */
  numRequeues(key: string): number;
}

/** Options of {@link ItemExponentialFailureRateLimiter}. */
export interface ItemExponentialFailureRateLimiterOptions {
  /** Delay after the first failure, in ms. Default 5. */
  baseDelayMs?: number;
  /** Upper bound of the delay, in ms. Default 1 000 000 (1000 s). */
  maxDelayMs?: number;
}

/** Per-key exponential backoff: the n-th failure (from 0) waits `baseDelayMs · 2ⁿ`, capped at `maxDelayMs`. */
export class ItemExponentialFailureRateLimiter implements RateLimiter {
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #failures = new Map<string, number>();

  constructor(options: ItemExponentialFailureRateLimiterOptions = {}) {
    this.#baseDelayMs = options.baseDelayMs ?? 5;
    this.#maxDelayMs = options.maxDelayMs ?? 1_000_000;
  }

  when(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    const delay = this.#baseDelayMs * 2 ** failures;
    return Number.isFinite(delay) ? Math.min(delay, this.#maxDelayMs) : this.#maxDelayMs;
  }

  forget(key: string): void {
    this.#failures.delete(key);
  }

  numRequeues(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/** Options of {@link BucketRateLimiter}. */
export interface BucketRateLimiterOptions {
  /** Retries per second across all keys. Default 10. */
  qps?: number;
  /** Retries allowed at once before the rate applies. Default 100. */
  burst?: number;
  /** Time source. Required so that tests control it. */
  clock: Clock;
}

/** An overall token bucket shared by all keys: bounds the total retry rate. It tracks no per-key state. */
export class BucketRateLimiter implements RateLimiter {
  readonly #bucket: TokenBucket;

  constructor(options: BucketRateLimiterOptions) {
    this.#bucket = new TokenBucket({ qps: options.qps ?? 10, burst: options.burst ?? 100, clock: options.clock });
  }

  when(_key: string): number {
    return this.#bucket.reserve();
  }

  forget(_key: string): void {
    // The bucket is shared by all keys: there is nothing per key to forget.
  }

  numRequeues(_key: string): number {
    return 0;
  }
}

/** Combines strategies: the delay is the largest any of them asks for; forget reaches all of them. */
export class MaxOfRateLimiter implements RateLimiter {
  readonly #limiters: readonly RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.#limiters = Object.freeze([...limiters]);
  }

  when(key: string): number {
    let delay = 0;
    for (const limiter of this.#limiters) delay = Math.max(delay, limiter.when(key));
    return delay;
  }

  forget(key: string): void {
    for (const limiter of this.#limiters) limiter.forget(key);
  }

  numRequeues(key: string): number {
    let count = 0;
    for (const limiter of this.#limiters) count = Math.max(count, limiter.numRequeues(key));
    return count;
  }
}

/**
 * client-go's default controller rate limiter: per-key exponential 5 ms · 2ⁿ capped at 1000 s,
 * combined by max with an overall token bucket of 10 qps / burst 100.
 */
export function defaultControllerRateLimiter(clock: Clock): RateLimiter {
  return new MaxOfRateLimiter(
    new ItemExponentialFailureRateLimiter({ baseDelayMs: 5, maxDelayMs: 1_000_000 }),
    new BucketRateLimiter({ qps: 10, burst: 100, clock }),
  );
}
