import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/observe/logger.js';
import {
  applyPatches,
  compilePatches,
  PatchEvaluationErrorCode,
  PatchSandbox,
  type PatchEnvironment,
  type PatchableObject,
} from '../../../src/patches/index.js';
import { freePorts } from '../../../testbed/free-ports.js';
import { BLOCKING_EXPRESSIONS } from '../../../testbed/fuzz/expression-fuzz.js';
import { createEndpoints, createService, eventsAbout, tempDir } from '../../support/endpoints-fixtures.js';
import { metricSample } from '../../support/metrics.js';
import { startTwoClusters, type TwoClusters } from '../../support/sync-harness.js';
import { startSyncerDaemon, type SyncerDaemon } from '../../support/syncer-daemon.js';
import { waitFor } from '../../support/wait-for.js';

// An expression never holds the daemon. Every expression of BLOCKING_EXPRESSIONS (a
// builtin that never reaches a time-limit check, or V8's fatal out-of-memory path) runs again:
// while it does, the main event loop keeps answering, and its object fails within twice the
// sandbox timeout, after which the sandbox keeps working.

const TIMEOUT_MS = 250;
/** The main loop must answer within this while an expression runs (the figure set for it). */
const ANSWER_MS = 100;
/** What a timer may add to a deadline on this loaded machine, beyond twice the timeout. */
const TIMER_SLACK_MS = 250;

/** Probes the main event loop while `work` runs: an HTTP round trip to a loopback server, back to back. */
async function probedWhile<T>(server: Server, work: () => Promise<T>): Promise<{ result: T; latencies: number[]; elapsedMs: number }> {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const latencies: number[] = [];
  let done = false;
  const probing = (async () => {
    while (!done) {
      const started = performance.now();
      await (await fetch(url)).text();
      latencies.push(performance.now() - started);
    }
  })();
  const started = performance.now();
  const result = await work();
  const elapsedMs = performance.now() - started;
  done = true;
  await probing;
  return { result, latencies, elapsedMs };
}

const sortedMedian = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Infinity;

describe('a blocking expression fails its object and never holds the event loop (PatchSandbox)', () => {
  let server: Server;
  let sandbox: PatchSandbox;
  let env: PatchEnvironment;

  beforeAll(async () => {
    server = createServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    // One worker, so the warm-up below loads the plan into the worker that runs the expression.
    sandbox = new PatchSandbox({ timeoutMs: TIMEOUT_MS, memoryLimitMiB: 16, workers: 1 });
    env = { sandbox, references: { toHost: (reference) => reference, toVirtual: (reference) => reference }, labels: { toHostKey: (key) => key, toVirtualKey: (key) => key } };
  });

  afterAll(async () => {
    sandbox.dispose();
    await new Promise((resolve) => server.close(resolve));
  });

  const endpoints = (annotations: Record<string, string>): PatchableObject => ({
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'web-x-default-x-vc1', namespace: 'vcluster-vc1', annotations },
  });

  it.each(['(() => { for (;;) {} })()', ...BLOCKING_EXPRESSIONS])('%s', async (expression) => {
    const compiled = compilePatches(
      [
        { path: 'metadata.annotations.warm', expression: 'value + "-warm"' },
        { path: 'metadata.annotations.note', expression },
      ],
      { configPath: 'sync.toHost.endpoints.patches', vcluster: { name: 'vc1', namespace: 'vcluster-vc1', config: {} } },
    );
    if (!compiled.ok) throw new Error(compiled.errors.map((error) => error.message).join('; '));
    const plan = compiled.plan;
    // Starts the worker and loads the plan (setup is not the expression's time).
    const warm = await applyPatches(plan, { object: endpoints({ warm: 'w' }), hostObject: null, virtualObject: null }, env);
    expect(warm.ok).toBe(true);

    const { result, latencies, elapsedMs } = await probedWhile(server, () =>
      applyPatches(plan, { object: endpoints({ note: 'n' }), hostObject: null, virtualObject: null }, env));

    expect(result.ok).toBe(false);
    // Stuck workers are killed at twice the timeout; a worker V8 ends on its heap limit says so;
    // a string doubled past V8's longest string throws a RangeError.
    expect(!result.ok && result.error.code).toMatch(new RegExp(`^(${PatchEvaluationErrorCode.TIMEOUT}|${PatchEvaluationErrorCode.MEMORY_LIMIT}|${PatchEvaluationErrorCode.THREW})$`));
    expect(!result.ok && result.error.message).toContain('sync.toHost.endpoints.patches');
    expect(elapsedMs).toBeLessThan(2 * TIMEOUT_MS + TIMER_SLACK_MS);
    // The main loop answered all along: round trips kept coming, typically well within 100 ms
    // (an expression that fails at once, as the doubled string does, leaves no time to probe).
    expect(latencies.length).toBeGreaterThanOrEqual(Math.min(3, Math.floor(elapsedMs / ANSWER_MS)));
    if (latencies.length > 0) expect(sortedMedian(latencies)).toBeLessThan(ANSWER_MS);

    // And the sandbox goes on with a fresh worker.
    const after = await applyPatches(plan, { object: endpoints({ warm: 'again' }), hostObject: null, virtualObject: null }, env);
    expect(after.ok && (after.object['metadata'] as { annotations: Record<string, string> }).annotations).toEqual({ warm: 'again-warm' });
  });
});

