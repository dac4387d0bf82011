import { setMaxListeners } from 'node:events';
import type { Logger } from '../observe/logger.js';

/** How long shutdown may take before the process exits anyway, in ms. */
export const SHUTDOWN_DEADLINE_MS = 20_000;

/**
 * An AbortSignal that fires on the first SIGTERM or SIGINT. A second signal, or shutdown taking
 * longer than {@link SHUTDOWN_DEADLINE_MS}, exits at once with code 1 (kubelet's grace period is
 * 30 s by default, so a drained stop fits well within it).
 */
export function stopOnSignals(logger: Logger): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  // Every long-running component of the daemon listens on this one signal.
  setMaxListeners(100, controller.signal);
  let deadline: NodeJS.Timeout | undefined;
  const onSignal = (name: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      logger.warn({ signal: name }, 'second signal, exiting without draining');
      process.exit(1);
    }
    logger.info({ signal: name }, 'stopping: draining work');
    controller.abort();
    deadline = setTimeout(() => {
      logger.error({ deadlineMs: SHUTDOWN_DEADLINE_MS }, 'shutdown took too long, exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      if (deadline !== undefined) clearTimeout(deadline);
    },
  };
}
