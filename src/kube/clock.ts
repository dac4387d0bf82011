/** An opaque handle for a timer started by a {@link Clock}. */
export type TimerHandle = { readonly __timer: unique symbol } | object;

/**
 * Time as the plumbing sees it: wall-clock milliseconds and one-shot timers. Injected everywhere
 * a component waits, so that tests can drive time with {@link FakeClock} instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once after `delayMs` (clamped to ≥ 0). */
  setTimer(callback: () => void, delayMs: number): TimerHandle;
  /** Cancels a timer; cancelling a fired or cancelled timer does nothing. */
  clearTimer(handle: TimerHandle): void;
}

/** The process clock: `Date.now()` and Node timers (unref'd, so they never keep the process alive alone). */
export const realClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimer(callback: () => void, delayMs: number): TimerHandle {
    const timer = setTimeout(callback, Math.max(0, delayMs));
    timer.unref();
    return timer;
  },
  clearTimer(handle: TimerHandle): void {
    clearTimeout(handle as NodeJS.Timeout);
  },
});

/**
 * Resolves after `delayMs` on `clock`, or as soon as `signal` aborts (it never rejects: callers
 * check `signal.aborted` afterwards). Returns true when the full delay elapsed.
 */
export function sleep(clock: Clock, delayMs: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted === true) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clock.clearTimer(timer);
      resolve(false);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
