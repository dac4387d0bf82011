import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createService } from '../../support/endpoints-fixtures.js';
import { startResourceSyncer, type RunningResourceSyncer } from '../../support/resource-syncer-harness.js';
import { resourceCases } from '../../support/synced-resource-fixtures.js';
import { metricValue, runnableBackends, useSyncBackends, type SyncClusters } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';

const VC = 'vc1';

describe.each(resourceCases(runnableBackends('the to-host syncers on a real kube-apiserver')))('$resource syncer ($virtual virtual, $host host)', (matrix) => {
  const fx = matrix.fixture;
  const startClusters = useSyncBackends(matrix);
  let clusters: SyncClusters;
  let running: RunningResourceSyncer | undefined;

  beforeEach(async () => {
    clusters = await startClusters();
    running = await startResourceSyncer(clusters, fx, { vclusterName: VC });
  });

  afterEach(async () => {
    await running?.stop();
    running = undefined;
    await clusters.close();
  });

  it(`copies ${fx.resource} of a selector-less Service to the host namespace, translated`, async () => {
    const { virtualClient, hostClient, hostNamespace } = clusters;
    const syncer = running!;
    await createService(virtualClient, 'web');
    await fx.createVirtual(virtualClient, 'web', { labels: { app: 'web' }, payload: { ips: ['10.0.0.1'], port: 8080, pods: ['web-1'] } });
    const host = await waitFor(`host ${fx.resource}`, () => fx.hostCopy(hostClient, hostNamespace, 'web'));
    expect(host.metadata?.name).toBe(`${fx.objectName('web')}-x-default-x-vc1`);
    expect(host.metadata?.labels).toMatchObject({ app: 'web', 'vcluster.loft.sh/managed-by': VC, 'vcluster.loft.sh/namespace': 'default' });
    expect(fx.payloadOf(host)).toEqual({ ips: ['10.0.0.1'], port: 8080, pods: [`${hostNamespace}/web-1-x-default-x-vc1`] });
    expect(fx.podRefsOf(host)).toEqual([{ kind: 'Pod', name: 'web-1-x-default-x-vc1', namespace: hostNamespace }]);
    await waitFor('managed gauge at 1', async () => (await metricValue(syncer.registry, 'vcsync_managed_objects', { controller: fx.syncerName })) === 1);

    await virtualClient.delete(fx.virtualPath('default', 'web'));
    await waitFor(`host ${fx.resource} deleted`, async () => (await fx.hostCopy(hostClient, hostNamespace, 'web')) === undefined);
    expect(syncer.informers.hasSynced()).toBe(true);
  });
});
