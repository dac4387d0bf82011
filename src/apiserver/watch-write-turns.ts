/** Options of {@link WatchWriteTurns}. */
export interface WatchWriteTurnsOptions {
  /** Writing time one turn may take before it yields the event loop, in ms. Default 2. */
  budgetMs?: number;
  /** Clock of the budget, in ms. Default `performance.now`. */
  now?: () => number;
}

/**
 * Turns between the watches that have a backlog to write (their initial state). A turn runs the
 * waiting bursts (each writes until its response buffers past its high-water mark), first in
 * first out, until `budgetMs` of writing has passed, then yields the event loop (`setImmediate`),
 * so that the requests of other clients are read and answered between turns. The budget is time,
 * not a number of watches: bursts cost more on a loaded machine or with larger objects, and a
 * plain GET should wait at most about one budget, however many watches have a backlog.
 */
export class WatchWriteTurns {
  readonly #budgetMs: number;
  readonly #now: () => number;
  #waiting: Array<() => void> = [];
  #scheduled = false;

  constructor(options: WatchWriteTurnsOptions = {}) {
    this.#budgetMs = options.budgetMs ?? 2;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Runs `burst` (synchronous writing) in a turn that has budget left; settles as `burst` did. */
  run(burst: () => void): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push(() => {
        try {
          burst();
          resolve();
        } catch (error: unknown) {
          reject(error);
        }
      });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => this.#turn());
    });
  }

  #turn(): void {
    const deadline = this.#now() + this.#budgetMs;
    // At least one burst per turn, so that every turn makes progress.
    do this.#waiting.shift()?.();
    while (this.#waiting.length > 0 && this.#now() < deadline);
    if (this.#waiting.length > 0) setImmediate(() => this.#turn());
    else this.#scheduled = false;
  }
}
