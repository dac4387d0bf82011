import { type Clock, type TimerHandle } from './clock.js';
import { WorkQueue, workQueueDefaults, type Queue, type WorkQueueOptions } from './work-queue.js';

/** A {@link Queue} that can also add a key later. */
export interface DelayingQueue extends Queue {
  /**
   * Adds `key` after `delayMs` (immediately when ≤ 0). If the key is already waiting for a later
   * time, the earlier time wins; keys waiting are dropped at shutdown.
   */
  addAfter(key: string, delayMs: number): void;
}

/** Options of {@link DelayingWorkQueue}. */
export interface DelayingWorkQueueOptions extends WorkQueueOptions {
  /** The queue to feed; default a new {@link WorkQueue} built from the same options. */
  queue?: Queue;
}

/**
 * The delaying layer: keeps keys with their ready time and one timer (on the injected clock) for
 * the earliest; when it fires, every key that is due is added to the underlying queue, in
 * ready-time order.
 */
export class DelayingWorkQueue implements DelayingQueue {
  readonly #queue: Queue;
  readonly #clock: Clock;
  /** Keys waiting → ready time in ms. */
  readonly #waiting = new Map<string, number>();
  #timer: TimerHandle | undefined;
  #timerDueMs = Infinity;

  constructor(options: DelayingWorkQueueOptions = {}) {
    const resolved = workQueueDefaults(options);
    this.#clock = resolved.clock;
    this.#queue = options.queue ?? new WorkQueue(resolved);
  }

  addAfter(key: string, delayMs: number): void {
    if (this.#queue.shuttingDown()) return;
    if (delayMs <= 0) {
      this.#queue.add(key);
      return;
    }
    const readyAt = this.#clock.now() + delayMs;
    const current = this.#waiting.get(key);
    if (current !== undefined && current <= readyAt) return;
    this.#waiting.set(key, readyAt);
    this.#schedule();
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
    this.#stopTimer();
    this.#waiting.clear();
    this.#queue.shutDown();
  }

  async shutDownWithDrain(): Promise<void> {
    this.#stopTimer();
    this.#waiting.clear();
    await this.#queue.shutDownWithDrain();
  }

  shuttingDown(): boolean {
    return this.#queue.shuttingDown();
  }

  /** Number of keys waiting for their delay to pass. */
  waitingLen(): number {
    return this.#waiting.size;
  }

  #schedule(): void {
    let earliest = Infinity;
    for (const readyAt of this.#waiting.values()) earliest = Math.min(earliest, readyAt);
    if (earliest === this.#timerDueMs) return;
    this.#stopTimer();
    if (earliest === Infinity) return;
    this.#timerDueMs = earliest;
    this.#timer = this.#clock.setTimer(() => this.#fire(), earliest - this.#clock.now());
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerDueMs = Infinity;
    const now = this.#clock.now();
    const due = [...this.#waiting].filter(([, readyAt]) => readyAt <= now).sort((a, b) => a[1] - b[1]);
    for (const [key] of due) {
      this.#waiting.delete(key);
      this.#queue.add(key);
    }
    this.#schedule();
  }

  #stopTimer(): void {
    if (this.#timer !== undefined) this.#clock.clearTimer(this.#timer);
    this.#timer = undefined;
    this.#timerDueMs = Infinity;
  }
}
