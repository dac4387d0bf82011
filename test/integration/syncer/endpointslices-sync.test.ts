import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createService, hostName, servicePath } from '../../support/endpoints-fixtures.js';
import {
  createSlice,
  deleteTestSlices,
  getHostSlice,
  readyEndpoint,
  slicePath,
} from '../../support/endpointslices-fixtures.js';
import { runnableBackends, useSyncBackends, type SyncClusters } from '../../support/sync-harness.js';
import { startResourceSyncer, type RunningResourceSyncer } from '../../support/resource-syncer-harness.js';
import { endpointSlicesFixture } from '../../support/synced-resource-fixtures.js';
import { waitFor } from '../../support/wait-for.js';
import type { EndpointSlice } from '../../../src/syncer/endpointslices/endpointslice-types.js';

describe.each(runnableBackends('the EndpointSlices sync on a real kube-apiserver'))('EndpointSlices sync ($virtual virtual, $host host, over HTTP)', (backends) => {
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

  const hostSlice = (name: string) => getHostSlice(clusters.hostClient, clusters.hostNamespace, hostName(name));

  it('creates the host copy of a selector-less Service\'s slice, updates it, and deletes it with the virtual slice', async () => {
    const { virtualClient } = clusters;
    await createService(virtualClient, 'web');
    const virtual = await createSlice(virtualClient, 'web-abc12', {
      service: 'web',
      endpoints: [readyEndpoint('10.0.0.1', { nodeName: 'node-a', zone: 'zone-a', hostname: 'web-0' })],
    });
    syncer = await startResourceSyncer(clusters, endpointSlicesFixture);

    const created = await waitFor('host copy', () => hostSlice('web-abc12'));
    expect(created.addressType).toBe('IPv4');
    expect(created.endpoints).toEqual([
      { addresses: ['10.0.0.1'], conditions: { ready: true }, nodeName: 'node-a', zone: 'zone-a', hostname: 'web-0' },
    ]);
    expect(created.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    expect(created.metadata?.labels).toMatchObject({
      'kubernetes.io/service-name': hostName('web'),
      'endpointslice.kubernetes.io/managed-by': 'vcsync.vcluster.loft.sh',
      'vcluster.loft.sh/managed-by': 'vc1',
      'vcluster.loft.sh/namespace': 'default',
    });
    expect(created.metadata?.annotations).toMatchObject({
      'vcluster.loft.sh/object-name': 'web-abc12',
      'vcluster.loft.sh/object-namespace': 'default',
      'vcluster.loft.sh/object-uid': virtual.metadata?.uid,
      'vcluster.loft.sh/object-kind': 'discovery.k8s.io/v1, Kind=EndpointSlice',
    });

    await virtualClient.patch(slicePath('default', 'web-abc12'), 'merge', { endpoints: [readyEndpoint('10.0.0.2'), readyEndpoint('10.0.0.3')] });
    const updated = await waitFor('host copy updated', async () => {
      const host = await hostSlice('web-abc12');
      return host?.endpoints?.length === 2 ? host : undefined;
    });
    expect(updated.endpoints?.map((e) => e.addresses)).toEqual([['10.0.0.2'], ['10.0.0.3']]);
    expect(updated.metadata?.uid).toBe(created.metadata?.uid);

    await virtualClient.delete(slicePath('default', 'web-abc12'));
    await waitFor('host copy deleted', async () => (await hostSlice('web-abc12')) === undefined);
  });

  it('deletes the host copy when the Service gains a selector and syncs the slice again when it loses it', async () => {
    const { virtualClient } = clusters;
    await createService(virtualClient, 'later');
    await createSlice(virtualClient, 'later-1', { service: 'later' });
    syncer = await startResourceSyncer(clusters, endpointSlicesFixture);
    const first = await waitFor('host copy', () => hostSlice('later-1'));

    await virtualClient.patch(servicePath('default', 'later'), 'merge', { spec: { selector: { app: 'later' } } });
    await waitFor('host copy deleted after the selector was added', async () => (await hostSlice('later-1')) === undefined);
    expect(await virtualClient.get<EndpointSlice>(slicePath('default', 'later-1'))).toBeDefined();

    await virtualClient.patch(servicePath('default', 'later'), 'merge', { spec: { selector: null } });
    const again = await waitFor('host copy after the selector was removed', () => hostSlice('later-1'));
    expect(again.metadata?.uid).not.toBe(first.metadata?.uid);
  });

  it('wakes every slice of a Service through the index: deleting the Service deletes the host copies of all its slices', async () => {
    const { virtualClient } = clusters;
    await createService(virtualClient, 'multi');
    await Promise.all(['multi-a', 'multi-b', 'multi-c'].map((name, i) => createSlice(virtualClient, name, { service: 'multi', endpoints: [readyEndpoint(`10.0.1.${i + 1}`)] })));
    syncer = await startResourceSyncer(clusters, endpointSlicesFixture);
    await waitFor('three host copies', async () => (await Promise.all(['multi-a', 'multi-b', 'multi-c'].map(hostSlice))).every((h) => h !== undefined));
    expect(syncer.syncer.index?.keysOf('default/multi').sort()).toEqual(['default/multi-a', 'default/multi-b', 'default/multi-c']);

    await virtualClient.delete(servicePath('default', 'multi'));
    await waitFor('every host copy deleted with the Service', async () => (await Promise.all(['multi-a', 'multi-b', 'multi-c'].map(hostSlice))).every((h) => h === undefined));
    // The tenant's slices stay.
    expect(await virtualClient.get<EndpointSlice>(slicePath('default', 'multi-b'))).toBeDefined();
  });

  it('follows a reload that switches sync.toHost.endpointSlices.enabled off (its copies go) and on', async () => {
    const { virtualClient } = clusters;
    await createService(virtualClient, 'switch');
    await createSlice(virtualClient, 'switch-0', { service: 'switch' });
    syncer = await startResourceSyncer(clusters, endpointSlicesFixture);
    await waitFor('switch-0 on the host', () => hostSlice('switch-0'));
    syncer.reload('sync:\n  toHost:\n    endpointSlices:\n      enabled: false\n');
    // Off, the host Endpoints lose skip-mirror and the host mirroring controller slices them: a copy left behind would be a stale second set.
    await waitFor('switch-0 deleted once slice sync is off', async () => (await hostSlice('switch-0')) === undefined);
    await createSlice(virtualClient, 'switch-1', { service: 'switch' });
    const skippedDisabled = await waitFor('switch-1 skipped as disabled', async () => {
      const outcome = await syncer!.syncer.reconciler.reconcile('default/switch-1');
      return outcome.kind === 'skipped' && outcome.cause === 'disabled' ? outcome : undefined;
    });
    expect(skippedDisabled.reason).toBe('sync.toHost.endpointSlices.enabled is false');
    expect(await hostSlice('switch-1')).toBeUndefined();

    syncer.reload('sync:\n  toHost:\n    endpointSlices:\n      enabled: true\n');
    await waitFor('switch-0 back once switched on', () => hostSlice('switch-0'));
    const host = await waitFor('host copy once switched on', () => hostSlice('switch-1'));
    expect(host.endpoints?.map((e) => e.addresses)).toEqual([['10.0.0.1']]);
  });
});
