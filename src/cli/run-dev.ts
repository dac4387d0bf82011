import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isAlreadyExists } from '../apimachinery/index.js';
import { loadClusterConfig } from '../kube/kube-config.js';
import { RestClient } from '../kube/rest-client.js';
import { startDevCluster, type DevCluster } from '../devcluster/index.js';
import { createLogger } from '../observe/logger.js';
import type { LogLevel } from './option-parsers.js';
import { deferredCsrClient } from '../management/index.js';
import { startDevManagement } from './dev-management.js';
import { assertDevPortsFree, DEV_LISTEN_HOST, DEV_PORTS_FILE, readDevPorts, writeDevPorts, type DevPorts } from './dev-ports.js';
import { runSyncerUntilStopped } from './run-syncer.js';
import { loadCheckedConfig } from '../syncer/sync-config.js';
import { SYNCABLE_RESOURCES } from '../syncer/resources.js';
import { invalidConfigError } from './command-error.js';

/**
 * How long the virtual devcluster of `vcsync dev` caches token review answers, in ms: a disabled or
 * deleted access key stops working there within this time (a kube-apiserver's default is 120 s).
 */
export const DEV_TOKEN_REVIEW_CACHE_TTL_MS = 10_000;

/** What `vcsync dev` was asked to do. */
export interface DevFlags {
  dir: string;
  config: string;
  name: string;
  logLevel?: LogLevel;
  /** Pick new ports instead of the ones kept in `<dir>/ports.json` (ends tokens issued for the old addresses). */
  newPorts?: boolean;
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

/**
 * The ports to listen on: the ones kept from the last run, each checked free first; none with
 * `--new-ports` (saying on stderr what that ends).
 */
async function keptPorts(dir: string, flags: DevFlags): Promise<DevPorts> {
  const file = join(flags.dir, DEV_PORTS_FILE);
  if (flags.newPorts === true) {
    const old = await readDevPorts(dir).catch(() => ({}));
    if (Object.keys(old).length > 0) {
      process.stderr.write(`vcsync dev: --new-ports: picking new ports instead of those in ${file}; tokens and token-mode kube configs issued for the old addresses stop working\n`);
    }
    return {};
  }
  const ports = await readDevPorts(dir);
  await assertDevPortsFree(ports, file);
  return ports;
}

async function ensureNamespace(cluster: DevCluster, namespace: string): Promise<void> {
  const client = new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: cluster.kubeConfig }, { name: 'dev-setup' }) });
  try {
    await client.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  } finally {
    client.close();
  }
}

/**
 * Runs the embedded default until SIGTERM/SIGINT: a virtual and a host devcluster persisted under
 * `flags.dir`, kubeconfigs written next to the data, the syncer on `flags.config` between them,
 * and the next commands to type printed. Every input that can be checked without starting
 * anything (the config, the kept ports file, each kept port free) is checked first: a failed check
 * ends the command before any server listens or any file or key is written.
 */
