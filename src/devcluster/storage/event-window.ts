import type { StoreEvent } from './types.js';

/**
 * The bounded ring of the most recent committed events, in revision order, from which a watch
 * resumes. Pushing beyond the capacity drops the oldest event.
 */
export class EventWindow {
  readonly #capacity: number;
  readonly #ring: (StoreEvent | undefined)[];
  /** Index of the oldest retained event in `#ring`. */
  #start = 0;
  #size = 0;

  /** @param capacity how many events to retain; at least 1. */
  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`event window capacity must be a positive integer, got ${capacity}`);
    }
    this.#capacity = capacity;
    this.#ring = new Array<StoreEvent | undefined>(capacity);
  }

  /** Number of retained events. */
  get size(): number {
    return this.#size;
  }

  /** Appends an event whose revision is greater than every retained one. */
  push(event: StoreEvent): void {
    const newest = this.newest();
    if (newest !== undefined && event.revision <= newest.revision) {
      throw new RangeError(`event revision ${event.revision} is not after ${newest.revision}`);
    }
    if (this.#size < this.#capacity) {
      this.#ring[(this.#start + this.#size) % this.#capacity] = event;
      this.#size++;
      return;
    }
    this.#ring[this.#start] = event;
    this.#start = (this.#start + 1) % this.#capacity;
  }

  /** The oldest retained event, or undefined when nothing is retained. */
  oldest(): StoreEvent | undefined {
    return this.#size === 0 ? undefined : this.#at(0);
  }

  /** The newest retained event, or undefined when nothing is retained. */
  newest(): StoreEvent | undefined {
    return this.#size === 0 ? undefined : this.#at(this.#size - 1);
  }

  /**
   * The retained events with a revision strictly greater than `revision`, oldest first. The
   * iteration sees events pushed while it runs, as long as they are not dropped meanwhile.
   */
  *after(revision: number): Generator<StoreEvent> {
    let last = revision;
    for (;;) {
      // Search again on every step: pushes while the caller handles an event may have moved the
      // ring's start, so a remembered index would be stale.
      const index = this.#firstAfter(last);
      if (index >= this.#size) {
        return;
      }
      const event = this.#at(index);
      last = event.revision;
      yield event;
    }
  }

  /** Offset of the first retained event with a revision greater than `revision` (binary search). */
  #firstAfter(revision: number): number {
    let low = 0;
    let high = this.#size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.#at(middle).revision <= revision) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  }

  #at(offset: number): StoreEvent {
    const event = this.#ring[(this.#start + offset) % this.#capacity];
    if (event === undefined) {
      throw new RangeError(`no event at window offset ${offset}`);
    }
    return event;
  }
}
