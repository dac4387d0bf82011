import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { connectionLimitsWithDefaults, guardConnections } from './connection-guard.js';
import type { HealthChecks, ReadinessReport } from './health.js';
import type { Logger } from './logger.js';

// Required, not imported: an ESM import of node:http builds its facade by reading every export,
// and the lazy WebSocket export then loads undici (~100 ms of start CPU without a snapshot).
const { createServer } = createRequire(import.meta.url)('node:http') as typeof import('node:http');

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  /** Interface to bind. Default `0.0.0.0` (scraped from outside the pod). */
  host?: string;
  /** Port; 0 picks a free one. Default 8080. */
  port?: number;
  /** The registry `/metrics` exposes. */
  registry: Registry;
  /** The checks `/readyz`, `/syncz` and `/livez` run. */
  health: HealthChecks;
  logger: Logger;
}

/** A running metrics and health endpoint. */
export interface MetricsServer {
  /** e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  close(): Promise<void>;
}

/** The paths the metrics server answers; probes and scrapers point at these. */
export const MetricsServerPaths = Object.freeze({
  metrics: '/metrics',
  /** Liveness: the process answers and every liveness check passes. `/livez` is an alias. */
  healthz: '/healthz',
  livez: '/livez',
  /** Readiness: this process can serve (the `readiness` checks). */
  readyz: '/readyz',
  /** Sync health (the `sync` checks); never part of readiness. */
  syncz: '/syncz',
} as const);

/**
 * Serves `/metrics` (Prometheus text format), `/healthz` and `/livez` (the process answers and
 * every liveness check passes; `ok` when so and not verbose, 503 otherwise),
 * `/readyz` (every readiness check passes; 503 otherwise) and `/syncz` (every sync-health check
 * passes; 503 otherwise). As kube-apiserver does, each health endpoint lists its failing checks as
 * `[-]name failed: reason` and, with `?verbose`, the passing ones as `[+]name ok`; `/readyz?verbose`
 * also lists the sync checks as `sync/<name>` lines, which do not change its status (ADR 0007).
 * Plain node:http: a few read-only routes need no framework. The listener keeps the default
 * connection limits (head and idle timeouts, a cap that evicts idle connections), so a flood of
 * idle connections cannot keep probes out.
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { registry, health, logger } = options;
  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error({ err: error }, 'metrics endpoint failed');
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
      response.end('internal error\n');
    });
  });
  guardConnections(server, connectionLimitsWithDefaults());

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('method not allowed\n');
      return;
    }
    const verbose = url.searchParams.has('verbose');
    switch (url.pathname) {
      case MetricsServerPaths.metrics: {
        const body = await registry.metrics();
        response.writeHead(200, { 'content-type': registry.contentType }).end(body);
        return;
      }
      case MetricsServerPaths.healthz:
      case MetricsServerPaths.livez: {
        const report = health.reportGroup('liveness');
        if (report.ready && !verbose) {
          response.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
          return;
        }
        sendReport(response, 'livez', report, checkLines(report, verbose));
        return;
      }
      case MetricsServerPaths.readyz: {
        const report = health.reportGroup('readiness');
        const informational = verbose ? checkLines(health.reportGroup('sync'), true, 'sync/') : [];
        sendReport(response, 'readyz', report, [...checkLines(report, verbose), ...informational]);
        return;
      }
      case MetricsServerPaths.syncz: {
        const report = health.reportGroup('sync');
        sendReport(response, 'syncz', report, checkLines(report, verbose));
        return;
      }
      default:
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8080, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `[+]name ok` / `[-]name failed: reason` lines; passing checks only when `verbose`. */
function checkLines(report: ReadinessReport, verbose: boolean, prefix = ''): string[] {
  return report.checks
    .filter((c) => !c.ready || verbose)
    .map((c) => (c.ready ? `[+]${prefix}${c.name} ok` : `[-]${prefix}${c.name} failed: ${c.reason ?? 'not ready'}`));
}

function sendReport(response: ServerResponse, endpoint: string, report: ReadinessReport, lines: string[]): void {
  lines.push(report.ready ? `${endpoint} check passed` : `${endpoint} check failed`);
  response.writeHead(report.ready ? 200 : 503, { 'content-type': 'text/plain' }).end(lines.join('\n') + '\n');
}
