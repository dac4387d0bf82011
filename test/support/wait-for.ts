/** Options of {@link waitFor} and {@link eventually}. */
export interface WaitOptions {
  /** Default 30 000 for waitFor, 20 000 for eventually. */
  timeoutMs?: number;
  /** Pause between looks. Default 20. */
  intervalMs?: number;
}

/**
 * Polls `probe` until it returns a value other than `undefined`/`false`, or fails after
 * `timeoutMs` with the last error in the message. Tests wait on conditions, never on sleeps.
 * A probe that throws is looked at again (the object may not exist yet).
 */
export async function waitFor<T>(
  description: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const interval = options.intervalMs ?? 20;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? `: last error ${lastError.message}` : '';
      throw new Error(`timed out waiting for ${description}${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/**
 * Polls `read` until `accept` holds for its value and returns that value; fails after `timeoutMs`
 * with the last value in the message. Unlike {@link waitFor}, an error (or a failed `expect`)
 * inside `read` fails at once: use it to assert something at every look while waiting.
 */
export async function eventually<T>(read: () => Promise<T> | T, accept: (value: T) => boolean, what: string, options: WaitOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  const interval = options.intervalMs ?? 20;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(value)}`);
    await new Promise<void>((resolve) => setTimeout(resolve, interval));
  }
}
