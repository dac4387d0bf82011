import os from 'node:os';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { formatConfigError } from '../config/config-error.js';
import { ConfigMetrics } from '../config/config-metrics.js';
import { ConfigFileWatcher } from '../config/watch-config-file.js';
import { EventRecorder } from '../kube/event-recorder.js';
import { clusterCaPem, loadClusterConfig, type KubeConfigSource } from '../kube/kube-config.js';
import type { LeaderElectorOptions } from '../kube/leader-elector.js';
import { KubeMetrics } from '../kube/metrics.js';
import { RestClient } from '../kube/rest-client.js';
import type { DaemonManagementOptions } from '../management/index.js';
import { Manager, ManagerError } from '../manager/manager.js';
import { HeapReclaimer } from '../manager/heap-reclaimer.js';
import { metricsServerRunnable } from '../manager/metrics-server-runnable.js';
import { SharedInformerFactory } from '../manager/shared-informers.js';
import { readBuildInfo, registerBuildInfoMetric } from '../observe/build-info.js';
import { HealthChecks } from '../observe/health.js';
import { registerHealthMetrics } from '../observe/health-metrics.js';
import type { Logger } from '../observe/logger.js';
import { PatchSandbox } from '../patches/index.js';
import { SandboxMetrics } from '../patches/sandbox-metrics.js';
import { SyncerMetrics } from '../syncer/metrics.js';
import { ReferenceImporter } from '../syncer/reference-importer.js';
import { ResourceSync } from '../syncer/resource-sync.js';
import { SYNCABLE_RESOURCES } from '../syncer/resources.js';
import { buildSyncStates, checkConfig, loadCheckedConfig, reloadSyncStates } from '../syncer/sync-config.js';
import type { SyncableResource } from '../syncer/syncable-resource.js';
import { invalidConfigError } from './command-error.js';
import { stopOnSignals } from './stop-on-signals.js';

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
  /** Give the heap pages of a sync burst back to the system once the process is quiet (`--no-heap-reclaim` turns it off). Default true. */
  heapReclaim?: boolean;
  /** Serve the management API on every replica, storing in host Secrets. Default off. */
  management?: Pick<DaemonManagementOptions, 'host' | 'port' | 'tls' | 'insecureHttp' | 'bootstrapKeyPath' | 'tokens' | 'watchLimits' | 'connectionLimits'> & {
    /** The request budget of the kube configs' calls to the virtual cluster (their own client). Default the client's: 40/s, burst 80. */
    virtualBudget?: { qps?: number; burst?: number };
  };
  logger: Logger;
  /** Called once the metrics endpoint listens (e.g. to print its URL). */
  onListening?: (urls: { metrics: string }) => void;
  /** The resources to sync. Default {@link SYNCABLE_RESOURCES}. */
  resources?: readonly SyncableResource[];
  /** The leader election's timing (the `--leader-elect-*-ms` flags). Default the elector's (client-go's) defaults. */
  leaderElection?: Pick<LeaderElectorOptions, 'leaseDurationMs' | 'renewDeadlineMs' | 'retryPeriodMs' | 'maxRetryBackoffMs'>;
}

/**
 * Runs the syncer until `signal` fires: loads and watches the config, connects to both clusters,
 * and hands the manager its runnables (the metrics and health endpoint, the config watcher, and,
 * leader-gated, the sync of every registered resource). Resolves after every runnable stopped.
 * Throws a {@link CommandError} with the config's located errors (as `vcsync validate` prints
 * them) for a bad config, and the kube package's KubeConfigError for a kubeconfig that cannot be
 * loaded: nothing has been started then. Throws the manager's {@link ManagerError} when a
 * runnable failed or did not stop in time.
 */
