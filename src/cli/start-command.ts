import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { BooleanEnvOption, RequiredOption, USAGE_EXIT_CODE } from './cli-options.js';
import { definedOnly, dnsLabel, issuerUrl, parseListenAddress, parseLogLevel, positiveInteger, positiveNumber, signingAlgorithm, type LogLevel } from './option-parsers.js';
import type { KubeConfigSource } from '../kube/kube-config.js';
import { describeReadError } from '../config/load-config-file.js';
import { CommandError } from './command-error.js';

const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

function podNamespace(): string | undefined {
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim() || undefined;
  } catch {
    return undefined; // not in a pod: the flag is then required
  }
}

interface StartFlags {
  config: string;
  name: string;
  hostNamespace?: string;
  virtualKubeconfig: string;
  hostKubeconfig?: string;
  listenMetrics: { host: string; port: number };
  hostQps: number;
  hostBurst: number;
  workers: number;
  leaderElect: boolean;
  leaderElectLeaseDurationMs: number;
  leaderElectRenewDeadlineMs: number;
  leaderElectRetryPeriodMs: number;
  sandboxMemoryMib: number;
  sandboxTimeoutMs: number;
  heapReclaim: boolean;
  logLevel: LogLevel;
  listenManagement?: { host: string; port: number };
  managementTlsCert?: string;
  managementTlsKey?: string;
  managementInsecureHttp?: boolean;
  managementAdminKeyFile?: string;
  managementTokenIssuer?: string;
  managementTokenAlgorithm?: 'RS256' | 'ES256';
  managementMaxWatches?: number;
  managementMaxWatchesPerUser?: number;
  managementMaxConnections?: number;
  managementVirtualQps?: number;
  managementVirtualBurst?: number;
  managementHeadersTimeoutMs?: number;
  managementIdleTimeoutMs?: number;
}

/**
 * Why the management flags cannot run together (undefined: they can): `--listen-management`
 * needs the admin key file and either both TLS files or `--management-insecure-http`.
 */
export function managementFlagsProblem(
  flags: Pick<StartFlags, 'listenManagement' | 'managementTlsCert' | 'managementTlsKey' | 'managementInsecureHttp' | 'managementAdminKeyFile'> & Partial<StartFlags>,
): string | undefined {
  const tlsFiles = [flags.managementTlsCert, flags.managementTlsKey].filter((file) => file !== undefined).length;
  if (flags.listenManagement === undefined) {
    // Any --management-* option set (a switch only when on): it would be silently ignored.
    const given = Object.entries(flags).some(([key, value]) => key.startsWith('management') && value !== undefined && value !== false);
    return given ? 'the --management-* options need --listen-management <host:port> (VCSYNC_LISTEN_MANAGEMENT)' : undefined;
  }
  if (flags.managementInsecureHttp === true && tlsFiles > 0) return '--management-insecure-http serves plain HTTP: drop --management-tls-cert and --management-tls-key, or drop it';
  if (flags.managementInsecureHttp !== true && tlsFiles < 2) {
    return '--listen-management needs --management-tls-cert and --management-tls-key (the serving certificate and key files), or --management-insecure-http to serve plain HTTP';
  }
  if (flags.managementAdminKeyFile === undefined) return '--listen-management needs --management-admin-key-file <file> (where the bootstrap admin key is written on first start)';
  return undefined;
}

/**
 * Why the leader-election timings cannot work together (undefined: they can), as client-go
 * requires: the leader must give up (renew deadline) before its Lease can be taken (lease
 * duration), and retry at least once within the renew deadline.
 */
export function leaderElectionTimingProblem(flags: Pick<StartFlags, 'leaderElectLeaseDurationMs' | 'leaderElectRenewDeadlineMs' | 'leaderElectRetryPeriodMs'>): string | undefined {
  const { leaderElectLeaseDurationMs: lease, leaderElectRenewDeadlineMs: renew, leaderElectRetryPeriodMs: retry } = flags;
  if (renew >= lease) return `--leader-elect-renew-deadline-ms (${renew}) must be smaller than --leader-elect-lease-duration-ms (${lease}): a leader must stop writing before its Lease can be taken`;
  if (retry >= renew) return `--leader-elect-retry-period-ms (${retry}) must be smaller than --leader-elect-renew-deadline-ms (${renew}): the leader must retry renewing before it gives up`;
  return undefined;
}

