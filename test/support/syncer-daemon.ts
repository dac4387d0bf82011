import { runSyncer, type RunSyncerOptions } from '../../src/cli/run-syncer.js';
import type { TwoClusters } from './sync-harness.js';

/** A running `runSyncer` (the daemon of `vcsync start`) against two devclusters. */
export interface SyncerDaemon {
  /** Base URL of its metrics and health endpoint. */
  readonly metricsUrl: string;
  /** Stops it and waits until every runnable stopped. */
  stop(): Promise<void>;
}

/**
 * Starts the daemon on `configPath` against `clusters` (virtual cluster `vc1`, test-sized rate
 * limits and sandbox, no leader election unless `overrides` say otherwise); resolves once its
 * metrics endpoint listens, and rejects if it returns before that (a startup failure).
 */
export async function startSyncerDaemon(clusters: TwoClusters, configPath: string, overrides: Partial<RunSyncerOptions> & Pick<RunSyncerOptions, 'logger'>): Promise<SyncerDaemon> {
  const abort = new AbortController();
  let listening: (url: string) => void = () => undefined;
  const url = new Promise<string>((resolve) => (listening = resolve));
  const running = runSyncer(
    {
      configPath,
      name: 'vc1',
      hostNamespace: clusters.hostNamespace,
      virtual: { kind: 'object', config: clusters.virtual.kubeConfig },
      host: { kind: 'object', config: clusters.host.kubeConfig },
      listenMetrics: { host: '127.0.0.1', port: 0 },
      hostQps: 40,
      hostBurst: 80,
      workers: 2,
      leaderElect: false,
      sandboxMemoryMiB: 32,
      sandboxTimeoutMs: 1000,
      onListening: ({ metrics }) => listening(metrics),
      ...overrides,
    },
    abort.signal,
  );
  const metricsUrl = await Promise.race([url, running.then(() => Promise.reject(new Error('runSyncer returned before listening')))]);
  return {
    metricsUrl,
    stop: async () => {
      abort.abort();
      await running;
    },
  };
}
