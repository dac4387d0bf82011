import { rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CommandError } from '../../../src/cli/command-error.js';
import { runSyncer, type RunSyncerOptions } from '../../../src/cli/run-syncer.js';
import { startDevCluster } from '../../../src/devcluster/index.js';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import { freePorts } from '../../../testbed/free-ports.js';
import { createEndpoints, createService, endpointsPath, getHostEndpoints, simpleSubset, tempDir } from '../../support/endpoints-fixtures.js';
import { captureLogger, type CapturedLog } from '../../support/log-capture.js';
import { metricSample } from '../../support/metrics.js';
import { startTwoClusters, type TwoClusters } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';
import { startSyncerDaemon, type SyncerDaemon } from '../../support/syncer-daemon.js';

const ENABLED = 'sync:\n  toHost:\n    endpoints:\n      enabled: true\n';
const DISABLED = 'sync:\n  toHost:\n    endpoints:\n      enabled: false\n';
/** The one line logged while the host namespace is missing (a fixed sentence; the namespace is a field). */
const NAMESPACE_MISSING =
  'The host namespace does not exist, so vcsync cannot take its Lease and syncs nothing: create the namespace, or pass --host-namespace (VCSYNC_HOST_NAMESPACE) naming the namespace the virtual cluster runs in. Retrying with backoff';
/** Fast leader-election timing so that retries happen within a test. */
const FAST_LEASE = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 100, maxRetryBackoffMs: 400 };