/**
 * Checks that each kubeconfig file given is readable, before anything starts; throws one
 * {@link CommandError} with a line per unreadable file: `FILE: cannot read the kubeconfig given by
 * --flag (ENV): why`.
 */
async function assertKubeconfigsReadable(files: readonly { path: string | undefined; flag: string; env: string }[]): Promise<void> {
  const problems: string[] = [];
  for (const { path, flag, env } of files) {
    if (path === undefined) continue;
    try {
      await readFile(path);
    } catch (error: unknown) {
      problems.push(`${path}: cannot read the kubeconfig given by ${flag} (${env}): ${describeReadError(error)}`);
    }
  }
  if (problems.length > 0) throw new CommandError(problems);
}

/** Adds `vcsync start`: the production daemon; every flag also reads an environment variable. */
export function registerStartCommand(program: Command): void {
  program
    .command('start')
    .description('Run the syncer next to a virtual cluster (production)')
    .addOption(new Option('--config <file>', 'vcluster.yaml to read and watch').env('VCSYNC_CONFIG').default('/etc/vcsync/vcluster.yaml'))
    .addOption(new RequiredOption('--name <name>', 'name of the virtual cluster (a DNS-1123 label)').env('VCSYNC_NAME').argParser(dnsLabel))
    .addOption(new Option('--host-namespace <namespace>', "host namespace of the virtual cluster (default: the pod's namespace)").env('VCSYNC_HOST_NAMESPACE').argParser(dnsLabel))
    .addOption(new RequiredOption('--virtual-kubeconfig <file>', 'kubeconfig of the virtual cluster').env('VCSYNC_VIRTUAL_KUBECONFIG'))
    .addOption(new Option('--host-kubeconfig <file>', "kubeconfig of the host cluster (default: the pod's service account)").env('VCSYNC_HOST_KUBECONFIG'))
    .addOption(new Option('--listen-metrics <host:port>', 'address of /metrics, /healthz, /livez, /readyz and /syncz (HOST:PORT, :PORT or PORT)').env('VCSYNC_LISTEN_METRICS').default(parseListenAddress('0.0.0.0:8080'), '0.0.0.0:8080').argParser(parseListenAddress))
    .addOption(new Option('--host-qps <n>', 'host API requests per second').env('VCSYNC_HOST_QPS').default(40).argParser(positiveNumber))
    .addOption(new Option('--host-burst <n>', 'host API request burst').env('VCSYNC_HOST_BURST').default(80).argParser(positiveInteger))
    .addOption(new Option('--workers <n>', 'concurrent reconciles').env('VCSYNC_WORKERS').default(10).argParser(positiveInteger))
    .addOption(new BooleanEnvOption('--no-leader-elect', 'sync without taking the Lease (only with a single replica)', 'VCSYNC_NO_LEADER_ELECT'))
    .addOption(new Option('--leader-elect-lease-duration-ms <n>', 'how long a Lease not renewed stays taken before another replica may take it, ms').env('VCSYNC_LEADER_ELECT_LEASE_DURATION_MS').default(15_000).argParser(positiveInteger))
    .addOption(new Option('--leader-elect-renew-deadline-ms <n>', 'how long the leader keeps trying to renew before it stops writing, ms (below the lease duration)').env('VCSYNC_LEADER_ELECT_RENEW_DEADLINE_MS').default(10_000).argParser(positiveInteger))
    .addOption(new Option('--leader-elect-retry-period-ms <n>', 'wait between attempts to take or renew the Lease, ms (below the renew deadline)').env('VCSYNC_LEADER_ELECT_RETRY_PERIOD_MS').default(2_000).argParser(positiveInteger))
    .addOption(new Option('--sandbox-memory-mib <n>', 'heap limit of the patch sandbox, MiB').env('VCSYNC_SANDBOX_MEMORY_MIB').default(32).argParser(positiveInteger))
    .addOption(new Option('--sandbox-timeout-ms <n>', 'time limit of the patches of one object, ms').env('VCSYNC_SANDBOX_TIMEOUT_MS').default(50).argParser(positiveInteger))
    .addOption(new BooleanEnvOption('--no-heap-reclaim', "keep the heap pages of a sync burst instead of giving them back once the process is quiet (V8's memory-saving mode for a few seconds)", 'VCSYNC_NO_HEAP_RECLAIM'))
    .addOption(new Option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent').env('VCSYNC_LOG_LEVEL').default('info').argParser(parseLogLevel))
    .addOption(new Option('--listen-management <host:port>', 'serve the management API (access keys) at this address on every replica (HOST:PORT, :PORT or PORT); off by default').env('VCSYNC_LISTEN_MANAGEMENT').argParser(parseListenAddress))
    .addOption(new Option('--management-tls-cert <file>', "the management API's serving certificate (PEM; reloaded when it changes)").env('VCSYNC_MANAGEMENT_TLS_CERT'))
    .addOption(new Option('--management-tls-key <file>', "the management API's serving key (PEM)").env('VCSYNC_MANAGEMENT_TLS_KEY'))
    .addOption(new BooleanEnvOption('--management-insecure-http', 'serve the management API over plain HTTP (behind a TLS-terminating proxy only)', 'VCSYNC_MANAGEMENT_INSECURE_HTTP'))
    .addOption(new Option('--management-admin-key-file <file>', 'where the bootstrap admin access key is written (0600) on first start').env('VCSYNC_MANAGEMENT_ADMIN_KEY_FILE'))
    .addOption(
      new Option('--management-token-issuer <url>', "`iss` of DirectClusterEndpointTokens: the https URL verifiers reach the management listener's root on (set it with several replicas; default: the listen address)")
        .env('VCSYNC_MANAGEMENT_TOKEN_ISSUER')
        .argParser(issuerUrl),
    )
    .addOption(new Option('--management-token-algorithm <alg>', 'signature algorithm of newly generated DirectClusterEndpointToken signing keys: RS256 (default) or ES256 (kube-config tokens are ES256)').env('VCSYNC_MANAGEMENT_TOKEN_ALGORITHM').argParser(signingAlgorithm))
    .addOption(new Option('--management-max-watches <n>', 'concurrent watches of the management API; more are answered 429 (default: 1000)').env('VCSYNC_MANAGEMENT_MAX_WATCHES').argParser(positiveInteger))
    .addOption(new Option('--management-max-watches-per-user <n>', 'concurrent watches of one user; more are answered 429 (default: 100)').env('VCSYNC_MANAGEMENT_MAX_WATCHES_PER_USER').argParser(positiveInteger))
    .addOption(
      new Option('--management-max-connections <n>', 'open connections of the management listener; at the cap the longest-idle one is closed for a newcomer (default: 2048)')
        .env('VCSYNC_MANAGEMENT_MAX_CONNECTIONS')
        .argParser(positiveInteger),
    )
    .addOption(new Option('--management-headers-timeout-ms <n>', 'a new connection must send a complete request head within this, ms (default: 10000)').env('VCSYNC_MANAGEMENT_HEADERS_TIMEOUT_MS').argParser(positiveInteger))
    .addOption(new Option('--management-idle-timeout-ms <n>', 'a connection with no request in flight is closed after this, ms (default: 60000)').env('VCSYNC_MANAGEMENT_IDLE_TIMEOUT_MS').argParser(positiveInteger))
    .addOption(
      new Option('--management-virtual-qps <n>', "requests per second of the kube configs' certificate requests to the virtual cluster, a budget apart from the syncer's (default: 40; a client-certificate kube config makes 3)")
        .env('VCSYNC_MANAGEMENT_VIRTUAL_QPS')
        .argParser(positiveNumber),
    )
    .addOption(new Option('--management-virtual-burst <n>', 'requests of that budget allowed at once above the rate (default: 80)').env('VCSYNC_MANAGEMENT_VIRTUAL_BURST').argParser(positiveInteger))
    .action(async (flags: StartFlags, command: Command) => {
      const managementProblem = managementFlagsProblem(flags);
      if (managementProblem !== undefined) command.error(`error: ${managementProblem}`, { exitCode: USAGE_EXIT_CODE, code: 'vcsync.invalidOptionCombination' });
      const timingProblem = leaderElectionTimingProblem(flags);
      if (timingProblem !== undefined) command.error(`error: ${timingProblem}`, { exitCode: USAGE_EXIT_CODE, code: 'vcsync.invalidOptionCombination' });
      const hostNamespace = flags.hostNamespace ?? podNamespace();
      if (hostNamespace === undefined) {
        command.error('error: no host namespace: pass --host-namespace (or VCSYNC_HOST_NAMESPACE) when not running in a pod', { exitCode: USAGE_EXIT_CODE, code: 'vcsync.missingHostNamespace' });
      }
      await assertKubeconfigsReadable([
        { path: flags.virtualKubeconfig, flag: '--virtual-kubeconfig', env: 'VCSYNC_VIRTUAL_KUBECONFIG' },
        { path: flags.hostKubeconfig, flag: '--host-kubeconfig', env: 'VCSYNC_HOST_KUBECONFIG' },
      ]);
      // Loaded when the command runs, so usage errors and --help stay fast.
      const [{ createLogger }, { runSyncerUntilStopped }] = await Promise.all([import('../observe/logger.js'), import('./run-syncer.js')]);
      const logger = createLogger({ level: flags.logLevel });
      const host: KubeConfigSource = flags.hostKubeconfig !== undefined ? { kind: 'file', path: flags.hostKubeconfig } : { kind: 'inCluster' };
      await runSyncerUntilStopped({
        configPath: flags.config,
        name: flags.name,
        hostNamespace,
        virtual: { kind: 'file', path: flags.virtualKubeconfig },
        host,
        listenMetrics: flags.listenMetrics,
        hostQps: flags.hostQps,
        hostBurst: flags.hostBurst,
        workers: flags.workers,
        leaderElect: flags.leaderElect,
        leaderElection: { leaseDurationMs: flags.leaderElectLeaseDurationMs, renewDeadlineMs: flags.leaderElectRenewDeadlineMs, retryPeriodMs: flags.leaderElectRetryPeriodMs },
        sandboxMemoryMiB: flags.sandboxMemoryMib,
        sandboxTimeoutMs: flags.sandboxTimeoutMs,
        heapReclaim: flags.heapReclaim,
        ...(flags.listenManagement !== undefined
          ? {
              management: {
                ...flags.listenManagement,
                tls: flags.managementTlsCert !== undefined && flags.managementTlsKey !== undefined ? { certPath: flags.managementTlsCert, keyPath: flags.managementTlsKey } : undefined,
                insecureHttp: flags.managementInsecureHttp === true,
                bootstrapKeyPath: flags.managementAdminKeyFile as string,
                watchLimits: definedOnly({ maxWatches: flags.managementMaxWatches, maxWatchesPerUser: flags.managementMaxWatchesPerUser }),
                connectionLimits: definedOnly({
                  maxConnections: flags.managementMaxConnections,
                  headersTimeoutMs: flags.managementHeadersTimeoutMs,
                  idleTimeoutMs: flags.managementIdleTimeoutMs,
                }),
                virtualBudget: definedOnly({ qps: flags.managementVirtualQps, burst: flags.managementVirtualBurst }),
                tokens: {
                  ...(flags.managementTokenIssuer !== undefined ? { issuer: flags.managementTokenIssuer } : {}),
                  ...(flags.managementTokenAlgorithm !== undefined ? { algorithm: flags.managementTokenAlgorithm } : {}),
                },
              },
            }
          : {}),
        logger,
      });
    });
}
