import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { isAlreadyExists } from '../kube/api-error.js';
import { loadClusterConfig } from '../kube/kube-config.js';
import { RestClient } from '../kube/rest-client.js';
import { startDevCluster, type DevCluster } from '../devcluster/index.js';
import { createLogger } from '../observe/logger.js';
import { dnsLabel, parseLogLevel, type LogLevel } from './option-parsers.js';
import { runSyncerUntilStopped } from './run-syncer.js';

interface DevFlags {
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
 * Adds `vcsync dev`, the embedded default (`npm start`): a virtual and a host devcluster
 * persisted under `--dir`, the syncer on `--config` between them, kubeconfigs written next to
 * the data, and the next commands to type printed.
 */
export function registerDevCommand(program: Command): void {
  program
    .command('dev')
    .description('Run a virtual and a host devcluster with the syncer between them (the embedded default)')
    .addOption(new Option('--dir <dir>', 'where cluster data and kubeconfigs live').default('.vcsync/dev'))
    .addOption(new Option('--config <file>', 'vcluster.yaml of the virtual cluster').default('config/vcluster.yaml'))
    .addOption(new Option('--name <name>', 'name of the virtual cluster (a DNS-1123 label)').default('dev').argParser(dnsLabel))
    .addOption(new Option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent (default: info)').env('VCSYNC_LOG_LEVEL').argParser(parseLogLevel))
    .action(async (flags: DevFlags) => {
      const pretty = process.stdout.isTTY;
      const logger = createLogger({ pretty, ...(flags.logLevel !== undefined ? { level: flags.logLevel } : {}) });
      const dir = resolve(flags.dir);
      await mkdir(dir, { recursive: true });
      const hostNamespace = `vcluster-${flags.name}`;
      const virtual = await startDevCluster({ dataDir: join(dir, 'virtual'), logger: logger.child({ cluster: 'virtual' }) });
      const host = await startDevCluster({ dataDir: join(dir, 'host'), logger: logger.child({ cluster: 'host' }) });
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
                'Press Ctrl-C to stop; cluster data stays in ' + rel + '.',
                '',
              ].join('\n'),
            );
          },
        });
      } finally {
        await Promise.all([virtual.close(), host.close()]);
      }
    });
}
