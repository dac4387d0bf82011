/** Options of {@link waitFor}. */
export interface WaitOptions {
  /** How long to keep looking, in ms. Default 30 000. */
  timeoutMs?: number;
  /** Pause between looks, in ms. Default 20. */
  intervalMs?: number;
  /**
   * Whether an error thrown by the probe means "look again" (default true: the object may not
   * exist yet, the server may not listen yet). False: the first error fails the wait at once; use
   * it to assert something (an `expect`) at every look while waiting.
   */
  retryErrors?: boolean;
}

/**
 * The one polling helper of the suite: looks at `probe` until it returns a value other than
 * `undefined` or `false`, and returns that value. Fails after `timeoutMs` naming `description`
 * and the message of the probe's last error, so a probe that throws an Error describing what it
 * saw (instead of returning `false`) explains a timeout. Tests wait on conditions, never on
 * sleeps, and never on log text.
 */
export async function waitFor<T>(
  description: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: WaitOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 20;
  const retryErrors = options.retryErrors ?? true;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      if (!retryErrors) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}${detail}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
