/**
 * Polls `probe` until it returns a value other than `undefined`/`false`, or fails after
 * `timeoutMs` with the last observation in the message. Tests wait on conditions, never on sleeps.
 */
export async function waitFor<T>(
  description: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
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
