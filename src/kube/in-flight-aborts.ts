import type { ClientRequest } from 'node:http';

/** Why a tracked request was destroyed: its call's signal aborted (the call rejects with the signal's reason). */
export class CallAbortedError extends Error {
  constructor(reason: unknown) {
    super('the call was aborted', { cause: reason });
    this.name = 'AbortError';
  }
}

/**
 * Destroys in-flight requests when the signal of their call aborts, with one `abort` listener per
 * signal however many requests share it. Passing the signal to `http.request` does the same with
 * a listener on the signal and end-of-stream hooks on the request for every request: a measurable
 * part of a bulk sync's CPU, where every write of a leadership term carries the term's signal.
 *
 * Contract: {@link InFlightAborts.track} destroys `request` at once when `signal` already aborted,
 * else when it aborts before the returned release is called; the release is idempotent. After the
 * release the request is not referenced any more.
 */
export class InFlightAborts {
  readonly #bySignal = new WeakMap<AbortSignal, Set<ClientRequest>>();

  /** Tracks `request` under `signal` until the returned function is called. */
  track(signal: AbortSignal, request: ClientRequest): () => void {
    if (signal.aborted) {
      request.destroy(new CallAbortedError(signal.reason));
      return () => {};
    }
    let requests = this.#bySignal.get(signal);
    if (requests === undefined) {
      const tracked = new Set<ClientRequest>();
      requests = tracked;
      this.#bySignal.set(signal, tracked);
      signal.addEventListener(
        'abort',
        () => {
          this.#bySignal.delete(signal);
          const error = new CallAbortedError(signal.reason);
          for (const inFlight of tracked) inFlight.destroy(error);
          tracked.clear();
        },
        { once: true },
      );
    }
    const set = requests;
    set.add(request);
    return () => {
      set.delete(request);
    };
  }
}
