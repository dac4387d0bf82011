import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import { shortHostName } from '../../../src/translate/host-names.js';
import { ensureNamespace, getOrUndefined, metricValue, runnableBackends, useSyncBackends, type SyncClusters } from '../../support/sync-harness.js';
import { startResourceSyncer } from '../../support/resource-syncer-harness.js';
import { endpointsFixture } from '../../support/synced-resource-fixtures.js';
import { waitFor } from '../../support/wait-for.js';

const VC = 'vc1';
const HOST_NAME = 'web-x-shop-x-vc1';

/** Runs an Endpoints syncer with the given `sync.toHost.endpoints.patches` YAML between two devclusters. */
async function startWithPatches(clusters: SyncClusters, patchesYaml: string) {
  const warnings: string[] = [];
  const running = await startResourceSyncer(clusters, endpointsFixture, {
    vclusterName: VC,
    configYaml: `sync:\n  toHost:\n    endpoints:\n      patches:\n${patchesYaml}`,
    events: { warning: (_object, reason, message) => warnings.push(`${reason}: ${message}`) },
    importReferences: true,
    patchTimeoutMs: 2000,
  });
  return { registry: running.registry, warnings, close: () => running.stop() };
}

// kube-controller-manager runs with a real host so that its garbage collector removes imported
// references with their owner, as on a real cluster.
describe.each(runnableBackends('the patches suite on a real kube-apiserver'))('patches through the Endpoints syncer ($virtual virtual, $host host)', (backends) => {
  const startClusters = useSyncBackends(backends, { controllers: true });
  let clusters: SyncClusters;
  let close: (() => Promise<void>) | undefined;

  beforeEach(async () => {
    clusters = await startClusters();
    await ensureNamespace(clusters.virtualClient, 'shop');
    await clusters.virtualClient.create('/api/v1/namespaces/shop/services', {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] },
    });
  });
  afterEach(async () => {
    await close?.();
    close = undefined;
    await clusters.close();
  });

  const hostEndpoints = () => getOrUndefined<Endpoints>(clusters.hostClient, `/api/v1/namespaces/${clusters.hostNamespace}/endpoints/${HOST_NAME}`);
  const virtualEndpoints = () => clusters.virtualClient.get<Endpoints>('/api/v1/namespaces/shop/endpoints/web');
  const createVirtual = (metadata: Record<string, unknown>) =>
    clusters.virtualClient.create('/api/v1/namespaces/shop/endpoints', {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', ...metadata },
      subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 8080 }] }],
    });

  it('applies expressions virtual → host, with wildcards, context and removal', async () => {
    const run = await startWithPatches(clusters, [
      '        - path: metadata.annotations["team"]',
      '          expression: \'"team-" + value + "@" + context.vcluster.name\'',
      '        - path: subsets[*].addresses[*]',
      '          expression: \'value.ip === "10.0.0.2" ? null : value\'',
      '        - path: metadata.labels.secret',
      '          expression: \'undefined\'',
    ].join('\n'));
    close = run.close;
    await createVirtual({ annotations: { team: 'a' }, labels: { secret: 'x', app: 'web' } });
    const host = await waitFor('patched host copy', async () => await hostEndpoints());
    expect(host.metadata?.annotations?.['team']).toBe('team-a@vc1');
    expect(host.subsets?.[0]?.addresses).toEqual([{ ip: '10.0.0.1' }]);
    expect(host.metadata?.labels?.['secret']).toBeUndefined();
    expect(host.metadata?.labels?.['app']).toBe('web');
  });

  it('applies a patch only where its path exists: addresses without a hostname get none', async () => {
    const run = await startWithPatches(clusters, [
      '        - path: subsets[*].addresses[*].hostname',
      '          expression: \'context.vcluster.name + "-" + value\'',
    ].join('\n'));
    close = run.close;
    await clusters.virtualClient.create('/api/v1/namespaces/shop/endpoints', {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web' },
      subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2', hostname: 'db' }], ports: [{ port: 8080 }] }],
    });
    const host = await waitFor('host copy', async () => await hostEndpoints());
    expect(host.subsets?.[0]?.addresses).toEqual([{ ip: '10.0.0.1' }, { ip: '10.0.0.2', hostname: 'vc1-db' }]);
  });

  it('records a SyncError with the host cause when the host refuses the patched Endpoints as Invalid, retries with backoff, and syncs once the virtual object changes', async () => {
    // The patch turns 10.0.0.2 into a loopback address, which Endpoints validation refuses.
    const run = await startWithPatches(clusters, [
      '        - path: subsets[*].addresses[*].ip',
      '          expression: \'value === "10.0.0.2" ? "127.0.0.1" : value\'',
    ].join('\n'));
    close = run.close;
    await createVirtual({});
    const refused = await waitFor('SyncError event', () => run.warnings.find((warning) => warning.startsWith('SyncError: ')));
    expect(refused).toContain('subsets[0].addresses[1].ip');
    expect(refused).toContain('loopback');
    expect(await hostEndpoints()).toBeUndefined();
    // Each failure went back through the rate-limited queue (exponential backoff), not a tight loop.
    expect(await metricValue(run.registry, 'vcsync_workqueue_retries_total', { name: 'endpoints' })).toBeGreaterThanOrEqual(1);
    await clusters.virtualClient.patch('/api/v1/namespaces/shop/endpoints/web', 'merge', { subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.3' }], ports: [{ port: 8080 }] }] });
    const host = await waitFor('host copy once the virtual object changed', async () => await hostEndpoints());
    expect(host.subsets?.[0]?.addresses).toEqual([{ ip: '10.0.0.1' }, { ip: '10.0.0.3' }]);
  });

  describe('a patched key that only the host object has', () => {
    const SUFFIX_PATCH = [
      '        - path: metadata.annotations["suffix"]',
      '          expression: \'(value || "") + "-" + context.vcluster.name\'',
    ].join('\n');

    /** Every reconcile the syncer finished, whatever its result. */
    const reconciles = async (registry: Registry): Promise<number> => {
      const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'vcsync_sync_operations_total');
      return (metric?.values ?? []).reduce((sum, sample) => sum + sample.value, 0);
    };
    const updates = (registry: Registry) => metricValue(registry, 'vcsync_sync_operations_total', { result: 'updated' });

    /** Reconciles `web` `count` more times by touching its Service (which wakes it), one reconcile at a time. */
    async function reconcileRepeatedly(registry: Registry, count: number): Promise<void> {
      for (let i = 0; i < count; i++) {
        const before = await reconciles(registry);
        const service = await clusters.virtualClient.get<KubeObject>('/api/v1/namespaces/shop/services/web');
        await clusters.virtualClient.update('/api/v1/namespaces/shop/services/web', {
          ...service, metadata: { ...service.metadata, labels: { touched: String(i) } },
        });
        await waitFor(`reconcile ${i + 1} of ${count}`, async () => (await reconciles(registry)) > before);
      }
    }

    /** Writes `suffix: value` on the host copy, as a host controller (or a patch before this rule) would. */
    async function setHostSuffix(value: string): Promise<Endpoints> {
      const host = await waitFor('host copy', async () => await hostEndpoints());
      return clusters.hostClient.update<Endpoints>(`/api/v1/namespaces/${clusters.hostNamespace}/endpoints/${HOST_NAME}`, {
        ...host, metadata: { ...host.metadata, annotations: { ...host.metadata?.annotations, suffix: value } },
      });
    }

    it('is never fed to the forward expression: after a restart the host value stays, with no write', async () => {
      const first = await startWithPatches(clusters, SUFFIX_PATCH);
      close = first.close;
      await createVirtual({ annotations: { team: 'a' } });
      await waitFor('host copy', async () => await hostEndpoints());
      await first.close();
      // While no syncer runs, the key appears on the host only (a host controller, or a patch that
      // added it before missing paths were skipped).
      const written = await setHostSuffix('-vc1');

      const second = await startWithPatches(clusters, SUFFIX_PATCH);
      close = second.close;
      await waitFor('the restarted syncer to reconcile web', async () => (await reconciles(second.registry)) > 0);
      await reconcileRepeatedly(second.registry, 20);

      const host = await hostEndpoints();
      expect(host?.metadata?.annotations?.['suffix']).toBe('-vc1');
      expect(host?.metadata?.resourceVersion).toBe(written.metadata?.resourceVersion);
      expect(await updates(second.registry)).toBe(0);
      expect((await virtualEndpoints()).metadata?.annotations?.['suffix']).toBeUndefined();
    });

    it('set by a host controller while syncing flows back once, then costs one host write and stays stable', async () => {
      const run = await startWithPatches(clusters, SUFFIX_PATCH);
      close = run.close;
      await createVirtual({ annotations: { team: 'a' } });
      await waitFor('host copy', async () => await hostEndpoints());
      expect((await hostEndpoints())?.metadata?.annotations?.['suffix']).toBeUndefined();

      await setHostSuffix('legacy');
      // The host-side change flows back to the virtual object (ADR 0004); from there the forward
      // patch applies once, to the virtual value.
      const patched = await waitFor('the forward patch of the value that flowed back', async () => {
        const host = await hostEndpoints();
        return host?.metadata?.annotations?.['suffix'] === 'legacy-vc1' ? host : undefined;
      });
      await reconcileRepeatedly(run.registry, 20);

      const host = await hostEndpoints();
      expect(host?.metadata?.annotations?.['suffix']).toBe('legacy-vc1');
      expect(host?.metadata?.resourceVersion).toBe(patched.metadata?.resourceVersion);
      expect(await updates(run.registry)).toBe(1);
      expect((await virtualEndpoints()).metadata?.annotations?.['suffix']).toBe('legacy');
    });
  });

  it('writes a host-side change of a reversible field back to the virtual object, without ping-pong', async () => {
    const run = await startWithPatches(clusters, [
      '        - path: metadata.annotations["port"]',
      '          expression: \'String(Number(value) + 1000)\'',
      '          reverseExpression: \'String(Number(value) - 1000)\'',
    ].join('\n'));
    close = run.close;
    await createVirtual({ annotations: { port: '80' } });
    const host = await waitFor('host copy', async () => {
      const h = await hostEndpoints();
      return h?.metadata?.annotations?.['port'] === '1080' ? h : undefined;
    });
    // A host controller changes the patched field.
    await clusters.hostClient.update(`/api/v1/namespaces/${clusters.hostNamespace}/endpoints/${HOST_NAME}`, {
      ...host, metadata: { ...host.metadata, annotations: { ...host.metadata?.annotations, port: '1443' } },
    });
    await waitFor('reverse-patched virtual value', async () => (await virtualEndpoints()).metadata?.annotations?.['port'] === '443');
    // Converged without ping-pong: a later unrelated virtual change syncs, and both values stay.
    const current = await virtualEndpoints();
    await clusters.virtualClient.update('/api/v1/namespaces/shop/endpoints/web', {
      ...current, metadata: { ...current.metadata, labels: { touched: 'yes' } },
    });
    const settled = await waitFor('later change on the host', async () => {
      const h = await hostEndpoints();
      return h?.metadata?.labels?.['touched'] === 'yes' ? h : undefined;
    });
    expect((await virtualEndpoints()).metadata?.annotations?.['port']).toBe('443');
    expect(settled?.metadata?.annotations?.['port']).toBe('1443');
  });

  it('runs a reverseExpression alone (valid in vcluster) one way, host → virtual, and settles', async () => {
    const run = await startWithPatches(clusters, [
      '        - path: metadata.annotations["zone"]',
      '          reverseExpression: \'"host-" + value\'',
    ].join('\n'));
    close = run.close;
    await createVirtual({ annotations: { zone: 'a' } });
    // Nothing is patched on the way to the host.
    const host = await waitFor('host copy', async () => {
      const h = await hostEndpoints();
      return h?.metadata?.annotations?.['zone'] === 'a' ? h : undefined;
    });
    // A host controller sets the field: its value, transformed, lands in the virtual object once.
    await clusters.hostClient.update(`/api/v1/namespaces/${clusters.hostNamespace}/endpoints/${HOST_NAME}`, {
      ...host, metadata: { ...host.metadata, annotations: { ...host.metadata?.annotations, zone: 'eu-1' } },
    });
    await waitFor('transformed host value in the virtual object', async () => (await virtualEndpoints()).metadata?.annotations?.['zone'] === 'host-eu-1');
    // The virtual value then syncs to the host as it is, and is not transformed again.
    await waitFor('the host copy follows the virtual object', async () => (await hostEndpoints())?.metadata?.annotations?.['zone'] === 'host-eu-1');
    const current = await virtualEndpoints();
    await clusters.virtualClient.update('/api/v1/namespaces/shop/endpoints/web', {
      ...current, metadata: { ...current.metadata, labels: { touched: 'yes' } },
    });
    await waitFor('later change on the host', async () => (await hostEndpoints())?.metadata?.labels?.['touched'] === 'yes');
    expect((await virtualEndpoints()).metadata?.annotations?.['zone']).toBe('host-eu-1');
    expect((await hostEndpoints())?.metadata?.annotations?.['zone']).toBe('host-eu-1');
  });

  /** A syncer whose patch makes annotation `config` a ConfigMap reference, and shop/web referencing ConfigMap `settings`. */
  const startReferencingSettings = async () => {
    const run = await startWithPatches(clusters, [
      '        - path: metadata.annotations["config"]',
      '          reference:',
      '            apiVersion: v1',
      '            kind: ConfigMap',
    ].join('\n'));
    close = run.close;
    await clusters.virtualClient.create('/api/v1/namespaces/shop/configmaps', {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'fast' },
    });
    await createVirtual({ annotations: { config: 'settings' } });
    return run;
  };

  it('rewrites a reference to the v-hash name and imports the ConfigMap, owned by the host copy', async () => {
    const run = await startReferencingSettings();
    const short = shortHostName('settings', 'shop', VC);
    expect(short).toMatch(/^v[a-z0-9]{13}$/);
    const host = await waitFor('host copy', async () => await hostEndpoints());
    expect(host.metadata?.annotations?.['config']).toBe(short);
    const imported = await waitFor('imported ConfigMap', async () =>
      getOrUndefined<KubeObject & { data?: Record<string, string>; metadata: { ownerReferences?: { uid: string }[] } }>(
        clusters.hostClient, `/api/v1/namespaces/${clusters.hostNamespace}/configmaps/${short}`));
    expect(imported.data).toEqual({ mode: 'fast' });
    expect(imported.metadata.labels?.['vcluster.loft.sh/managed-by']).toBe(VC);
    expect(imported.metadata.ownerReferences?.map((o) => o.uid)).toEqual([host.metadata?.uid]);

    // Converged: a reconcile woken by a Service change writes neither the copy nor the import again.
    const unchanged = () => metricValue(run.registry, 'vcsync_sync_operations_total', { controller: 'endpoints', result: 'unchanged' });
    const before = await unchanged();
    await clusters.virtualClient.patch('/api/v1/namespaces/shop/services/web', 'merge', { metadata: { labels: { touched: 'yes' } } });
    await waitFor('the woken reconcile', async () => (await unchanged()) > before);
    const again = await clusters.hostClient.get<KubeObject>(`/api/v1/namespaces/${clusters.hostNamespace}/configmaps/${short}`);
    expect(again.metadata?.resourceVersion).toBe(imported.metadata.resourceVersion);
    expect((await hostEndpoints())?.metadata?.resourceVersion).toBe(host.metadata?.resourceVersion);
  });

  // Real host only: the devcluster has no garbage collector; kube-controller-manager's removes an
  // imported reference once the host copy that owns it goes.
  it.skipIf(backends.host !== 'real')('lets the host garbage collector remove an imported ConfigMap with the host copy that owns it', async () => {
    await startReferencingSettings();
    const importedPath = `/api/v1/namespaces/${clusters.hostNamespace}/configmaps/${shortHostName('settings', 'shop', VC)}`;
    await waitFor('imported ConfigMap', () => getOrUndefined(clusters.hostClient, importedPath));
    await clusters.virtualClient.delete('/api/v1/namespaces/shop/endpoints/web');
    await waitFor('host copy deleted', async () => (await hostEndpoints()) === undefined);
    await waitFor('imported ConfigMap garbage-collected', async () => (await getOrUndefined(clusters.hostClient, importedPath)) === undefined, {
      timeoutMs: 90_000,
      intervalMs: 200,
    });
  }, 120_000);

  it('translates a label selector (here a plain label map) with the label rules', async () => {
    const run = await startWithPatches(clusters, ['        - path: metadata.annotations', '          labels: {}'].join('\n'));
    close = run.close;
    // The annotations map is treated as a selector map: its keys are translated like label keys.
    await createVirtual({ annotations: { release: 'v1', app: 'web' } });
    const host = await waitFor('host copy', async () => await hostEndpoints());
    const keys = Object.keys(host.metadata?.annotations ?? {});
    expect(keys).toContain('app');
    expect(keys).not.toContain('release');
    expect(keys.some((k) => /^vcluster\.loft\.sh\/label-vc1-x-[0-9a-f]{10}$/.test(k))).toBe(true);
  });

  it('fails only the object whose expression loops forever, with a SyncError event and a metric', async () => {
    const run = await startWithPatches(clusters, [
      '        - path: metadata.annotations["loop"]',
      '          expression: \'value === "yes" ? (() => { while (true) {} })() : value\'',
    ].join('\n'));
    close = run.close;
    await createVirtual({ annotations: { loop: 'yes' } });
    await waitFor('SyncError event', () => run.warnings.some((w) => w.startsWith('SyncError:') && /timed out|time/i.test(w)));
    const metrics = await run.registry.getSingleMetricAsString('vcsync_patch_errors_total');
    expect(metrics).toMatch(/vcsync_patch_errors_total\{controller="endpoints"\} [1-9]/);
    // Fixing the object lets it sync: the sandbox survived.
    const current = await virtualEndpoints();
    await clusters.virtualClient.update('/api/v1/namespaces/shop/endpoints/web', {
      ...current, metadata: { ...current.metadata, annotations: { loop: 'no' } },
    });
    const host = await waitFor('host copy after fix', async () => await hostEndpoints());
    expect(host.metadata?.annotations?.['loop']).toBe('no');
  });
});
