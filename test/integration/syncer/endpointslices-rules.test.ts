import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EndpointSlice } from '../../../src/syncer/endpointslices/endpointslice-types.js';
import { createService, eventsAbout, hostName } from '../../support/endpoints-fixtures.js';
import {
  createSlice,
  deleteTestSlices,
  getHostSlice,
  readyEndpoint,
  slicePath,
  slicesPath,
} from '../../support/endpointslices-fixtures.js';
import { metricValue, runnableBackends, useSyncBackends, type SyncClusters } from '../../support/sync-harness.js';
import { startResourceSyncer, type RunningResourceSyncer, type StartSyncerOptions } from '../../support/resource-syncer-harness.js';
import { endpointSlicesFixture } from '../../support/synced-resource-fixtures.js';
import { waitFor } from '../../support/wait-for.js';
import { createTranslator } from '../../../src/translate/translator.js';
import { defaultConfig } from '../../../src/config/index.js';

const SERVICE_NAME = 'kubernetes.io/service-name';
const SLICE_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';

describe.each(runnableBackends('the EndpointSlices sync rules on a real kube-apiserver'))('EndpointSlices sync rules ($virtual virtual, $host host, over HTTP)', (backends) => {
  const startClusters = useSyncBackends(backends);
  let clusters: SyncClusters;
  let syncer: RunningResourceSyncer | undefined;

  beforeEach(async () => {
    clusters = await startClusters();
  });

  afterEach(async () => {
    await syncer?.stop();
    syncer = undefined;
    try {
      if (backends.virtual === 'real') await deleteTestSlices(clusters.virtualClient);
    } finally {
      await clusters.close();
    }
  });

  const start = async (options: StartSyncerOptions = {}): Promise<RunningResourceSyncer> => {
    syncer = await startResourceSyncer(clusters, endpointSlicesFixture, options);
    return syncer;
  };
  const hostSlice = (name: string, namespace = 'default') => getHostSlice(clusters.hostClient, clusters.hostNamespace, hostName(name, namespace));
  /** Waits until a reconcile of `key` (on the caches the syncer now holds) skips it for `reason`. */
  const skipped = (key: string, reason: string) =>
    waitFor(`${key} skipped (${reason})`, async () => {
      const outcome = await syncer!.syncer.reconciler.reconcile(key);
      return outcome.kind === 'skipped' && outcome.reason.includes(reason);
    });

  it('records a SyncError event saying what to do for a slice without the service-name label, and writes nothing', async () => {
    const { virtualClient, hostClient, hostNamespace } = clusters;
    const running = await start({ events: 'recorder' });
    await createSlice(virtualClient, 'orphan', { service: null });
    const [event] = await waitFor('a SyncError event on the virtual slice', async () => {
      const events = await eventsAbout(virtualClient, 'default', 'EndpointSlice', 'orphan');
      return events.length > 0 ? events : undefined;
    });
    expect(event).toMatchObject({
      type: 'Warning',
      reason: 'SyncError',
      involvedObject: { kind: 'EndpointSlice', apiVersion: 'discovery.k8s.io/v1', namespace: 'default', name: 'orphan' },
    });
    expect(event?.message).toBe(
      'EndpointSlice default/orphan has no label kubernetes.io/service-name, so vcsync cannot tell which Service it belongs to and does not sync it; ' +
        'label it with the name of a Service without a selector in namespace default',
    );
    await waitFor('terminal error counted', async () => (await metricValue(running.registry, 'vcsync_sync_operations_total', { result: 'terminal_error' })) >= 1);
    expect((await hostClient.list<EndpointSlice>(slicesPath(hostNamespace))).items).toEqual([]);
  });

  it('skips a slice whose Service is missing, and syncs it once the Service is created', async () => {
    const { virtualClient } = clusters;
    await start();
    await createSlice(virtualClient, 'lonely-1', { service: 'lonely' });
    await skipped('default/lonely-1', 'no virtual Service lonely');
    expect(await hostSlice('lonely-1')).toBeUndefined();

    await createService(virtualClient, 'lonely');
    const host = await waitFor('host copy after the Service appeared', () => hostSlice('lonely-1'));
    expect(host.metadata?.labels?.[SERVICE_NAME]).toBe(hostName('lonely'));
  });

  it('labels the copy of a long-named Service\'s slice with the host Service\'s real (hashed) name', async () => {
    const { virtualClient } = clusters;
    const service = `svc-${'l'.repeat(55)}`;
    await createService(virtualClient, service);
    await createSlice(virtualClient, 'long-1', { service });
    await start();
    const host = await waitFor('host copy', () => hostSlice('long-1'));
    const translator = createTranslator({ vclusterName: 'vc1', hostNamespace: clusters.hostNamespace, config: defaultConfig() });
    const placement = translator.hostRef({ name: service, namespace: 'default' });
    if (!placement.synced) throw new Error('the Service is not placed');
    expect(placement.ref.name).toHaveLength(63);
    expect(placement.ref.name).not.toBe(`${service}-x-default-x-vc1`);
    expect(host.metadata?.labels?.[SERVICE_NAME]).toBe(placement.ref.name);
  });

  it('never gives a host copy a host controller\'s managed-by value, and repairs one written on the host', async () => {
    const { virtualClient, hostClient } = clusters;
    await createService(virtualClient, 'mirrored');
    await createSlice(virtualClient, 'mirrored-1', { service: 'mirrored', labels: { [SLICE_MANAGED_BY]: 'endpointslicemirroring-controller.k8s.io', app: 'web' } });
    await start();
    const host = await waitFor('host copy', () => hostSlice('mirrored-1'));
    expect(host.metadata?.labels?.[SLICE_MANAGED_BY]).toBe('vcsync.vcluster.loft.sh');
    expect(host.metadata?.labels?.['app']).toBe('web');

    await hostClient.patch(slicePath(clusters.hostNamespace, hostName('mirrored-1')), 'merge', {
      metadata: { labels: { [SLICE_MANAGED_BY]: 'endpointslice-controller.k8s.io', [SERVICE_NAME]: 'someone-else', team: 'host' } },
    });
    const repaired = await waitFor('managed-by and service-name repaired on the host', async () => {
      const copy = await hostSlice('mirrored-1');
      const labels = copy?.metadata?.labels ?? {};
      return labels[SLICE_MANAGED_BY] === 'vcsync.vcluster.loft.sh' && labels[SERVICE_NAME] === hostName('mirrored') && labels['team'] === 'host' ? copy : undefined;
    });
    expect(repaired.metadata?.labels?.['app']).toBe('web');
    // The host-only label flows back; the two labels vcsync owns do not.
    const virtual = await waitFor('the host-only label back in the virtual slice', async () => {
      const object = await virtualClient.get<EndpointSlice>(slicePath('default', 'mirrored-1'));
      return object.metadata?.labels?.['team'] === 'host' ? object : undefined;
    });
    expect(virtual.metadata?.labels?.[SLICE_MANAGED_BY]).toBe('endpointslicemirroring-controller.k8s.io');
    expect(virtual.metadata?.labels?.[SERVICE_NAME]).toBe('mirrored');
  });

  it('replaces a host slice of the copy\'s name that the virtual cluster did not write', async () => {
    const { virtualClient, hostClient, hostNamespace } = clusters;
    const foreign = await hostClient.create<EndpointSlice>(slicesPath(hostNamespace), {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: hostName('taken-1'), labels: { owner: 'host-team' } },
      addressType: 'IPv4',
      endpoints: [readyEndpoint('10.9.9.9')],
    });
    await createService(virtualClient, 'taken');
    await createSlice(virtualClient, 'taken-1', { service: 'taken' });
    await start();
    const replaced = await waitFor('the foreign slice replaced by the copy', async () => {
      const host = await hostSlice('taken-1');
      return host !== undefined && host.metadata?.uid !== foreign.metadata?.uid ? host : undefined;
    });
    expect(replaced.metadata?.labels?.['vcluster.loft.sh/managed-by']).toBe('vc1');
    expect(replaced.metadata?.labels?.['owner']).toBeUndefined();
    expect(replaced.endpoints?.map((e) => e.addresses)).toEqual([['10.0.0.1']]);
  });

  it('leaves a plugin\'s host slice of the copy\'s name alone and records a SyncError event', async () => {
    const { virtualClient, hostClient, hostNamespace } = clusters;
    const plugin = await hostClient.create<EndpointSlice>(slicesPath(hostNamespace), {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: hostName('plugin-1'), labels: { 'vcluster.loft.sh/controlled-by': 'my-plugin' } },
      addressType: 'IPv4',
      endpoints: [readyEndpoint('10.9.9.8')],
    });
    await createService(virtualClient, 'plugin');
    await createSlice(virtualClient, 'plugin-1', { service: 'plugin' });
    await start({ events: 'recorder' });
    const [event] = await waitFor('a SyncError event on the virtual slice', async () => {
      const events = await eventsAbout(virtualClient, 'default', 'EndpointSlice', 'plugin-1');
      return events.length > 0 ? events : undefined;
    });
    expect(event?.message).toContain('not written by virtual cluster vc1');
    const after = await hostSlice('plugin-1');
    expect(after?.metadata?.resourceVersion).toBe(plugin.metadata?.resourceVersion);
  });

  it('follows a slice replaced with another addressType (immutable on the API server) with a new host copy', async () => {
    const { virtualClient } = clusters;
    await createService(virtualClient, 'dual');
    const first = await createSlice(virtualClient, 'dual-1', { service: 'dual' });
    const running = await start();
    const before = await waitFor('IPv4 host copy', () => hostSlice('dual-1'));
    expect(before.addressType).toBe('IPv4');

    // The API server refuses to change a slice's addressType (devcluster as kube-apiserver): a
    // tenant replaces the slice, a new one of the same name. The in-place case (a patch that
    // changes addressType) is a row of test/unit/syncer/endpointslices-sync-table.test.ts.
    const ipv6 = { addressType: 'IPv6', endpoints: [readyEndpoint('fd00::1')] };
    await expect(virtualClient.patch(slicePath('default', 'dual-1'), 'merge', ipv6)).rejects.toMatchObject({ code: 422 });
    await virtualClient.delete(slicePath('default', 'dual-1'));
    const second = await createSlice(virtualClient, 'dual-1', { service: 'dual', ...ipv6 });
    expect(second.metadata?.uid).not.toBe(first.metadata?.uid);
    const after = await waitFor('IPv6 host copy', async () => {
      const host = await hostSlice('dual-1');
      return host?.addressType === 'IPv6' ? host : undefined;
    });
    expect(after.metadata?.uid).not.toBe(before.metadata?.uid);
    expect(after.endpoints?.map((e) => e.addresses)).toEqual([['fd00::1']]);
    expect(await metricValue(running.registry, 'vcsync_sync_operations_total', { result: 'error' })).toBe(0);
  });
});
