import { ApiError } from '../apimachinery/index.js';

/** Which cap refused a watch (a bounded metric label). */
export type WatchLimitName = 'per_user' | 'global';

/** Caps on concurrent watches, the server's only long-running requests, so watches cannot exhaust its memory. */
export interface WatchLimits {
  /** Open watches of the whole server. Default {@link DEFAULT_WATCH_LIMITS}. */
  maxWatches: number;
  /** Open watches of one user (by username). Default {@link DEFAULT_WATCH_LIMITS}. */
  maxWatchesPerUser: number;
  /** The `Retry-After` of a refusal, in seconds. Default 1, as the real server's overload answers. */
  retryAfterSeconds: number;
}

/** Defaults of {@link WatchLimits}: 1000 watches, 100 per user, retry after 1 s. */
export const DEFAULT_WATCH_LIMITS: Readonly<WatchLimits> = Object.freeze({ maxWatches: 1000, maxWatchesPerUser: 100, retryAfterSeconds: 1 });

/** A validated copy of `limits` over the defaults; throws a RangeError naming a bad value. */
export function watchLimitsWithDefaults(limits: Partial<WatchLimits> = {}): Readonly<WatchLimits> {
  const resolved = { ...DEFAULT_WATCH_LIMITS, ...limits };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return Object.freeze(resolved);
}

/**
 * Counts open watches per user and in total and admits a new one only below both caps. A refusal
 * is a 429 `TooManyRequests` Status naming the cap, with `retryAfterSeconds` (the HTTP layer turns
 * it into a `Retry-After` header). Pure bookkeeping: no I/O, no clock.
 */
export class WatchAdmission {
  readonly #limits: Readonly<WatchLimits>;
  readonly #byUser = new Map<string, number>();
  #total = 0;

  constructor(limits: Readonly<WatchLimits>) {
    this.#limits = limits;
  }

  /** Open watches in total. */
  get open(): number {
    return this.#total;
  }

  /**
   * Takes a slot for `username`'s new watch and returns the function that gives it back
   * (idempotent); at a cap throws a {@link WatchLimitError} (429) and holds nothing.
   */
  admit(username: string): () => void {
    const held = this.#byUser.get(username) ?? 0;
    const { maxWatches, maxWatchesPerUser, retryAfterSeconds } = this.#limits;
    if (held >= maxWatchesPerUser) {
      throw new WatchLimitError(
        'per_user',
        `too many watches: user "${username}" already has ${held} open, the limit per user is ${maxWatchesPerUser}; close watches you no longer read, or retry after ${retryAfterSeconds}s`,
        retryAfterSeconds,
      );
    }
    if (this.#total >= maxWatches) {
      throw new WatchLimitError('global', `too many watches: the server already serves ${this.#total}, its limit is ${maxWatches}; retry after ${retryAfterSeconds}s`, retryAfterSeconds);
    }
    this.#byUser.set(username, held + 1);
    this.#total += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total -= 1;
      const left = (this.#byUser.get(username) ?? 1) - 1;
      if (left === 0) this.#byUser.delete(username);
      else this.#byUser.set(username, left);
    };
  }
}

/** A 429 refusal of a watch, naming the cap it hit. */
export class WatchLimitError extends ApiError {
  readonly limit: WatchLimitName;

  constructor(limit: WatchLimitName, message: string, retryAfterSeconds: number) {
    super('TooManyRequests', message, { retryAfterSeconds });
    this.limit = limit;
  }
}
