import { afterEach, describe, expect, it } from 'vitest';
import { Counter, Registry } from 'prom-client';
import { HealthChecks } from '../../../src/observe/health.js';
import { registerHealthMetrics } from '../../../src/observe/health-metrics.js';
import { silentLogger } from '../../../src/observe/logger.js';
import { startMetricsServer, type MetricsServer } from '../../../src/observe/metrics-server.js';

describe('metrics server', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('serves metrics, liveness and readiness over HTTP', async () => {
    const registry = new Registry();
    const counter = new Counter({ name: 'vcsync_test_total', help: 'test counter', registers: [registry] });
    counter.inc(3);
    let cachesSynced = false;
    const health = new HealthChecks();
    health.add({ name: 'caches', check: () => (cachesSynced ? { ready: true } : { ready: false, reason: 'caches not synced' }) });
    server = await startMetricsServer({ host: '127.0.0.1', port: 0, registry, health, logger: silentLogger() });

    const metrics = await fetch(`${server.url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('vcsync_test_total 3');

    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    const notReady = await fetch(`${server.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.text()).toContain('[-]caches failed: caches not synced');

    cachesSynced = true;
    const ready = await fetch(`${server.url}/readyz?verbose`);
    expect(ready.status).toBe(200);
    expect(await ready.text()).toContain('[+]caches ok');

    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
    expect((await fetch(`${server.url}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('serves sync health on /syncz, lists it in /readyz?verbose without counting it, and exports every check as a gauge', async () => {
    const registry = new Registry();
    let watching = false;
    const health = new HealthChecks();
    health.add({ name: 'config', check: () => ({ ready: true }) });
    health.addSync({ name: 'informers', check: () => (watching ? { ready: true } : { ready: false, reason: 'lost the API server' }) });
    registerHealthMetrics(registry, health);
    server = await startMetricsServer({ host: '127.0.0.1', port: 0, registry, health, logger: silentLogger() });
    const get = async (path: string): Promise<[number, string]> => {
      const response = await fetch(`${server?.url ?? ''}${path}`);
      return [response.status, await response.text()];
    };

    expect(await get('/readyz')).toEqual([200, 'readyz check passed\n']);
    expect(await get('/readyz?verbose')).toEqual([200, '[+]config ok\n[-]sync/informers failed: lost the API server\nreadyz check passed\n']);
    expect(await get('/syncz')).toEqual([503, '[-]informers failed: lost the API server\nsyncz check failed\n']);
    const failing = (await get('/metrics'))[1];
    expect(failing).toContain('vcsync_health_check{check="config",group="readiness"} 1');
    expect(failing).toContain('vcsync_health_check{check="informers",group="sync"} 0');

    watching = true;
    expect(await get('/syncz?verbose')).toEqual([200, '[+]informers ok\nsyncz check passed\n']);
    expect((await get('/metrics'))[1]).toContain('vcsync_health_check{check="informers",group="sync"} 1');
  });

  it('treats a throwing check as not ready and rejects duplicate names', () => {
    const health = new HealthChecks();
    health.add({ name: 'boom', check: () => { throw new Error('exploded'); } });
    expect(health.report()).toEqual({ ready: false, checks: [{ name: 'boom', ready: false, reason: 'exploded' }] });
    expect(() => health.add({ name: 'boom', check: () => ({ ready: true }) })).toThrow(/registered twice/);
    expect(() => health.addSync({ name: 'boom', check: () => ({ ready: true }) })).toThrow(/registered twice/);
  });
});