describe('a running daemon with a blocking expression keeps answering and records the failure', () => {
  let clusters: TwoClusters;
  let dir: { dir: string; remove: () => Promise<void> };
  let daemon: SyncerDaemon | undefined;

  beforeAll(async () => {
    clusters = await startTwoClusters();
    dir = await tempDir('vcsync-blocking-');
  });

  afterAll(async () => {
    await daemon?.stop();
    await clusters.close();
    await dir.remove();
  });

  it('serves /readyz, /metrics and the management API within 100 ms while new Array(1e8).fill(0) runs, and emits a SyncError event and the patch-error metric', async () => {
    const configPath = path.join(dir.dir, 'vcluster.yaml');
    await writeFile(configPath, [
      'sync:', '  toHost:', '    endpoints:', '      patches:',
      '        - path: metadata.annotations.note', '          expression: new Array(1e8).fill(0)', '',
    ].join('\n'));
    const [managementPort] = await freePorts(1);
    daemon = await startSyncerDaemon(clusters, configPath, {
      logger: silentLogger(),
      sandboxTimeoutMs: TIMEOUT_MS,
      management: { host: '127.0.0.1', port: managementPort as number, insecureHttp: true, bootstrapKeyPath: path.join(dir.dir, 'admin.key') },
    });
    const metricsUrl = daemon.metricsUrl;
    const managementUrl = `http://127.0.0.1:${managementPort}/apis`;
    await waitFor('/syncz 200 and the management API listening', async () =>
      (await fetch(`${metricsUrl}/syncz`)).status === 200 && (await fetch(managementUrl)).status > 0);

    const latencies: Record<'readyz' | 'metrics' | 'management', number[]> = { readyz: [], metrics: [], management: [] };
    const timed = async (name: keyof typeof latencies, url: string): Promise<void> => {
      const started = performance.now();
      const response = await fetch(url);
      await response.text();
      latencies[name].push(performance.now() - started);
      if (name === 'readyz') expect(response.status).toBe(200);
    };
    let probing = true;
    const probes = (async () => {
      while (probing) {
        await timed('readyz', `${metricsUrl}/readyz`);
        await timed('metrics', `${metricsUrl}/metrics`);
        await timed('management', managementUrl);
      }
    })();

    await createService(clusters.virtualClient, 'web');
    await createEndpoints(clusters.virtualClient, 'web', { annotations: { note: 'n' } });
    const [event] = await waitFor('a SyncError event on the virtual Endpoints', async () => {
      const events = (await eventsAbout(clusters.virtualClient, 'default', 'Endpoints', 'web')).filter((e) => e.reason === 'SyncError');
      return events.length > 0 ? events : undefined;
    });
    const errors = await waitFor('the patch-error metric', async () => {
      const value = metricSample(await (await fetch(`${metricsUrl}/metrics`)).text(), 'vcsync_patch_errors_total', { controller: 'endpoints' });
      return value >= 1 ? value : undefined;
    });
    // A few more rounds while the retries (with backoff) run the expression again.
    const rounds = latencies.readyz.length;
    await waitFor('three more probe rounds', () => latencies.readyz.length >= rounds + 3);
    probing = false;
    await probes;

    expect(event?.message).toMatch(/sync\.toHost\.endpoints\.patches/);
    expect(event?.message).toMatch(/twice the sandbox timeout|memory limit/);
    expect(errors).toBeGreaterThanOrEqual(1);
    const abandoned = metricSample(await (await fetch(`${metricsUrl}/metrics`)).text(), 'vcsync_patch_sandbox_workers_abandoned_total', {});
    expect(abandoned).toBeGreaterThanOrEqual(1);
    for (const [name, list] of Object.entries(latencies)) {
      expect(list.length, name).toBeGreaterThanOrEqual(3);
      expect(sortedMedian(list), `${name} median latency (ms) of ${JSON.stringify(list.map(Math.round))}`).toBeLessThan(ANSWER_MS);
    }
  });
});
