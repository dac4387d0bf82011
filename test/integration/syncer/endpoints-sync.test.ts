import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import { getOrUndefined, metricValue, runnableBackends, startEndpointsSyncer, useSyncBackends, type RunningSyncer, type SyncClusters } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';

const VC = 'vc1';

describe.each(runnableBackends('the Endpoints syncer on a real kube-apiserver'))('Endpoints syncer ($virtual virtual, $host host)', (backends) => {
  const startClusters = useSyncBackends(backends);
  let clusters: SyncClusters;
  let running: RunningSyncer | undefined;

  beforeEach(async () => {
    clusters = await startClusters();
    running = await startEndpointsSyncer(clusters, { vclusterName: VC });
  });

  afterEach(async () => {
    await running?.stop();
    running = undefined;
    await clusters.close();
  });

  it('copies Endpoints of a selector-less Service to the host namespace, translated', async () => {
    const { virtualClient, hostClient, hostNamespace } = clusters;
    const syncer = running!;
    await virtualClient.create('/api/v1/namespaces/default/services', {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] },
    });
    await virtualClient.create('/api/v1/namespaces/default/endpoints', {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', labels: { app: 'web' } },
      subsets: [{ addresses: [{ ip: '10.0.0.1', targetRef: { kind: 'Pod', name: 'web-1', namespace: 'default', uid: 'abc' } }], ports: [{ port: 8080 }] }],
    });
    const host = await waitFor('host endpoints', () =>
      getOrUndefined<Endpoints>(hostClient, `/api/v1/namespaces/${hostNamespace}/endpoints/web-x-default-x-vc1`));
    expect(host.metadata?.labels).toMatchObject({ app: 'web', 'vcluster.loft.sh/managed-by': VC, 'vcluster.loft.sh/namespace': 'default' });
    expect(host.subsets?.[0]?.addresses?.[0]).toEqual({ ip: '10.0.0.1', targetRef: { kind: 'Pod', name: 'web-1-x-default-x-vc1', namespace: hostNamespace } });
    await waitFor('managed gauge at 1', async () => (await metricValue(syncer.registry, 'vcsync_managed_objects', { controller: 'endpoints' })) === 1);

    await virtualClient.delete('/api/v1/namespaces/default/endpoints/web');
    await waitFor('host endpoints deleted', async () =>
      (await getOrUndefined(hostClient, `/api/v1/namespaces/${hostNamespace}/endpoints/web-x-default-x-vc1`)) === undefined);
    expect(syncer.syncer.hasSynced()).toBe(true);
  });
});
