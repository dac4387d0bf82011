import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { HealthChecks } from './health.js';
import type { Logger } from './logger.js';

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  /** Interface to bind. Default `0.0.0.0` (scraped from outside the pod). */
  host?: string;
  /** Port; 0 picks a free one. Default 8080. */
  port?: number;
  /** The registry `/metrics` exposes. */
  registry: Registry;
  /** The checks `/readyz` runs. */
  health: HealthChecks;
  logger: Logger;
}

/** A running metrics and health endpoint. */
export interface MetricsServer {
  /** e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `/metrics` (Prometheus text format), `/healthz` (the process answers) and `/readyz`
 * (every readiness check passes; 503 with the failing checks otherwise; `?verbose` lists all).
 * Plain node:http: three read-only routes need no framework.
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

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('method not allowed\n');
      return;
    }
    switch (url.pathname) {
      case '/metrics': {
        const body = await registry.metrics();
        response.writeHead(200, { 'content-type': registry.contentType }).end(body);
        return;
      }
      case '/healthz':
      case '/livez':
        response.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
        return;
      case '/readyz': {
        const report = health.report();
        const lines = report.checks
          .filter((c) => !c.ready || url.searchParams.has('verbose'))
          .map((c) => (c.ready ? `[+]${c.name} ok` : `[-]${c.name} failed: ${c.reason ?? 'not ready'}`));
        lines.push(report.ready ? 'readyz check passed' : 'readyz check failed');
        response.writeHead(report.ready ? 200 : 503, { 'content-type': 'text/plain' }).end(lines.join('\n') + '\n');
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
