import type { Clock, TimerHandle } from './clock.js';

interface FakeTimer {
  readonly id: number;
  readonly dueMs: number;
  readonly callback: () => void;
}

/**
 * A {@link Clock} for tests: time stands still until {@link FakeClock.advance} moves it, which
 * fires every due timer in due order (ties in creation order). Timers created by a firing
 * callback fire in the same `advance` call when they fall due within it.
 */
export class FakeClock implements Clock {
  #nowMs: number;
  #nextId = 1;
  #timers = new Map<number, FakeTimer>();

  /** Starts at `startMs` (default 1 000 000 ms, so that `now() - x` stays positive in tests). */
  constructor(startMs = 1_000_000) {
    this.#nowMs = startMs;
  }

  /** The fake current time in ms. */
  now(): number {
    return this.#nowMs;
  }

  /** Schedules `callback` at `now() + max(0, delayMs)`. */
  setTimer(callback: () => void, delayMs: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.set(id, { id, dueMs: this.#nowMs + Math.max(0, delayMs), callback });
    return { id } as TimerHandle;
  }

  /** Cancels a timer made by this clock. */
  clearTimer(handle: TimerHandle): void {
    const id = (handle as { id?: unknown }).id;
    if (typeof id === 'number') this.#timers.delete(id);
  }

  /** Number of timers not yet fired or cancelled. */
  pendingTimers(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, firing due timers one by one at their due time. */
  advance(ms: number): void {
    const target = this.#nowMs + Math.max(0, ms);
    for (;;) {
      const next = this.#earliestDue(target);
      if (next === undefined) break;
      this.#timers.delete(next.id);
      this.#nowMs = next.dueMs;
      next.callback();
    }
    this.#nowMs = target;
  }

  #earliestDue(limitMs: number): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const timer of this.#timers.values()) {
      if (timer.dueMs > limitMs) continue;
      if (best === undefined || timer.dueMs < best.dueMs || (timer.dueMs === best.dueMs && timer.id < best.id)) {
        best = timer;
      }
    }
    return best;
  }
}
