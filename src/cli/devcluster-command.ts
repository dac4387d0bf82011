import { writeFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import { definedOnly, parseListenAddress, parseLogLevel, positiveInteger, type LogLevel } from './option-parsers.js';
import { stopOnSignals } from './stop-on-signals.js';

/** Parsed flags of `vcsync devcluster`. */
interface DevClusterFlags {
  listen: { host: string; port: number };
  dataDir?: string;
  tls?: boolean;
  tlsDir?: string;
  token: string[];
  tokenReviewUrl?: string;
  watchWindow?: number;
  maxWatches?: number;
  maxWatchesPerUser?: number;
  maxConnections?: number;
  headersTimeoutMs?: number;
  idleTimeoutMs?: number;
  kubeconfig?: string;
  logLevel?: LogLevel;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * Registers `vcsync devcluster`: starts one standalone Kubernetes-compatible API server, prints
 * `devcluster listening on <url>`, optionally writes a kubeconfig, and stops cleanly (exit 0) on
 * SIGTERM or SIGINT.
 */
export function registerDevClusterCommand(program: Command): void {
  program
    .command('devcluster')
    .description('Run one standalone Kubernetes-compatible API server (plain HTTP unless --tls)')
    .addOption(new Option('--listen <host:port>', 'address to listen on').default(parseListenAddress('127.0.0.1:6443'), '127.0.0.1:6443').argParser(parseListenAddress))
    .option('--data-dir <dir>', 'keep objects in this directory (durable across restarts); memory only when absent')
    .option('--tls', 'serve HTTPS with client-certificate authentication')
    .option('--tls-dir <dir>', 'where TLS assets are generated or reused (with --tls)', '.vcsync/devcluster-tls')
    .option('--token <token>', 'accept this bearer token (repeatable); enforces authentication', collect, [])
    .option('--token-review-url <url>', 'TokenReview webhook for other bearer tokens')
    .option('--watch-window <n>', 'events retained for watch resume', positiveInteger)
    .option('--max-watches <n>', 'concurrent watches of the server; more are answered 429 (default: 1000)', positiveInteger)
    .option('--max-watches-per-user <n>', 'concurrent watches of one user; more are answered 429 (default: 100)', positiveInteger)
    .option('--max-connections <n>', 'open connections; at the cap the longest-idle one is closed for a newcomer (default: 2048)', positiveInteger)
    .option('--headers-timeout-ms <n>', 'a new connection must send a complete request head within this, ms (default: 10000)', positiveInteger)
    .option('--idle-timeout-ms <n>', 'a connection with no request in flight is closed after this, ms (default: 60000)', positiveInteger)
    .option('--kubeconfig <file>', 'write a kubeconfig for this server to FILE')
    .addOption(new Option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent (default: info)').env('VCSYNC_LOG_LEVEL').argParser(parseLogLevel))
    .action(async (flags: DevClusterFlags) => {
      // Loaded when the command runs, so usage errors and --help stay fast.
      const [{ startDevCluster }, { createLogger }] = await Promise.all([import('../devcluster/index.js'), import('../observe/logger.js')]);
      const logger = createLogger(flags.logLevel !== undefined ? { level: flags.logLevel } : {});
      const cluster = await startDevCluster({
        host: flags.listen.host,
        port: flags.listen.port,
        logger,
        tokens: flags.token,
        ...(flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {}),
        ...(flags.tls === true ? { tls: { dir: flags.tlsDir ?? '.vcsync/devcluster-tls' } } : {}),
        ...(flags.tokenReviewUrl !== undefined ? { tokenReviewUrl: flags.tokenReviewUrl } : {}),
        ...(flags.watchWindow !== undefined ? { watchWindow: flags.watchWindow } : {}),
        watchLimits: definedOnly({ maxWatches: flags.maxWatches, maxWatchesPerUser: flags.maxWatchesPerUser }),
        connectionLimits: definedOnly({ maxConnections: flags.maxConnections, headersTimeoutMs: flags.headersTimeoutMs, idleTimeoutMs: flags.idleTimeoutMs }),
      });
      if (flags.kubeconfig !== undefined) await writeFile(flags.kubeconfig, cluster.kubeConfigYaml(), { mode: 0o600 });
      process.stdout.write(`devcluster listening on ${cluster.url}\n`);
      const stop = stopOnSignals(logger);
      await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
      await cluster.close();
      stop.dispose();
    });
}
