import os from 'node:os';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { ConfigErrorCode, formatConfigError } from '../config/config-error.js';
import { ConfigMetrics } from '../config/config-metrics.js';
import { configErrorAt, type ConfigResult } from '../config/parse-config.js';
import { ConfigFileWatcher } from '../config/watch-config-file.js';
import { EventRecorder } from '../kube/event-recorder.js';
import { loadClusterConfig, type KubeConfigSource } from '../kube/kube-config.js';
import { LeaderElector, type LeaderElectorOptions, type LeaseProblem } from '../kube/leader-elector.js';
import { KubeMetrics } from '../kube/metrics.js';
import { RestClient } from '../kube/rest-client.js';
import { readBuildInfo, registerBuildInfoMetric } from '../observe/build-info.js';
import { HealthChecks, type CheckResult } from '../observe/health.js';
import { registerHealthMetrics } from '../observe/health-metrics.js';
import type { Logger } from '../observe/logger.js';
import { startMetricsServer, type MetricsServer } from '../observe/metrics-server.js';
import { PatchSandbox } from '../patches/index.js';
import { createEndpointsSyncer, type EndpointsSyncer } from '../syncer/endpoints/endpoints-syncer.js';
import { SyncerMetrics } from '../syncer/metrics.js';
import { ReferenceImporter } from '../syncer/reference-importer.js';
import { buildEndpointsSyncState, type BuildSyncStateResult } from '../syncer/sync-state.js';
import { stopOnSignals } from './stop-on-signals.js';
import { checkConfig, loadCheckedConfig, locatePatchErrors } from './config-checks.js';

/** Everything `vcsync start` (and `vcsync dev`) needs to run the syncer. */
export interface RunSyncerOptions {
  /** Path of the vcluster.yaml; watched for changes. */
  configPath: string;
  /** The virtual cluster's name. */
  name: string;
  /** The host namespace all synced objects go to (single-namespace mode). */
  hostNamespace: string;
  virtual: KubeConfigSource;
  host: KubeConfigSource;
  /** Address of the metrics and health endpoint; port 0 picks a free one. */
  listenMetrics: { host: string; port: number };
  /** Host client rate limit (requests/s and burst). vcluster uses 40 / 80. */
  hostQps: number;
  hostBurst: number;
  /** Concurrent reconciles. */
  workers: number;
  /** Take a Lease in the host namespace before syncing, so only one replica writes. */
  leaderElect: boolean;
  /** Patch sandbox heap limit (MiB) and per-object evaluation timeout (ms). */
  sandboxMemoryMiB: number;
  sandboxTimeoutMs: number;
  logger: Logger;
  /** Called once the metrics endpoint listens (e.g. to print its URL). */
  onListening?: (urls: { metrics: string }) => void;
  /** Overrides of the leader election's timing (tests). Default the {@link LeaderElector}'s defaults. */
  leaderElection?: Pick<LeaderElectorOptions, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs' | 'maxRetryBackoffMs'>;
}

/** Thrown when the daemon cannot start; the message is for the operator, as is. */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}

/**
 * Runs the syncer until `signal` fires: loads and watches the config, connects to both clusters,
 * serves metrics and health, optionally elects a leader, and syncs Endpoints. Resolves after the
 * queue drained and every component stopped. Throws {@link StartupError} for a bad config or
 * options (nothing has been started then).
 */
