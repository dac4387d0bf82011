/** Options of {@link Backoff}. */
export interface BackoffOptions {
  /** First delay, in ms. Default 800. */
  initialMs?: number;
  /** Largest delay before jitter, in ms. Default 30 000. */
  maxMs?: number;
  /** Growth per step. Default 2. */
  factor?: number;
  /** Each delay is stretched by up to this fraction at random (0 = exact). Default 0.5. */
  jitter?: number;
  /** Source of randomness in [0, 1). Default `Math.random`. */
  random?: () => number;
}

/**
 * Exponential backoff with jitter: `initialMs`, then ×`factor` per step up to `maxMs`, each delay
 * stretched by a random fraction up to `jitter` (so restarts of many clients spread out).
 * Stateful: {@link Backoff.next} advances, {@link Backoff.reset} starts over.
 */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #factor: number;
  readonly #jitter: number;
  readonly #random: () => number;
  #currentMs: number;

  constructor(options: BackoffOptions = {}) {
    this.#initialMs = options.initialMs ?? 800;
    this.#maxMs = options.maxMs ?? 30_000;
    this.#factor = options.factor ?? 2;
    this.#jitter = options.jitter ?? 0.5;
    this.#random = options.random ?? Math.random;
    this.#currentMs = this.#initialMs;
  }

  /** The next delay in ms (jittered), advancing the sequence. */
  next(): number {
    const base = Math.min(this.#currentMs, this.#maxMs);
    this.#currentMs = Math.min(this.#currentMs * this.#factor, this.#maxMs);
    return base + base * this.#jitter * this.#random();
  }

  /** Starts the sequence over at `initialMs`. */
  reset(): void {
    this.#currentMs = this.#initialMs;
  }
}
