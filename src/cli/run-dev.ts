import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isAlreadyExists } from '../kube/api-error.js';
import { loadClusterConfig } from '../kube/kube-config.js';
import { RestClient } from '../kube/rest-client.js';
import { startDevCluster, type DevCluster } from '../devcluster/index.js';
import { createLogger } from '../observe/logger.js';
import type { LogLevel } from './option-parsers.js';
import { startDevManagement } from './dev-management.js';
import { runSyncerUntilStopped } from './run-syncer.js';

/** What `vcsync dev` was asked to do. */
export interface DevFlags {
  dir: string;
  config: string;
  name: string;
  logLevel?: LogLevel;
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
 * and the next commands to type printed.
 */
export async function runDev(flags: DevFlags): Promise<void> {
  const pretty = process.stdout.isTTY;
  const logger = createLogger({ pretty, ...(flags.logLevel !== undefined ? { level: flags.logLevel } : {}) });
  const dir = resolve(flags.dir);
  await mkdir(dir, { recursive: true });
  const hostNamespace = `vcluster-${flags.name}`;
  const virtual = await startDevCluster({ dataDir: join(dir, 'virtual'), logger: logger.child({ cluster: 'virtual' }) });
  const host = await startDevCluster({ dataDir: join(dir, 'host'), logger: logger.child({ cluster: 'host' }) });
  const management = await startDevManagement({ dir, logger }).catch(async (error: unknown) => {
    await Promise.all([virtual.close(), host.close()]);
    throw error;
  });
  try {
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
      listenMetrics: { host: '127.0.0.1', port: 0 },
      hostQps: 40,
      hostBurst: 80,
      workers: 10,
      leaderElect: false,
      sandboxMemoryMiB: 32,
      sandboxTimeoutMs: 50,
      logger,
      onListening: ({ metrics }) => {
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
            'Press Ctrl-C to stop; cluster data stays in ' + rel + '.',
            '',
          ].join('\n'),
        );
      },
    });
  } finally {
    await Promise.all([virtual.close(), host.close(), management.close()]);
  }
}
