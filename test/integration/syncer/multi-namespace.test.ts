import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import { ensureNamespace, getOrUndefined, runnableBackends, startEndpointsSyncer, useSyncBackends, type RunningSyncer, type SyncClusters } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';

const CONFIG = [
  'sync:',
  '  toHost:',
  '    endpoints:',
  '      enabled: true',
  '    namespaces:',
  '      enabled: true',
  '      mappings:',
  '        byName:',
  '          shop: ${name}-shop',
  '          "team-*": "${name}-team-*"',
  '',
].join('\n');

describe.each(runnableBackends('multi-namespace sync on a real kube-apiserver'))('Endpoints sync in multi-namespace mode ($virtual virtual, $host host)', (backends) => {
  const startClusters = useSyncBackends(backends);
  let clusters: SyncClusters;
  let syncer: RunningSyncer | undefined;

  beforeEach(async () => {
    clusters = await startClusters();
    for (const name of ['vc1-shop', 'vc1-team-a']) {
      await ensureNamespace(clusters.hostClient, name);
    }
    for (const name of ['shop', 'team-a', 'other']) {
      await ensureNamespace(clusters.virtualClient, name);
    }
    syncer = await startEndpointsSyncer(clusters, { configYaml: CONFIG });
  });
  afterEach(async () => {
    await syncer?.stop();
    await clusters.close();
  });

  async function createPair(namespace: string, name: string): Promise<void> {
    await clusters.virtualClient.create(`/api/v1/namespaces/${namespace}/services`, {
      apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }] },
    });
    await clusters.virtualClient.create(`/api/v1/namespaces/${namespace}/endpoints`, {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name },
      subsets: [{ addresses: [{ ip: '10.0.0.1', targetRef: { kind: 'Pod', name: `${name}-0`, namespace } }], ports: [{ port: 80 }] }],
    });
  }

  it('keeps names in mapped namespaces (exact and pattern) and hashes unmapped ones into the shared namespace', async () => {
    await createPair('shop', 'web');
    await createPair('team-a', 'api');
    await createPair('other', 'db');

    const mapped = await waitFor('shop/web in vc1-shop', () => getOrUndefined<Endpoints>(clusters.hostClient, '/api/v1/namespaces/vc1-shop/endpoints/web'));
    expect(mapped.metadata?.labels?.['vcluster.loft.sh/managed-by']).toBe('vc1');
    expect(mapped.subsets?.[0]?.addresses?.[0]?.targetRef).toEqual({ kind: 'Pod', name: 'web-0', namespace: 'vc1-shop' });

    await waitFor('team-a/api in vc1-team-a', () => getOrUndefined<Endpoints>(clusters.hostClient, '/api/v1/namespaces/vc1-team-a/endpoints/api'));
    await waitFor('other/db hashed into the shared namespace', () =>
      getOrUndefined<Endpoints>(clusters.hostClient, `/api/v1/namespaces/${clusters.hostNamespace}/endpoints/db-x-other-x-vc1`));

    await clusters.virtualClient.delete('/api/v1/namespaces/shop/endpoints/web');
    await waitFor('mapped copy deleted', async () =>
      (await getOrUndefined(clusters.hostClient, '/api/v1/namespaces/vc1-shop/endpoints/web')) === undefined);
  });
});
