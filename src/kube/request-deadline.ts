/** The caller's signal joined with a request timeout; `dispose` must run when the request is over. */
export interface Deadline {
  readonly signal: AbortSignal;
  timedOut(): boolean;
  dispose(): void;
}

/**
 * Links `signal` and a `timeoutMs` timer into one AbortSignal. Written by hand rather than with
 * `AbortSignal.any`, whose dependants a long-lived source signal keeps alive on Node 20.
 */
export function linkDeadline(signal: AbortSignal | undefined, timeoutMs: number): Deadline {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = (): void => controller.abort(signal?.reason);
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`request timed out after ${timeoutMs} ms`));
  }, timeoutMs);
  timer.unref();
  if (signal?.aborted === true) controller.abort(signal.reason);
  else signal?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}
