import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import { captureLogger, type CapturedLog, type LogLine } from '../../support/log-capture.js';
import { startResourceSyncer, type RunningResourceSyncer as RunningSyncer } from '../../support/resource-syncer-harness.js';
import { ensureNamespace, metricValue, runnableBackends, useSyncBackends, type SyncClusters } from '../../support/sync-harness.js';
import { endpointsFixture } from '../../support/synced-resource-fixtures.js';
import { waitFor } from '../../support/wait-for.js';

const ENDPOINTS = '/api/v1/namespaces/shop/endpoints';

/**
 * What an operator reads when a patch fails the sync of an object: the patch's config path and
 * the expression's own message, once per change of the object however often it is retried (never
 * vcsync's stack), and the same patch named in the SyncError event of the virtual object; and,
 * when the host refuses an object the patches changed, the patches that changed it. What the host
 * refuses is decided by the real kube-apiserver where its binaries are available.
 */
describe.each(runnableBackends('patch failure reports on a real kube-apiserver'))('patch failures name the patch, once per change ($virtual virtual, $host host)', (backends) => {
  const startClusters = useSyncBackends(backends);
  let clusters: SyncClusters;
  let running: RunningSyncer | undefined;
  let log: CapturedLog;
  let warnings: string[];

  beforeEach(async () => {
    clusters = await startClusters();
    await ensureNamespace(clusters.virtualClient, 'shop');
    await clusters.virtualClient.create('/api/v1/namespaces/shop/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } });
    log = captureLogger('debug');
    warnings = [];
  });
  afterEach(async () => {
    await running?.stop();
    running = undefined;
    await clusters.close();
  });

  async function start(patchesYaml: string): Promise<RunningSyncer> {
    running = await startResourceSyncer(clusters, endpointsFixture, {
      configYaml: `sync:\n  toHost:\n    endpoints:\n      patches:\n${patchesYaml}`,
      patchTimeoutMs: 2000,
      events: { warning: (_object, reason, message) => warnings.push(`${reason}: ${message}`) },
      logger: log.logger,
    });
    return running;
  }

  const retries = (run: RunningSyncer): Promise<number> => metricValue(run.registry, 'vcsync_workqueue_retries_total', { name: 'endpoints' });
  /** Lines that carry a stack trace anywhere in their fields. */
  const withStack = (lines: readonly LogLine[]): LogLine[] => lines.filter((line) => /\n\s+at /.test(JSON.stringify(line).replace(/\\n/g, '\n')));
  const failureLines = (): LogLine[] => log.lines.filter((line) => line['key'] === 'shop/web' && (line.level as number) >= 40);

  it('an expression that throws: its config path and message logged once across retries, and named in the event', async () => {
    const run = await start(
      [
        '        - path: metadata.annotations["team"]',
        '          expression: \'value + "-x"\'',
        '        - path: metadata.labels',
        '          expression: value.foo.bar',
      ].join('\n'),
    );
    await clusters.virtualClient.create(ENDPOINTS, {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', labels: { app: 'web' } },
      subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 8080 }] }],
    });
    await waitFor('three retries of the failing object', async () => (await retries(run)) >= 3);
    const event = warnings.find((warning) => warning.startsWith('SyncError: '));
    expect(event).toBe("SyncError: sync.toHost.endpoints.patches[1].expression: TypeError: Cannot read properties of undefined (reading 'bar') (at metadata.labels)");

    // A change of the object (still failing) is reported again, once.
    const before = await retries(run);
    const current = await clusters.virtualClient.get<Endpoints>(`${ENDPOINTS}/web`);
    await clusters.virtualClient.update(`${ENDPOINTS}/web`, { ...current, metadata: { ...current.metadata, labels: { app: 'web', tier: 'front' } } });
    await waitFor('three more retries after the change', async () => (await retries(run)) >= before + 3);
    await run.stop();

    const reported = failureLines();
    expect(reported.map((line) => [line.msg, line['patch'], line['objectPath'], line['reason']])).toEqual([
      ['patch failed; retrying with backoff', 'sync.toHost.endpoints.patches[1].expression', 'metadata.labels', "TypeError: Cannot read properties of undefined (reading 'bar')"],
      ['patch failed; retrying with backoff', 'sync.toHost.endpoints.patches[1].expression', 'metadata.labels', "TypeError: Cannot read properties of undefined (reading 'bar')"],
    ]);
    expect(withStack(log.lines)).toEqual([]);
  });

  it('a host rejection of a patched object names the patches that changed it, in the event and once in the log', async () => {
    const run = await start(
      [
        '        - path: metadata.annotations["team"]',
        '          expression: \'value + "-x"\'',
        '        - path: subsets[*].addresses[*].ip',
        '          expression: \'value === "10.0.0.2" ? "127.0.0.1" : value\'',
      ].join('\n'),
    );
    await clusters.virtualClient.create(ENDPOINTS, {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web' },
      subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 8080 }] }],
    });
    await waitFor('three retries of the refused object', async () => (await retries(run)) >= 3);
    await run.stop();

    const event = warnings.find((warning) => warning.startsWith('SyncError: '));
    expect(event).toContain('subsets[0].addresses[1].ip');
    expect(event).toContain('loopback');
    // The annotation patch found no annotation to change: only the address patch changed the object.
    expect(event).toMatch(/; the host refused the object as changed by the patch sync\.toHost\.endpoints\.patches\[1\]: check what it writes$/);
    const reported = failureLines();
    expect(reported).toHaveLength(1);
    expect(reported[0]?.msg).toBe('the host refused the patched object; retrying with backoff');
    expect(reported[0]?.['patches']).toEqual(['sync.toHost.endpoints.patches[1]']);
    expect(reported[0]?.['reason']).toContain('loopback');
    expect(withStack(log.lines)).toEqual([]);
  });
});
