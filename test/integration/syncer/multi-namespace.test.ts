import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createService } from '../../support/endpoints-fixtures.js';
import { startResourceSyncer, type RunningResourceSyncer } from '../../support/resource-syncer-harness.js';
import { resourceCases } from '../../support/synced-resource-fixtures.js';
import { ensureNamespace, runnableBackends, useSyncBackends, type SyncClusters } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';

const NAMESPACE_MAPPINGS = [
  '    namespaces:',
  '      enabled: true',
  '      mappings:',
  '        byName:',
  '          shop: ${name}-shop',
  '          "team-*": "${name}-team-*"',
];

describe.each(resourceCases(runnableBackends('multi-namespace sync on a real kube-apiserver')))('$resource sync in multi-namespace mode ($virtual virtual, $host host)', (matrix) => {
  const fx = matrix.fixture;
  const startClusters = useSyncBackends(matrix);
  let clusters: SyncClusters;
  let syncer: RunningResourceSyncer | undefined;

  beforeEach(async () => {
    clusters = await startClusters();
    for (const name of ['vc1-shop', 'vc1-team-a']) {
      await ensureNamespace(clusters.hostClient, name);
    }
    for (const name of ['shop', 'team-a', 'other']) {
      await ensureNamespace(clusters.virtualClient, name);
    }
    syncer = await startResourceSyncer(clusters, fx, { configYaml: fx.configYaml(NAMESPACE_MAPPINGS) });
  });
  afterEach(async () => {
    await syncer?.stop();
    await clusters.close();
  });

  async function createPair(namespace: string, name: string): Promise<void> {
    await createService(clusters.virtualClient, name, { namespace });
    await fx.createVirtual(clusters.virtualClient, name, { namespace, payload: { ips: ['10.0.0.1'], port: 80, pods: [`${name}-0`] } });
  }
  const hostCopyAt = (hostNamespace: string, hostName: string) => fx.list(clusters.hostClient, hostNamespace).then((items) => items.find((o) => o.metadata?.name === hostName));

  it('keeps names in mapped namespaces (exact and pattern) and hashes unmapped ones into the shared namespace', async () => {
    await createPair('shop', 'web');
    await createPair('team-a', 'api');
    await createPair('other', 'db');

    const mapped = await waitFor('shop/web in vc1-shop', () => hostCopyAt('vc1-shop', fx.objectName('web')));
    expect(mapped.metadata?.labels?.['vcluster.loft.sh/managed-by']).toBe('vc1');
    expect(fx.podRefsOf(mapped)).toEqual([{ kind: 'Pod', name: 'web-0', namespace: 'vc1-shop' }]);

    await waitFor('team-a/api in vc1-team-a', () => hostCopyAt('vc1-team-a', fx.objectName('api')));
    await waitFor('other/db hashed into the shared namespace', () => hostCopyAt(clusters.hostNamespace, fx.hostObjectName('db', 'other')));

    await clusters.virtualClient.delete(fx.virtualPath('shop', 'web'));
    await waitFor('mapped copy deleted', async () => (await hostCopyAt('vc1-shop', fx.objectName('web'))) === undefined);
  });
});
