import { realClock, sleep, type Clock } from './clock.js';

/** Options of {@link TokenBucket}. */
export interface TokenBucketOptions {
  /** Tokens added per second (the sustained rate). `Infinity` or ≤ 0 disables limiting. Required. */
  qps: number;
  /** Maximum tokens held (the largest burst allowed at once). Default `max(1, ceil(qps))`. */
  burst?: number;
  /** Time source. Default {@link realClock}. */
  clock?: Clock;
}

/**
 * A token bucket like golang.org/x/time/rate's Limiter: it starts full with `burst` tokens and
 * refills at `qps` per second. {@link TokenBucket.reserve} takes a token now and says how long
 * the caller must wait before using it; a run of reservations borrows ahead (the count may go
 * negative), so waiters are served in reservation order at exactly `qps`.
 */
export class TokenBucket {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #lastMs: number | undefined;

  constructor(options: TokenBucketOptions) {
    this.#qps = options.qps;
    this.#burst = Math.max(1, options.burst ?? Math.ceil(options.qps));
    this.#clock = options.clock ?? realClock;
    this.#tokens = this.#burst;
  }

  /** True when the bucket never delays (qps infinite or not positive). */
  get unlimited(): boolean {
    return !Number.isFinite(this.#qps) || this.#qps <= 0;
  }

  /** Takes one token and returns the delay in ms before the caller may proceed (0 = now). */
  reserve(): number {
    if (this.unlimited) return 0;
    this.#refill();
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.#qps) * 1000;
  }

  /** Gives back a token taken by {@link TokenBucket.reserve} that will not be used. */
  cancel(): void {
    if (this.unlimited) return;
    this.#refill();
    this.#tokens = Math.min(this.#burst, this.#tokens + 1);
  }

  /**
   * Waits for a token. Resolves with the ms waited; rejects with the signal's reason if `signal`
   * aborts first (the token is then returned).
   */
  async wait(signal?: AbortSignal): Promise<number> {
    signal?.throwIfAborted();
    const delayMs = this.reserve();
    if (delayMs <= 0) return 0;
    const elapsed = await sleep(this.#clock, delayMs, signal);
    if (!elapsed) {
      this.cancel();
      signal?.throwIfAborted();
    }
    return delayMs;
  }

  #refill(): void {
    const now = this.#clock.now();
    if (this.#lastMs !== undefined && now > this.#lastMs) {
      this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#lastMs) * this.#qps) / 1000);
    }
    this.#lastMs = now;
  }
}
