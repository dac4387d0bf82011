/**
 * Turns between the watches that have a backlog to write (their initial state): each turn lets up
 * to `watchesPerTurn` of them write one burst (until their response buffers past its high-water
 * mark), then yields the event loop (`setImmediate`), so that the requests of other clients are
 * read and answered between bursts instead of after every watch's whole backlog. Watches take
 * turns in the order they asked (first in, first out).
 */
export class WatchWriteTurns {
  readonly #watchesPerTurn: number;
  #waiting: Array<() => void> = [];
  #scheduled = false;

  /** `watchesPerTurn`: how many waiting watches write in one turn. Default 4 (about 64 KiB). */
  constructor(watchesPerTurn = 4) {
    this.#watchesPerTurn = watchesPerTurn;
  }

  /** Resolves when it is the caller's turn to write a burst. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => this.#turn());
    });
  }

  #turn(): void {
    const now = this.#waiting.splice(0, this.#watchesPerTurn);
    for (const resolve of now) resolve();
    if (this.#waiting.length > 0) setImmediate(() => this.#turn());
    else this.#scheduled = false;
  }
}
