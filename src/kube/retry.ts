import { isRetryable } from './kube-errors.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { realClock, sleep, type Clock } from './clock.js';

/** Options of {@link retryWhileRetryable}. */
export interface RetryOptions {
  /** Ends the retries: the call then resolves `undefined`. Required. */
  signal: AbortSignal;
  /** Called before each wait with the failure and the wait in ms (log it: the caller knows what it was doing). Required. */
  onRetry: (error: unknown, delayMs: number) => void;
  /** Delays between attempts. Default: 500 ms doubling to 15 s, jittered by up to 20%. */
  backoff?: BackoffOptions;
  /** Time source. Default the real clock. */
  clock?: Clock;
}

/**
 * Runs `attempt` until it resolves, waiting a backoff after each failure the same request may
 * survive later ({@link isRetryable}: no answer, 429, 500, 503, server timeouts). Any other
 * failure rejects at once: retrying cannot mend a refusal. Resolves `undefined` once `signal`
 * aborts (between attempts; an attempt in flight is left to finish or fail).
 */
export async function retryWhileRetryable<T>(attempt: () => Promise<T>, options: RetryOptions): Promise<T | undefined> {
  const backoff = new Backoff({ initialMs: 500, maxMs: 15_000, jitter: 0.2, ...options.backoff });
  const clock = options.clock ?? realClock;
  while (!options.signal.aborted) {
    try {
      return await attempt();
    } catch (error: unknown) {
      if (!isRetryable(error) || options.signal.aborted) throw error;
      const delayMs = backoff.next();
      options.onRetry(error, delayMs);
      await sleep(clock, delayMs, options.signal);
    }
  }
  return undefined;
}