// Devcluster only: the reload tests restart the virtual devcluster on its port; the rest drive the
// daemon end to end, which the backend-parameterised suites already cover for the sync itself.
describe('runSyncer: the daemon with a real config file, metrics and health', () => {
  let clusters: TwoClusters;
  let log: CapturedLog;
  let dir: { dir: string; remove: () => Promise<void> };
  let configPath: string;
  let daemon: SyncerDaemon | undefined;
  let metricsUrl: string;

  // The daemon's informers and workers share one signal: no test may see a MaxListenersExceededWarning.
  let warnings: Error[] = [];
  const onWarning = (warning: Error): void => void warnings.push(warning);

  beforeEach(async () => {
    warnings = [];
    process.on('warning', onWarning);
    // The virtual port outside the kernel's ephemeral range: a test restarts the virtual
    // devcluster on it, and meanwhile no outgoing connection can take it as its source port.
    const [virtualPort] = await freePorts(1);
    clusters = await startTwoClusters({ virtual: { port: virtualPort } });
    log = captureLogger();
    dir = await tempDir('vcsync-run-syncer-');
    configPath = path.join(dir.dir, 'vcluster.yaml');
  });

  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    process.off('warning', onWarning);
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
    await clusters.close();
    await dir.remove();
  });

  /** Replaces the config file in one step, as editors and ConfigMap volumes do. */
  const writeConfig = async (text: string): Promise<void> => {
    const temporary = `${configPath}.${Date.now()}.tmp`;
    await writeFile(temporary, text);
    await rename(temporary, configPath);
  };

  const start = async (config: string, overrides: Partial<RunSyncerOptions> = {}): Promise<void> => {
    await writeConfig(config);
    // A startup failure fails the test (startSyncerDaemon rejects), not hangs it on the URL.
    daemon = await startSyncerDaemon(clusters, configPath, { workers: 4, logger: log.logger, ...overrides });
    metricsUrl = daemon.metricsUrl;
  };

  const get = async (path: string): Promise<{ status: number; text: string }> => {
    const response = await fetch(`${metricsUrl}${path}`);
    return { status: response.status, text: await response.text() };
  };
  const scrape = async (name: string, labels: Record<string, string>): Promise<number> => metricSample((await get('/metrics')).text, name, labels);
  const hostCopy = (name: string) => getHostEndpoints(clusters.hostClient, clusters.hostNamespace, name);
  const createPair = async (name: string, options: Parameters<typeof createEndpoints>[2] = {}): Promise<void> => {
    await createService(clusters.virtualClient, name);
    await createEndpoints(clusters.virtualClient, name, options);
  };
  const reloads = (enabled: boolean) => log.matching('configuration reloaded', { enabled }).length;
  const rejections = () => log.matching('configuration change rejected; the last valid configuration stays in force').length;
  /** Reconciles skipped because endpoints sync is turned off, from /metrics. */
  const disabledSkips = () => scrape('vcsync_sync_skips_total', { controller: 'endpoints', cause: 'disabled' });
  /** Watch events the virtual informers received so far: what the syncer has been told of. */
  const virtualEvents = async () => ({
    endpointsAdded: await scrape('vcsync_watch_events_total', { informer: 'virtual-endpoints', type: 'ADDED' }),
    endpointsModified: await scrape('vcsync_watch_events_total', { informer: 'virtual-endpoints', type: 'MODIFIED' }),
    servicesAdded: await scrape('vcsync_watch_events_total', { informer: 'virtual-services', type: 'ADDED' }),
  });
  /** Every key added to the endpoints queue has been reconciled (each add is taken and done once). */
  const queueDrained = async () =>
    (await scrape('vcsync_workqueue_adds_total', { name: 'endpoints' })) === (await scrape('vcsync_workqueue_work_duration_seconds_count', { name: 'endpoints' }));

  it('serves /syncz once synced and /metrics with the sync operation counters', async () => {
    await start(ENABLED);
    await waitFor('/syncz 200', async () => (await fetch(`${metricsUrl}/syncz`)).status === 200);
    await createPair('web');
    await waitFor('host copy', () => hostCopy('web'));
    const text = await waitFor('created counted on /metrics', async () => {
      const body = await (await fetch(`${metricsUrl}/metrics`)).text();
      return /vcsync_sync_operations_total\{controller="endpoints",result="created"\} [1-9]/.test(body) ? body : undefined;
    });
    expect(text).toContain('# TYPE vcsync_sync_operations_total counter');
    expect(text).toMatch(/vcsync_sync_operations_total\{controller="endpoints",result="terminal_error"\} 0/);
  });

  it('turning endpoints sync off stops syncing and leaves host objects alone; turning it on syncs again', async () => {
    await start(ENABLED);
    await createPair('web', { subsets: [simpleSubset('10.0.0.1')] });
    await waitFor('host copy', () => hostCopy('web'));

    await writeConfig(DISABLED);
    await waitFor('reload with sync disabled applied', async () => (await scrape('vcsync_config_reloads_total', { result: 'applied' })) === 1);
    expect(reloads(false)).toBe(1);
    await waitFor('existing keys reconciled as disabled', async () => (await disabledSkips()) >= 1 && (await queueDrained()));
    const before = await disabledSkips();
    const seen = await virtualEvents();
    await createPair('late');
    await clusters.virtualClient.patch(endpointsPath('default', 'web'), 'merge', { subsets: [simpleSubset('10.0.0.2')] });
    // State, not log text: the informers were told of the new Service and Endpoints and of the
    // change, every key they queued has been reconciled, and the reconciles of late and web skipped as disabled.
    await waitFor('the new object and the change reconciled as disabled', async () => {
      const now = await virtualEvents();
      const told = now.endpointsAdded > seen.endpointsAdded && now.endpointsModified > seen.endpointsModified && now.servicesAdded > seen.servicesAdded;
      return told && (await queueDrained()) && (await disabledSkips()) >= before + 2;
    });
    expect(await hostCopy('late')).toBeUndefined();
    const untouched = await hostCopy('web');
    expect(untouched?.subsets).toEqual([simpleSubset('10.0.0.1')]);

    await writeConfig(ENABLED);
    await waitFor('reload with sync enabled applied', async () => (await scrape('vcsync_config_reloads_total', { result: 'applied' })) === 2);
    expect(reloads(true)).toBe(1);
    await waitFor('the late object synced', () => hostCopy('late'));
    await waitFor('the change made while disabled synced', async () => (await hostCopy('web'))?.subsets?.[0]?.addresses?.[0]?.ip === '10.0.0.2');
  });

  it('rejects an invalid change (YAML syntax, unknown key, bad patch) and keeps the last good config in force', async () => {
    await start(ENABLED);
    // Each bad file would also disable syncing if it were applied.
    const bad = [
      'sync:\n  toHost:\n    endpoints:\n      enabled: false\n     patches: [\n',
      'sync:\n  toHost:\n    endpoints:\n      enabled: false\n      enabeld: true\n',
      'sync:\n  toHost:\n    endpoints:\n      enabled: false\n      patches:\n        - path: metadata.name\n          expression: \'"x"\'\n',
    ];
    for (const [i, text] of bad.entries()) {
      await writeConfig(text);
      await waitFor(`rejection ${i + 1}`, async () => (await scrape('vcsync_config_reloads_total', { result: 'rejected' })) === i + 1);
      expect(rejections()).toBe(i + 1);
      await createPair(`after-bad-${i}`);
      await waitFor(`object created after bad config ${i + 1} synced`, () => hostCopy(`after-bad-${i}`));
    }
    expect(reloads(false)).toBe(0);
  });

  it('never logs a change it rejects as valid: a bad patch, a setting that needs a restart, private nodes, an emptied file', async () => {
    await start(ENABLED);
    const rejected = (): Promise<number> => scrape('vcsync_config_reloads_total', { result: 'rejected' });
    expect(await rejected()).toBe(0);
    const changes = [
      // Schema-valid; only the patch compiler rejects it.
      `${ENABLED}      patches:\n        - path: metadata.annotations["x"]\n          expression: 'value +'\n`,
      'sync:\n  toHost:\n    namespaces:\n      enabled: true\n      mappings:\n        byName:\n          shop: "${name}-shop"\n',
      // EndpointSlices sync off: the one error is Endpoints'.
      `privateNodes:\n  enabled: true\n${ENABLED}    endpointSlices:\n      enabled: false\n`,
      // What an in-place save shows between truncating and writing; as a config, all defaults.
      '',
    ];
    for (const [i, text] of changes.entries()) {
      await writeConfig(text);
      await waitFor(`change ${i + 1} rejected`, async () => (await rejected()) === i + 1);
    }
    expect(log.lines.filter((line) => line['valid'] === true)).toEqual([]);
    const errors = log.matching('configuration change rejected; the last valid configuration stays in force', { valid: false }).map((line) => line['errors']);
    expect(errors).toEqual([
      [`${configPath}:7:31 sync.toHost.endpoints.patches[0].expression: Unexpected token; an expression must be a single JavaScript expression such as value + "-suffix"`],
      [`${configPath}:4:16 sync.toHost.namespaces.enabled: changing it needs a restart (it changes which host namespaces are watched)`],
      [
        `${configPath}:6:16 sync.toHost.endpoints.enabled: Endpoints sync is only available with host nodes as the worker node type, and privateNodes.enabled is true; set sync.toHost.endpoints.enabled: false, or remove privateNodes`,
      ],
      [
        `${configPath}:1:1 the file is empty; a reload never applies an empty file, which is what a save that truncates the file looks like before it writes (the last valid configuration stays in force): write the whole file, best to a temporary file renamed over this one, and write \`{}\` to mean all defaults`,
      ],
    ]);
    expect(reloads(true)).toBe(0);
  });

  it('re-syncs existing objects when the patch list changes', async () => {
    await start(ENABLED);
    await createPair('web', { annotations: { x: 'a' } });
    await waitFor('host copy with the plain value', async () => (await hostCopy('web'))?.metadata?.annotations?.['x'] === 'a');
    await writeConfig(`${ENABLED}      patches:\n        - path: metadata.annotations["x"]\n          expression: '"patched-" + value'\n`);
    const host = await waitFor('host value patched', async () => {
      const h = await hostCopy('web');
      return h?.metadata?.annotations?.['x'] === 'patched-a' ? h : undefined;
    });
    expect(host.subsets).toEqual([simpleSubset('10.0.0.1')]);
    const virtual = await clusters.virtualClient.get<Endpoints>(endpointsPath('default', 'web'));
    expect(virtual.metadata?.annotations?.['x']).toBe('a');
  });

  it('with leader election, syncs after taking the Lease in the host namespace', async () => {
    await start(ENABLED, { leaderElect: true });
    const lease = await waitFor('the Lease taken', async () => {
      try {
        const l = await clusters.hostClient.get<{ spec?: { holderIdentity?: string } }>(
          `/apis/coordination.k8s.io/v1/namespaces/${clusters.hostNamespace}/leases/vcsync-vc1`,
        );
        return l.spec?.holderIdentity !== undefined && l.spec.holderIdentity !== '' ? l : undefined;
      } catch {
        return undefined;
      }
    });
    expect(lease.spec?.holderIdentity).toContain(String(process.pid));
    await createPair('web');
    await waitFor('host copy written by the leader', () => hostCopy('web'));
    await waitFor('/syncz 200', async () => (await fetch(`${metricsUrl}/syncz`)).status === 200);
    const metrics = await (await fetch(`${metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/vcsync_leader_election_is_leader\{lease="vcsync-vc1"\} 1/);
  });

  it('stays ready while the virtual API is down, and shows the failing sync check in /readyz?verbose, /syncz and /metrics', async () => {
    await start(ENABLED);
    await waitFor('/syncz 200', async () => (await get('/syncz')).status === 200);
    const port = Number(new URL(clusters.virtual.url).port);
    await clusters.virtual.close();

    const syncz = await waitFor('/syncz failing for every virtual informer', async () => {
      const answer = await get('/syncz');
      return answer.status === 503 && answer.text.includes('virtual-endpoints, virtual-services, virtual-endpointslices') ? answer.text : undefined;
    });
    expect(syncz).toMatch(/^\[-\]informers failed: lost the API server of informer\(s\) virtual-endpoints, virtual-services, virtual-endpointslices; retrying with backoff$/m);
    expect(syncz.trimEnd().endsWith('syncz check failed')).toBe(true);
    const readyz = await get('/readyz');
    expect(readyz).toEqual({ status: 200, text: 'readyz check passed\n' });
    const verbose = await get('/readyz?verbose');
    expect(verbose.status).toBe(200);
    expect(verbose.text.split('\n')).toEqual([
      '[+]config ok',
      '[+]shutdown ok',
      expect.stringMatching(/^\[-\]sync\/informers failed: lost the API server of informer\(s\) virtual-endpoints, virtual-services/),
      'readyz check passed',
      '',
    ]);
    expect(await scrape('vcsync_health_check', { check: 'informers', group: 'sync' })).toBe(0);
    expect(await scrape('vcsync_health_check', { check: 'shutdown', group: 'readiness' })).toBe(1);
    expect((await get('/healthz')).status).toBe(200);

    clusters.virtual = await startDevCluster({ port });
    await waitFor('/syncz 200 after the virtual API is back', async () => (await get('/syncz')).status === 200, { timeoutMs: 60_000 });
    expect(await scrape('vcsync_health_check', { check: 'informers', group: 'sync' })).toBe(1);
  });

  it('with a host namespace that does not exist, says so once, fails the leader-election sync check, and recovers once it is created', async () => {
    const hostNamespace = 'vcluster-late';
    await start(ENABLED, { hostNamespace, leaderElect: true, leaderElection: FAST_LEASE });
    const syncz = await waitFor('the leader-election check failing', async () => {
      const answer = await get('/syncz');
      return answer.status === 503 && answer.text.includes('[-]leader-election failed:') ? answer.text : undefined;
    });
    expect(syncz).toContain(
      '[-]leader-election failed: host namespace vcluster-late does not exist, so the Lease vcsync-vc1 cannot be taken and nothing is synced: ' +
        "create the namespace, or pass --host-namespace (VCSYNC_HOST_NAMESPACE) naming the virtual cluster's namespace",
    );
    expect((await get('/readyz')).status).toBe(200);
    expect((await get('/readyz?verbose')).text).toContain('[-]sync/leader-election failed: host namespace vcluster-late does not exist');
    expect(await scrape('vcsync_health_check', { check: 'leader-election', group: 'sync' })).toBe(0);

    // Several attempts go by (each a create answered 404 for the namespace); the log says it once.
    await waitFor('three failed Lease creates', async () => (await scrape('vcsync_rest_client_requests_total', { cluster: 'host', verb: 'POST', code: '404' })) >= 3);
    expect(log.matching(NAMESPACE_MISSING, { hostNamespace, level: 50 })).toHaveLength(1);
    expect(log.matching('Lease request failed')).toHaveLength(0);

    await clusters.hostClient.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: hostNamespace } });
    await waitFor('/syncz 200 once the namespace exists', async () => (await get('/syncz')).status === 200);
    const lease = await clusters.hostClient.get<{ spec?: { holderIdentity?: string } }>(`/apis/coordination.k8s.io/v1/namespaces/${hostNamespace}/leases/vcsync-vc1`);
    expect(lease.spec?.holderIdentity).toContain(String(process.pid));
    expect(await scrape('vcsync_health_check', { check: 'leader-election', group: 'sync' })).toBe(1);
    expect(log.matching(NAMESPACE_MISSING)).toHaveLength(1);
    expect(log.matching('The Lease can be written again', { hostNamespace })).toHaveLength(1);
  });

  it('exposes vcsync_build_info with the package version and the Node.js version', async () => {
    await start(ENABLED);
    const metrics = await (await fetch(`${metricsUrl}/metrics`)).text();
    const { version } = (await import('../../../package.json', { with: { type: 'json' } })).default as { version: string };
    expect(metrics).toContain(`vcsync_build_info{version="${version}",node_version="${process.version}"} 1`);
  });

  it('runs the heap reclaimer unless told not to (--no-heap-reclaim)', async () => {
    await start(ENABLED);
    expect(await (await fetch(`${metricsUrl}/metrics`)).text()).toMatch(/^vcsync_heap_reclaims_total /m);
    await daemon?.stop();
    daemon = undefined;
    await start(ENABLED, { heapReclaim: false });
    expect(await (await fetch(`${metricsUrl}/metrics`)).text()).not.toContain('vcsync_heap_reclaims_total');
  });
});

describe('runSyncer: refuses to start on a config that vcsync validate rejects', () => {
  let dir: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    dir = await tempDir('vcsync-run-syncer-start-');
  });
  afterEach(async () => {
    await dir.remove();
  });

  /** Starts with `config`; the config is checked before any connection, so no cluster is needed. */
  const startWith = async (config: string): Promise<{ configPath: string; run: Promise<void> }> => {
    const configPath = path.join(dir.dir, 'vcluster.yaml');
    await writeFile(configPath, config);
    const unused = { kind: 'yaml', yaml: 'not read: the config is rejected first' } as const;
    const run = runSyncer(
      {
        configPath,
        name: 'vc1',
        hostNamespace: 'vcluster-vc1',
        virtual: unused,
        host: unused,
        listenMetrics: { host: '127.0.0.1', port: 0 },
        hostQps: 40,
        hostBurst: 80,
        workers: 1,
        leaderElect: false,
        sandboxMemoryMiB: 32,
        sandboxTimeoutMs: 1000,
        logger: captureLogger().logger,
      },
      new AbortController().signal,
    );
    return { configPath, run };
  };

  it('reports schema and patch errors together, as validate does', async () => {
    const { configPath, run } = await startWith(
      'sync:\n  toHost:\n    endpoint:\n      enabled: true\n    endpoints:\n      patches:\n        - path: a\n          expression: "value;"\n',
    );
    const error = await run.then(() => undefined, (thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(CommandError);
    expect((error as CommandError).lines).toEqual(
      [
        `${configPath}:3:5 sync.toHost.endpoint: unknown key; did you mean "endpoints"?`,
        `${configPath}:8:29 sync.toHost.endpoints.patches[0].expression: Unexpected ";" (statements are not allowed); an expression must be a single JavaScript expression such as value + "-suffix"`,
        `${configPath}: 2 errors`,
      ],
    );
  });

  it('rejects private nodes with endpoints sync on, saying why and what to do', async () => {
    const { configPath, run } = await startWith('privateNodes:\n  enabled: true\nsync:\n  toHost:\n    endpoints:\n      enabled: true\n');
    await expect(run).rejects.toThrow(
      `${configPath}:6:16 sync.toHost.endpoints.enabled: Endpoints sync is only available with host nodes as the worker node type, and privateNodes.enabled is true; set sync.toHost.endpoints.enabled: false, or remove privateNodes`,
    );
  });
});