export async function runDev(flags: DevFlags): Promise<void> {
  const loaded = await loadCheckedConfig(flags.config, SYNCABLE_RESOURCES);
  if (!loaded.ok) throw invalidConfigError(flags.config, loaded.errors);
  const dir = resolve(flags.dir);
  const kept = await keptPorts(dir, flags);
  const pretty = process.stdout.isTTY;
  const logger = createLogger({ pretty, ...(flags.logLevel !== undefined ? { level: flags.logLevel } : {}) });
  await mkdir(dir, { recursive: true });
  const hostNamespace = `vcluster-${flags.name}`;
  // The management API first: the virtual cluster authenticates bearer tokens through its TokenReview
  // webhook. Its kube configs point at the virtual cluster, which starts next (its TLS address is the
  // dev setup's ingress endpoint).
  const late: { virtual?: DevCluster; client?: RestClient } = {};
  const virtualClient = (): RestClient => {
    if (late.client === undefined) throw new Error('the virtual devcluster is not running yet');
    return late.client;
  };
  const management = await startDevManagement({
    dir,
    ...(kept.management !== undefined ? { port: kept.management } : {}),
    logger,
    virtualCluster: {
      name: flags.name,
      namespace: hostNamespace,
      ingressHost: () => late.virtual?.url,
      get caCertPem(): string {
        return Buffer.from(late.virtual?.kubeConfig.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString('utf8');
      },
      client: deferredCsrClient(() => virtualClient()),
    },
  });
  const clusters: DevCluster[] = [];
  try {
    clusters.push(
      await startDevCluster({
        dataDir: join(dir, 'virtual'),
        host: DEV_LISTEN_HOST,
        port: kept.virtual ?? 0,
        // TLS: kubectl sends no bearer token to a plain-http server, and access keys are bearer tokens.
        tls: { dir: join(dir, 'virtual-tls') },
        tokenReviewUrl: management.server.tokenReviewUrl,
        tokenReviewCaPem: management.caCertPem,
        tokenReviewCacheTtlMs: DEV_TOKEN_REVIEW_CACHE_TTL_MS,
        logger: logger.child({ cluster: 'virtual' }),
      }),
    );
    clusters.push(await startDevCluster({ dataDir: join(dir, 'host'), host: DEV_LISTEN_HOST, port: kept.host ?? 0, logger: logger.child({ cluster: 'host' }) }));
  } catch (error: unknown) {
    await Promise.all([...clusters.map((cluster) => cluster.close()), management.close()]);
    throw error;
  }
  const [virtual, host] = clusters as [DevCluster, DevCluster];
  late.virtual = virtual;
  late.client = new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: virtual.kubeConfig }, { name: 'virtual-kubeconfigs' }), logger: logger.child({ component: 'kube-configs' }) });
  // Kept from now on: the management URL issues tokens, and kube configs name both URLs.
  const ports: DevPorts = { ...kept, management: management.server.port, virtual: portOf(virtual.url), host: portOf(host.url) };
  try {
    await writeDevPorts(dir, ports);
    const virtualKubeconfig = join(dir, 'virtual.kubeconfig');
    const hostKubeconfig = join(dir, 'host.kubeconfig');
    await writeFile(virtualKubeconfig, virtual.kubeConfigYaml(), { mode: 0o600 });
    await writeFile(hostKubeconfig, host.kubeConfigYaml(), { mode: 0o600 });
    await ensureNamespace(host, hostNamespace);
    await runSyncerUntilStopped({
      configPath: flags.config,
      name: flags.name,
      hostNamespace,
      virtual: { kind: 'object', config: virtual.kubeConfig },
      host: { kind: 'object', config: host.kubeConfig },
      listenMetrics: { host: DEV_LISTEN_HOST, port: kept.metrics ?? 0 },
      hostQps: 40,
      hostBurst: 80,
      workers: 10,
      leaderElect: false,
      sandboxMemoryMiB: 32,
      sandboxTimeoutMs: 50,
      logger,
      onListening: ({ metrics }) => {
        writeDevPorts(dir, { ...ports, metrics: portOf(metrics) }).catch((error: unknown) => {
          // The run goes on; only the next restart may pick another metrics port.
          logger.warn({ err: error, file: join(dir, DEV_PORTS_FILE) }, 'Could not keep the metrics port');
        });
        const rel = flags.dir;
        process.stdout.write(
          [
            '',
            `vcsync dev is running: virtual cluster ${virtual.url}, host cluster ${host.url}, metrics ${metrics}/metrics`,
            'Next, in another terminal:',
            `  kubectl --kubeconfig ${rel}/virtual.kubeconfig apply -f config/examples/web-endpoints.yaml`,
            `  kubectl --kubeconfig ${rel}/host.kubeconfig -n ${hostNamespace} get endpoints`,
            `  kubectl --kubeconfig ${rel}/host.kubeconfig -n ${hostNamespace} get endpoints web-x-default-x-${flags.name} -o yaml`,
            ...management.usage,
            `An access key works as a token against the virtual cluster (answers cached ${DEV_TOKEN_REVIEW_CACHE_TTL_MS / 1000} s; a kube-apiserver can use ${rel}/token-review-webhook.kubeconfig):`,
            `  kubectl --server ${virtual.url} --certificate-authority ${rel}/virtual-tls/ca.crt --token <ACCESS_KEY> auth whoami`,
            'A kube config of the virtual cluster for an access key (status.kubeConfig; "spec: {clientCert: true}" for a client certificate):',
            `  curl -sS --cacert ${rel}/management/tls/ca.crt -H 'Authorization: Bearer <ACCESS_KEY>' -H 'Content-Type: application/yaml' --data-binary 'spec: {}' ${management.server.url}/apis/management.loft.sh/v1/namespaces/${hostNamespace}/virtualclusterinstances/${flags.name}/kubeconfig`,
            'Press Ctrl-C to stop; cluster data stays in ' + rel + '.',
            '',
          ].join('\n'),
        );
      },
    });
  } finally {
    late.client.close();
    await Promise.all([virtual.close(), host.close(), management.close()]);
  }
}
