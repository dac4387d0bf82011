import type { ClientRequest } from 'node:http';

/**
 * The time limit of one non-watch request, without a timer or AbortController of its own (a
 * controller, its listeners and a timer per request were about 11% of a bulk sync's CPU). Two
 * checks on the request itself: the socket's idle timeout, which Node keeps as one timer per
 * socket and re-arms on activity, fails a server that sends nothing for `timeoutMs` (a hung server
 * fails within the limit); and {@link RequestDeadline.check}, called on each chunk of the answer,
 * fails a server that keeps trickling bytes past `timeoutMs` from the start. A server that answers
 * in part and then stops fails `timeoutMs` after its last byte.
 */
export class RequestDeadline {
  /** The limit, in ms. */
  readonly timeoutMs: number;
  readonly #expiresAt: number;
  #request: ClientRequest | undefined;
  #timedOut = false;

  constructor(timeoutMs: number) {
    this.timeoutMs = timeoutMs;
    this.#expiresAt = performance.now() + timeoutMs;
  }

  /** Applies the limit to `request` (call once, right after creating it). */
  arm(request: ClientRequest): void {
    this.#request = request;
    request.setTimeout(this.timeoutMs, () => this.#expire());
  }

  /** Fails the request when its time is up; called as parts of the answer arrive. */
  check(): void {
    if (performance.now() > this.#expiresAt) this.#expire();
  }

  /** Whether the limit destroyed the request. */
  timedOut(): boolean {
    return this.#timedOut;
  }

  #expire(): void {
    if (this.#timedOut) return;
    this.#timedOut = true;
    this.#request?.destroy(new Error(`request timed out after ${this.timeoutMs} ms`));
  }
}
