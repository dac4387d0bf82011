import { startMetricsServer, type MetricsServerOptions } from '../observe/metrics-server.js';
import type { Runnable } from './runnable.js';

/** Options of {@link metricsServerRunnable}: the server's, and who to tell its URL. */
export interface MetricsServerRunnableOptions extends MetricsServerOptions {
  /** Called once the endpoint listens, with its base URL (e.g. to print it). */
  onListening?: (url: string) => void;
}

/**
 * The metrics and health endpoint as a runnable on every replica (probes reach standbys too):
 * listens when run, closes once the signal fires. Failing to listen fails the runnable.
 */
export function metricsServerRunnable(options: MetricsServerRunnableOptions): Runnable {
  const { onListening, ...serverOptions } = options;
  return {
    name: 'metrics-server',
    needsLeader: false,
    async run(signal: AbortSignal): Promise<void> {
      if (signal.aborted) return;
      const server = await startMetricsServer(serverOptions);
      try {
        onListening?.(server.url);
        if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      } finally {
        await server.close();
      }
    },
  };
}