export async function runSyncer(options: RunSyncerOptions, signal: AbortSignal): Promise<void> {
  const { logger } = options;
  // The same check as `vcsync validate` (and as every reload below): what one rejects, all reject.
  const loaded = await loadCheckedConfig(options.configPath);
  if (!loaded.ok) {
    throw new StartupError(`invalid configuration:\n${loaded.errors.map(formatConfigError).join('\n')}`);
  }
  const sandbox = new PatchSandbox({
    memoryLimitMiB: options.sandboxMemoryMiB,
    timeoutMs: options.sandboxTimeoutMs,
    logger: logger.child({ component: 'patch-sandbox' }),
  });
  const buildState = (result: Extract<ConfigResult, { ok: true }>): BuildSyncStateResult =>
    buildEndpointsSyncState({ vclusterName: options.name, hostNamespace: options.hostNamespace, config: result.config, sandbox });
  const initial = buildState(loaded);
  if (!initial.ok) {
    sandbox.dispose();
    throw new StartupError(`invalid configuration:\n${locatePatchErrors(initial.errors, loaded.source).map(formatConfigError).join('\n')}`);
  }

  const build = readBuildInfo();
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerBuildInfoMetric(registry, build);
  const kubeMetrics = new KubeMetrics(registry);
  const syncerMetrics = new SyncerMetrics(registry);
  const configMetrics = new ConfigMetrics(registry);
  const virtualClient = new RestClient({
    cluster: loadClusterConfig(options.virtual, { name: 'virtual' }),
    logger: logger.child({ cluster: 'virtual' }),
    metrics: kubeMetrics,
  });
  const hostClient = new RestClient({
    cluster: loadClusterConfig(options.host, { name: 'host' }),
    qps: options.hostQps,
    burst: options.hostBurst,
    logger: logger.child({ cluster: 'host' }),
    metrics: kubeMetrics,
  });
  const recorder = new EventRecorder({ client: virtualClient, component: 'vcsync', logger, metrics: kubeMetrics });
  const importer = new ReferenceImporter({ virtualClient, hostClient, logger: logger.child({ component: 'reference-importer' }) });
  const multiNamespace = loaded.config.sync.toHost.namespaces.enabled;
  let state = initial.state;
  const controllerMetrics = syncerMetrics.controller('endpoints');
  // A syncer (informers, queue, workers) lives for one leadership term: a queue cannot restart.
  const newSyncer = (): EndpointsSyncer =>
    createEndpointsSyncer({
      virtualClient,
      hostClient,
      vclusterName: options.name,
      hostWatchNamespace: multiNamespace ? '' : options.hostNamespace,
      state,
      events: { warning: (object, reason, message) => recorder.record(object, 'Warning', reason, message) },
      importer,
      workers: options.workers,
      kubeMetrics,
      controllerMetrics,
      logger,
    });
  let syncer: EndpointsSyncer | undefined;
  let leading = !options.leaderElect;
  const runSync = async (syncSignal: AbortSignal): Promise<void> => {
    leading = true;
    syncer = newSyncer();
    try {
      await syncer.run(syncSignal);
    } finally {
      leading = !options.leaderElect;
      syncer = undefined;
    }
  };

  const leaseName = `vcsync-${options.name}`;
  const elector = options.leaderElect
    ? new LeaderElector({
        ...options.leaderElection,
        client: hostClient,
        leaseName,
        namespace: options.hostNamespace,
        identity: `${os.hostname()}-${process.pid}`,
        onStartedLeading: (syncSignal) => runSync(syncSignal),
        onProblemChanged: (problem) => logLeaseProblem(logger, problem, options.hostNamespace),
        logger,
        metrics: kubeMetrics,
      })
    : undefined;
  // Readiness means "this process can serve" and gates the whole virtual-cluster pod; sync health
  // is reported beside it, never in it (ADR 0007).
  const health = new HealthChecks();
  health.add({ name: 'config', check: () => ({ ready: true }) }); // startup fails without one; reloads keep the last valid one
  health.add({ name: 'shutdown', check: () => (signal.aborted ? { ready: false, reason: 'vcsync is shutting down' } : { ready: true }) });
  health.addSync({
    name: 'informers',
    check: () => {
      if (!leading) return { ready: true }; // a standby replica has nothing to be ready for
      if (syncer?.hasSynced() !== true) return { ready: false, reason: 'caches of the virtual and host clusters not synced yet' };
      const disconnected = syncer.disconnected();
      if (disconnected.length > 0) return { ready: false, reason: `lost the API server of informer(s) ${disconnected.join(', ')}; retrying with backoff` };
      return { ready: true };
    },
  });
  if (elector !== undefined) {
    health.addSync({ name: 'leader-election', check: () => leaseCheck(elector.status().problem, leaseName, options.hostNamespace) });
  }
  registerHealthMetrics(registry, health);

  let metricsServer: MetricsServer | undefined;
  try {
    metricsServer = await startMetricsServer({ ...options.listenMetrics, registry, health, logger });
    options.onListening?.({ metrics: metricsServer.url });
    logger.info({ version: build.version, node: build.nodeVersion, metrics: metricsServer.url, config: options.configPath, name: options.name, hostNamespace: options.hostNamespace }, 'vcsync started');

    // Every changed file ends in exactly one verdict, logged and counted: reloaded or rejected.
    const reject = (errors: readonly string[]): void => {
      configMetrics.reloaded('rejected');
      logger.error({ valid: false, errors }, 'configuration change rejected; the last valid configuration stays in force');
    };
    const watcher = new ConfigFileWatcher({
      path: options.configPath,
      initialHash: loaded.source.hash,
      logger,
      parse: checkConfig,
      onChange: (result) => {
        if (!result.ok) {
          reject(result.errors.map(formatConfigError));
          return;
        }
        if (result.config.sync.toHost.namespaces.enabled !== multiNamespace) {
          const error = configErrorAt(
            result.source,
            ['sync', 'toHost', 'namespaces', 'enabled'],
            ConfigErrorCode.NEEDS_RESTART,
            'changing it needs a restart (it changes which host namespaces are watched)',
          );
          reject([formatConfigError(error)]);
          return;
        }
        const next = buildState(result);
        if (!next.ok) {
          reject(locatePatchErrors(next.errors, result.source).map(formatConfigError));
          return;
        }
        state = next.state;
        syncer?.controller.updateState(next.state);
        configMetrics.reloaded('applied');
        logger.info({ valid: true, enabled: next.state.enabled }, 'configuration reloaded');
      },
    });

    await Promise.all([elector !== undefined ? elector.run(signal) : runSync(signal), watcher.run(signal)]);
    logger.info('vcsync stopped');
  } finally {
    await metricsServer?.close();
    virtualClient.close();
    hostClient.close();
    sandbox.dispose();
  }
}

