/**
 * Waits until `condition()` holds, yielding to the event loop between checks; throws after
 * `timeoutMs` of real time with `what` in the message. Never used to pass time on a fake clock.
 */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 5));
  }
}