export async function runSyncer(options: RunSyncerOptions, signal: AbortSignal): Promise<void> {
  const { logger } = options;
  const resources = options.resources ?? SYNCABLE_RESOURCES;
  // The same check as `vcsync validate` (and as every reload below): what one rejects, all reject.
  const loaded = await loadCheckedConfig(options.configPath, resources);
  if (!loaded.ok) throw invalidConfigError(options.configPath, loaded.errors);
  // Read before anything runs: a kubeconfig that cannot be loaded ends the start with nothing to stop.
  const virtualCluster = loadClusterConfig(options.virtual, { name: 'virtual' });
  const hostCluster = loadClusterConfig(options.host, { name: 'host' });
  const enabled = resources.filter((resource) => resource.enabled(loaded.config));
  const registry = new Registry();
  const sandboxMetrics = new SandboxMetrics(registry);
  const sandbox = new PatchSandbox({
    memoryLimitMiB: options.sandboxMemoryMiB,
    timeoutMs: options.sandboxTimeoutMs,
    logger: logger.child({ component: 'patch-sandbox' }),
    onAbandoned: sandboxMetrics.workerAbandoned,
  });
  const stateOptions = { vclusterName: options.name, hostNamespace: options.hostNamespace, sandbox };
  const initial = buildSyncStates(enabled, loaded, stateOptions);
  if (!initial.ok) {
    sandbox.dispose();
    throw invalidConfigError(options.configPath, initial.errors);
  }

  const build = readBuildInfo();
  collectDefaultMetrics({ register: registry });
  registerBuildInfoMetric(registry, build);
  const kubeMetrics = new KubeMetrics(registry);
  const configMetrics = new ConfigMetrics(registry);
  const virtualClient = new RestClient({
    cluster: virtualCluster,
    logger: logger.child({ cluster: 'virtual' }),
    metrics: kubeMetrics,
  });
  const hostClient = new RestClient({
    cluster: hostCluster,
    qps: options.hostQps,
    burst: options.hostBurst,
    logger: logger.child({ cluster: 'host' }),
    metrics: kubeMetrics,
  });
  const recorder = new EventRecorder({ client: virtualClient, component: 'vcsync', logger, metrics: kubeMetrics });
  const multiNamespace = loaded.config.sync.toHost.namespaces.enabled;
  const sync = new ResourceSync({
    resources: enabled,
    states: initial.states,
    newInformers: (defaults) =>
      new SharedInformerFactory({ clusters: { virtual: virtualClient, host: hostClient }, informerDefaults: { ...defaults, logger, metrics: kubeMetrics } }),
    context: {
      virtualClient,
      hostClient,
      vclusterName: options.name,
      hostWatchNamespace: multiNamespace ? '' : options.hostNamespace,
      events: { warning: (object, reason, message) => recorder.record(object, 'Warning', reason, message) },
      workers: options.workers,
      kubeMetrics,
      logger,
    },
    newImporter: (clients) => new ReferenceImporter({ ...clients, logger: logger.child({ component: 'reference-importer' }) }),
    metrics: new SyncerMetrics(registry),
  });

  // What the management API reads of the config (the ingress of kube configs): the last valid one.
  let currentConfig = loaded.config;
  // Every changed file ends in exactly one verdict, logged and counted: reloaded or rejected.
  const watcher = new ConfigFileWatcher({
    path: options.configPath,
    initialHash: loaded.source.hash,
    logger,
    parse: (text, fileName) => checkConfig(text, fileName, resources),
    onChange: (result) => {
      const next = reloadSyncStates(enabled, result, { ...stateOptions, multiNamespace });
      if (!next.ok) {
        configMetrics.reloaded('rejected');
        logger.error({ valid: false, errors: next.errors.map(formatConfigError) }, 'configuration change rejected; the last valid configuration stays in force');
        return;
      }
      sync.updateStates(next.states);
      if (result.ok) currentConfig = result.config;
      configMetrics.reloaded('applied');
      logger.info({ valid: true, enabled: [...next.states.values()].every((state) => state.enabled) }, 'configuration reloaded');
    },
  });

  // Readiness means "this process can serve" and gates the whole virtual-cluster pod; sync health
  // is reported beside it, never in it (ADR 0007).
  const health = new HealthChecks();
  health.add({ name: 'config', check: () => ({ ready: true }) }); // startup fails without one; reloads keep the last valid one
  health.addSync({ name: 'informers', check: () => sync.informersCheck() });
  registerHealthMetrics(registry, health);
  const manager = new Manager({
    health,
    logger,
    ...(options.leaderElect
      ? {
          leaderElection: {
            ...options.leaderElection,
            client: hostClient,
            leaseName: `vcsync-${options.name}`,
            namespace: options.hostNamespace,
            identity: `${os.hostname()}-${process.pid}`,
            missingNamespaceHint: {
              check: "pass --host-namespace (VCSYNC_HOST_NAMESPACE) naming the virtual cluster's namespace",
              log: 'pass --host-namespace (VCSYNC_HOST_NAMESPACE) naming the namespace the virtual cluster runs in',
            },
            logger,
            metrics: kubeMetrics,
          },
        }
      : {}),
  });
  // The daemon's long-running parts: adding one is one line here.
  manager.add(
    metricsServerRunnable({
      ...options.listenMetrics,
      registry,
      health,
      logger,
      onListening: (url) => {
        options.onListening?.({ metrics: url });
        logger.info({ version: build.version, node: build.nodeVersion, metrics: url, config: options.configPath, name: options.name, hostNamespace: options.hostNamespace }, 'vcsync started');
      },
    }),
  );
  manager.add({ name: 'config-watcher', needsLeader: false, run: (stop) => watcher.run(stop) });
  manager.add(sync);
  // Gives back the heap pages of the initial sync's (or a restart's) burst once it is over.
  if (options.heapReclaim !== false) manager.add(new HeapReclaimer({ registry, logger }));
  const management = options.management;
  // Its own client and request budget: kube-config CSRs must not spend the syncer's, nor wait behind it.
  const kubeConfigClient =
    management === undefined
      ? undefined
      : new RestClient({ cluster: virtualCluster, logger: logger.child({ cluster: 'virtual', component: 'kube-configs' }), metrics: kubeMetrics, ...management.virtualBudget });
  if (management !== undefined && kubeConfigClient !== undefined) {
    const caCertPem = clusterCaPem(virtualCluster) ?? '';
    // Registered before the manager runs, so its series are on the first scrape; only when served.
    const { ManagementMetrics } = await import('../management/management-metrics.js');
    const managementMetrics = new ManagementMetrics(registry);
    manager.add({
      name: 'management-server',
      needsLeader: false,
      run: async (stop) => {
        // Loaded only when served: the management API and its server core are not on the syncer's path to ready.
        const { ingressHostOf, runDaemonManagement } = await import('../management/index.js');
        const virtualClusterAccess = { name: options.name, namespace: options.hostNamespace, ingressHost: () => ingressHostOf(currentConfig), caCertPem, client: kubeConfigClient, watchMetrics: kubeMetrics };
        // The request budget is spent by kubeConfigClient above; the server takes the rest.
        const { virtualBudget, ...serving } = management;
        await runDaemonManagement({ ...serving, virtualCluster: virtualClusterAccess, client: hostClient, namespace: options.hostNamespace, metrics: kubeMetrics, managementMetrics, logger }, stop);
      },
    });
  }

  try {
    await manager.run(signal);
    logger.info('vcsync stopped');
  } finally {
    virtualClient.close();
    kubeConfigClient?.close();
    hostClient.close();
    sandbox.dispose();
  }
}

/** The daemon ended because one of its runnables failed; the message names it and why. */
export class DaemonFailedError extends Error {
  /** Stable code: printed as `vcsync <command>: <message>`, without a stack. */
  readonly code = 'VCSYNC_DAEMON_FAILED';

  constructor(cause: ManagerError) {
    super(cause.message, { cause });
    this.name = 'DaemonFailedError';
  }
}

/**
 * Runs the syncer until SIGTERM or SIGINT (the commands' shared entry). Every error propagates to
 * the command, which prints it once on stderr: a {@link ManagerError} (a runnable failed) becomes
 * a {@link DaemonFailedError}, and is also logged, so the daemon's log says why it ended.
 */
export async function runSyncerUntilStopped(options: RunSyncerOptions): Promise<void> {
  const stop = stopOnSignals(options.logger);
  try {
    await runSyncer(options, stop.signal);
  } catch (error) {
    if (!(error instanceof ManagerError)) throw error;
    options.logger.fatal({ err: error, runnables: error.runnables }, 'vcsync stopped after a failure');
    throw new DaemonFailedError(error);
  } finally {
    stop.dispose();
  }
}