/** The `leader-election` sync check: failing, with what to do, while the Lease cannot be taken. */
function leaseCheck(problem: LeaseProblem | undefined, leaseName: string, hostNamespace: string): CheckResult {
  if (problem === undefined) return { ready: true }; // leading, or standing by behind a live holder
  if (problem.kind === 'namespaceMissing') {
    return {
      ready: false,
      reason: `host namespace ${hostNamespace} does not exist, so the Lease ${leaseName} cannot be taken and nothing is synced: create the namespace, or pass --host-namespace (VCSYNC_HOST_NAMESPACE) naming the virtual cluster's namespace`,
    };
  }
  return { ready: false, reason: `the Lease ${leaseName} cannot be taken or renewed: ${problem.message}; retrying with backoff` };
}

/**
 * Logs the one line an operator needs when the host namespace is missing (the elector calls this
 * once per change of problem, not per retry), and that it is resolved once it is.
 */
function logLeaseProblem(logger: Logger, problem: LeaseProblem | undefined, hostNamespace: string): void {
  if (problem?.kind === 'namespaceMissing') {
    logger.error(
      { hostNamespace },
      'The host namespace does not exist, so vcsync cannot take its Lease and syncs nothing: create the namespace, or pass --host-namespace (VCSYNC_HOST_NAMESPACE) naming the namespace the virtual cluster runs in. Retrying with backoff',
    );
  } else if (problem === undefined) {
    logger.info({ hostNamespace }, 'The Lease can be written again');
  }
}

/**
 * Runs the syncer until SIGTERM or SIGINT (the commands' shared entry): a {@link StartupError} is
 * logged as fatal with exit code 1; anything else propagates (a bug, printed with its stack).
 */
export async function runSyncerUntilStopped(options: RunSyncerOptions): Promise<void> {
  const stop = stopOnSignals(options.logger);
  try {
    await runSyncer(options, stop.signal);
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    options.logger.fatal(error.message);
    process.exitCode = 1;
  } finally {
    stop.dispose();
  }
}
