import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import type { EndpointSlice } from '../../../src/syncer/endpointslices/endpointslice-types.js';
import { LABEL_SERVICE_NAME, LABEL_SLICE_MANAGED_BY, VCSYNC_SLICE_MANAGER } from '../../../src/syncer/endpointslices/slice-keys.js';
import { shortHostName } from '../../../src/translate/host-names.js';
import { createSlice, deleteTestSlices, getHostSlice, readyEndpoint, slicePath } from '../../support/endpointslices-fixtures.js';
import { ensureNamespace, getOrUndefined, metricValue, runnableBackends, useSyncBackends, type SyncClusters } from '../../support/sync-harness.js';
import { startResourceSyncer } from '../../support/resource-syncer-harness.js';
import { endpointSlicesFixture } from '../../support/synced-resource-fixtures.js';
import { waitFor } from '../../support/wait-for.js';

const VC = 'vc1';
const HOST_NAME = 'web-1-x-shop-x-vc1';

/** `sync.toHost.endpointSlices.patches` of `lines` (each indented as a list item's content). */
function slicesPatchConfig(lines: readonly string[]): string {
  return `sync:\n  toHost:\n    endpointSlices:\n      patches:\n${lines.map((line) => `        ${line}`).join('\n')}\n`;
}

// kube-controller-manager runs with a real host so that its garbage collector removes imported
// references with their owner, and its EndpointSlice controllers run beside the copies.
describe.each(runnableBackends('the EndpointSlices patches suite on a real kube-apiserver'))('patches through the EndpointSlices syncer ($virtual virtual, $host host)', (backends) => {
  const startClusters = useSyncBackends(backends, { controllers: true });
  let clusters: SyncClusters;
  let close: (() => Promise<void>) | undefined;
  const warnings: string[] = [];

  beforeEach(async () => {
    clusters = await startClusters();
    warnings.length = 0;
    await ensureNamespace(clusters.virtualClient, 'shop');
    await clusters.virtualClient.create('/api/v1/namespaces/shop/services', {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] },
    });
  });
  afterEach(async () => {
    await close?.();
    close = undefined;
    try {
      if (backends.virtual === 'real') await deleteTestSlices(clusters.virtualClient, ['shop']);
    } finally {
      await clusters.close();
    }
  });

  const start = async (lines: readonly string[], importReferences = false) => {
    const running = await startResourceSyncer(clusters, endpointSlicesFixture, {
      configYaml: slicesPatchConfig(lines),
      events: { warning: (_object, reason, message) => warnings.push(`${reason}: ${message}`) },
      importReferences,
    });
    close = running.stop;
    return running;
  };
  const hostSlice = () => getHostSlice(clusters.hostClient, clusters.hostNamespace, HOST_NAME);
  const virtualSlice = () => clusters.virtualClient.get<EndpointSlice>(slicePath('shop', 'web-1'));
  const createVirtual = (options: Parameters<typeof createSlice>[2] = {}) => createSlice(clusters.virtualClient, 'web-1', { namespace: 'shop', service: 'web', ...options });

  it('applies expressions on endpoints[*].addresses[*] and endpoints[*].targetRef.name, and removes a field with null', async () => {
    await start([
      '- path: endpoints[*].addresses[*]',
      '  expression: \'value === "10.0.0.2" ? "10.1.0.2" : value\'',
      '- path: endpoints[*].targetRef.name',
      '  expression: \'value + "-" + context.vcluster.name\'',
      '- path: endpoints[*].hostname',
      '  expression: \'null\'',
    ]);
    await createVirtual({
      endpoints: [
        readyEndpoint('10.0.0.1', { hostname: 'web-0', targetRef: { kind: 'Pod', name: 'web-0', namespace: 'shop', uid: 'u-0' } }),
        readyEndpoint('10.0.0.2', { hostname: 'web-1' }),
      ],
    });
    const host = await waitFor('patched host copy', () => hostSlice());
    // The expression sees the host Pod's name (translation first, then patches).
    expect(host.endpoints).toEqual([
      { addresses: ['10.0.0.1'], conditions: { ready: true }, targetRef: { kind: 'Pod', name: 'web-0-x-shop-x-vc1-vc1', namespace: clusters.hostNamespace } },
      { addresses: ['10.1.0.2'], conditions: { ready: true } },
    ]);
    // The tenant's slice is untouched.
    expect((await virtualSlice()).endpoints?.map((e) => e.addresses)).toEqual([['10.0.0.1'], ['10.0.0.2']]);
  });

  it('records a SyncError with the host cause when a patched address is refused as Invalid, and syncs once the slice changes', async () => {
    const run = await start([
      '- path: endpoints[*].addresses[*]',
      '  expression: \'value === "10.0.0.2" ? "not-an-ip" : value\'',
    ]);
    await createVirtual({ endpoints: [readyEndpoint('10.0.0.1'), readyEndpoint('10.0.0.2')] });
    const refused = await waitFor('SyncError event', () => warnings.find((warning) => warning.startsWith('SyncError: ')));
    expect(refused).toContain('endpoints[1].addresses[0]');
    expect(await hostSlice()).toBeUndefined();
    expect(await metricValue(run.registry, 'vcsync_workqueue_retries_total', { name: 'endpointslices' })).toBeGreaterThanOrEqual(1);
    await clusters.virtualClient.patch(slicePath('shop', 'web-1'), 'merge', { endpoints: [readyEndpoint('10.0.0.1'), readyEndpoint('10.0.0.3')] });
    const host = await waitFor('host copy once the slice changed', () => hostSlice());
    expect(host.endpoints?.map((e) => e.addresses)).toEqual([['10.0.0.1'], ['10.0.0.3']]);
  });

  it('writes a host-side change of a reversible field back to the virtual slice, without ping-pong', async () => {
    await start([
      '- path: metadata.annotations["port"]',
      '  expression: \'String(Number(value) + 1000)\'',
      '  reverseExpression: \'String(Number(value) - 1000)\'',
    ]);
    await createVirtual({ annotations: { port: '80' } });
    const host = await waitFor('host copy', async () => {
      const h = await hostSlice();
      return h?.metadata?.annotations?.['port'] === '1080' ? h : undefined;
    });
    await clusters.hostClient.update(slicePath(clusters.hostNamespace, HOST_NAME), {
      ...host, metadata: { ...host.metadata, annotations: { ...host.metadata?.annotations, port: '1443' } },
    });
    await waitFor('reverse-patched virtual value', async () => (await virtualSlice()).metadata?.annotations?.['port'] === '443');
    const current = await virtualSlice();
    await clusters.virtualClient.update(slicePath('shop', 'web-1'), { ...current, metadata: { ...current.metadata, labels: { ...current.metadata?.labels, touched: 'yes' } } });
    const settled = await waitFor('later change on the host', async () => {
      const h = await hostSlice();
      return h?.metadata?.labels?.['touched'] === 'yes' ? h : undefined;
    });
    expect((await virtualSlice()).metadata?.annotations?.['port']).toBe('443');
    expect(settled.metadata?.annotations?.['port']).toBe('1443');
  });

  it('a label patch changes the tenant labels but never the labels vcsync owns: managed-by and service-name', async () => {
    await start(['- path: metadata.labels[*]', '  expression: \'"patched-" + value\'']);
    await createVirtual({ labels: { tier: 'front' } });
    const host = await waitFor('patched host copy', () => hostSlice());
    expect(host.metadata?.labels?.['tier']).toBe('patched-front');
    expect(host.metadata?.labels?.[LABEL_SLICE_MANAGED_BY]).toBe(VCSYNC_SLICE_MANAGER);
    expect(host.metadata?.labels?.[LABEL_SERVICE_NAME]).toBe('web-x-shop-x-vc1');
  });

  it('rewrites a reference to the v-hash name and imports the ConfigMap, owned by the host slice', async () => {
    const run = await start(['- path: metadata.annotations["config"]', '  reference:', '    apiVersion: v1', '    kind: ConfigMap'], true);
    await clusters.virtualClient.create('/api/v1/namespaces/shop/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { mode: 'fast' } });
    await createVirtual({ annotations: { config: 'settings' } });
    const short = shortHostName('settings', 'shop', VC);
    const host = await waitFor('host copy', () => hostSlice());
    expect(host.metadata?.annotations?.['config']).toBe(short);
    const importedPath = `/api/v1/namespaces/${clusters.hostNamespace}/configmaps/${short}`;
    const imported = await waitFor('imported ConfigMap', () =>
      getOrUndefined<KubeObject & { data?: Record<string, string>; metadata: { ownerReferences?: { uid: string; kind: string; apiVersion: string }[] } }>(clusters.hostClient, importedPath));
    expect(imported.data).toEqual({ mode: 'fast' });
    expect(imported.metadata.ownerReferences?.map((o) => [o.apiVersion, o.kind, o.uid])).toEqual([['discovery.k8s.io/v1', 'EndpointSlice', host.metadata?.uid]]);
    expect(await metricValue(run.registry, 'vcsync_sync_operations_total', { controller: 'endpointslices', result: 'error' })).toBe(0);

    if (backends.host === 'real') {
      // The host garbage collector removes the import with the host slice that owns it.
      await clusters.virtualClient.delete(slicePath('shop', 'web-1'));
      await waitFor('host copy deleted', async () => (await hostSlice()) === undefined);
      await waitFor('imported ConfigMap garbage-collected', async () => (await getOrUndefined(clusters.hostClient, importedPath)) === undefined, {
        timeoutMs: 90_000,
        intervalMs: 200,
      });
    }
  }, 120_000);

  it('translates a label map (here the annotations) with the label rules', async () => {
    await start(['- path: metadata.annotations', '  labels: {}']);
    await createVirtual({ annotations: { release: 'v1', app: 'web' } });
    const host = await waitFor('host copy', () => hostSlice());
    const keys = Object.keys(host.metadata?.annotations ?? {});
    expect(keys).toContain('app');
    expect(keys).not.toContain('release');
    expect(keys.some((k) => /^vcluster\.loft\.sh\/label-vc1-x-[0-9a-f]{10}$/.test(k))).toBe(true);
  });

  // Devcluster only: a real kube-apiserver drops deprecatedTopology (a field of the removed
  // v1beta1 API) on write, so there is no such map to patch.
  it.skipIf(backends.host === 'real' || backends.virtual === 'real')('translates a label map in the body (endpoints[*].deprecatedTopology) with the label rules', async () => {
    await start(['- path: endpoints[*].deprecatedTopology', '  labels: {}']);
    await createVirtual({ endpoints: [readyEndpoint('10.0.0.1', { deprecatedTopology: { release: 'r1', zone: 'a' } })] });
    const host = await waitFor('host copy', () => hostSlice());
    const topology = host.endpoints?.[0]?.deprecatedTopology ?? {};
    expect(topology['zone']).toBe('a');
    expect(topology['release']).toBeUndefined();
    expect(Object.entries(topology).some(([key, value]) => /^vcluster\.loft\.sh\/label-vc1-x-[0-9a-f]{10}$/.test(key) && value === 'r1')).toBe(true);
  });
});
