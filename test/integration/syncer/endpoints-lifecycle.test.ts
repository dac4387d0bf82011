import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import {
  createEndpoints,
  createService,
  endpointsPath,
  eventsAbout,
  getHostEndpoints,
  hostName,
  simpleSubset,
} from '../../support/endpoints-fixtures.js';
import { metricValue, runnableBackends, startEndpointsSyncer, useSyncBackends, type RunningSyncer, type SyncClusters } from '../../support/sync-harness.js';
import { captureLogger } from '../../support/log-capture.js';
import { waitFor } from '../../support/wait-for.js';

describe.each(runnableBackends('the Endpoints lifecycle on a real kube-apiserver'))('Endpoints lifecycle ($virtual virtual, $host host, over HTTP)', (backends) => {
  const startClusters = useSyncBackends(backends);
  let clusters: SyncClusters;
  const syncers: RunningSyncer[] = [];

  beforeEach(async () => {
    clusters = await startClusters();
  });

  afterEach(async () => {
    for (const syncer of syncers.splice(0)) await syncer.stop();
    await clusters.close();
  });

  const start = async (options: Parameters<typeof startEndpointsSyncer>[1] = {}): Promise<RunningSyncer> => {
    const syncer = await startEndpointsSyncer(clusters, options);
    syncers.push(syncer);
    return syncer;
  };
  const hostCopy = (name: string) => getHostEndpoints(clusters.hostClient, clusters.hostNamespace, name);
  const hostPath = (name: string) => endpointsPath(clusters.hostNamespace, hostName(name));

  it('deletes the host copy when the virtual Endpoints are deleted, and only that one, logging both keys', async () => {
    const { virtualClient } = clusters;
    const log = captureLogger('debug'); // each write's own line is at debug; info has one summary line per interval
    const syncer = await start({ logger: log.logger });
    for (const name of ['a', 'b']) {
      await createService(virtualClient, name);
      await createEndpoints(virtualClient, name);
    }
    await waitFor('both host copies', async () => (await hostCopy('a')) !== undefined && (await hostCopy('b')) !== undefined);
    await virtualClient.delete(endpointsPath('default', 'a'));
    await waitFor('host copy of a deleted', async () => (await hostCopy('a')) === undefined);
    expect(await hostCopy('b')).toBeDefined();
    // Every write is logged with the virtual key and the host key, deletes included.
    await waitFor('the delete counted', async () => (await metricValue(syncer.registry, 'vcsync_sync_operations_total', { result: 'deleted' })) >= 1);
    expect(log.matching('deleted host object')[0]).toMatchObject({ key: 'default/a', host: `${clusters.hostNamespace}/${hostName('a')}`, reason: 'virtual object deleted' });
  });

  it('logs host writes at info as one summary line with counts, never a line per object', async () => {
    const { virtualClient } = clusters;
    const log = captureLogger('info');
    const syncer = await start({ logger: log.logger });
    for (const name of ['a', 'b', 'c']) {
      await createService(virtualClient, name);
      await createEndpoints(virtualClient, name);
    }
    await waitFor('three creates counted', async () => (await metricValue(syncer.registry, 'vcsync_sync_operations_total', { result: 'created' })) >= 3);
    await virtualClient.delete(endpointsPath('default', 'a'));
    await waitFor('the delete counted', async () => (await metricValue(syncer.registry, 'vcsync_sync_operations_total', { result: 'deleted' })) >= 1);
    await syncer.stop(); // a stopping controller logs what it counted since the last summary
    expect(log.matching('created host object')).toEqual([]);
    expect(log.matching('deleted host object')).toEqual([]);
    const summaries = log.matching('synced host objects');
    const total = (field: string): number => summaries.reduce((sum, line) => sum + Number(line[field]), 0);
    expect({ created: total('created'), deleted: total('deleted'), updated: total('updated'), recreated: total('recreated') }).toEqual({ created: 3, deleted: 1, updated: 0, recreated: 0 });
    expect(summaries[0]).toMatchObject({ controller: 'endpoints' });
  });

  it('recreates a host copy someone deleted (vcsync never deletes tenant data for a host-side action)', async () => {
    const { virtualClient, hostClient } = clusters;
    await start();
    await createService(virtualClient, 'web');
    await createEndpoints(virtualClient, 'web', { subsets: [simpleSubset('10.0.0.7')] });
    const first = await waitFor('host copy', () => hostCopy('web'));
    await hostClient.delete(hostPath('web'));
    const again = await waitFor('host copy recreated', async () => {
      const host = await hostCopy('web');
      return host !== undefined && host.metadata?.uid !== first.metadata?.uid ? host : undefined;
    });
    expect(again.subsets).toEqual(first.subsets);
    expect(await virtualClient.get(endpointsPath('default', 'web'))).toBeDefined();
  });

  it('repairs subsets edited on the host from the virtual object, keeping host-only labels', async () => {
    const { virtualClient, hostClient } = clusters;
    await start();
    await createService(virtualClient, 'web');
    await createEndpoints(virtualClient, 'web', { subsets: [simpleSubset('10.0.0.8')] });
    await waitFor('host copy', () => hostCopy('web'));
    await hostClient.patch(hostPath('web'), 'merge', { subsets: [simpleSubset('6.6.6.6', 666)], metadata: { labels: { 'host-tool': 'x' } } });
    const repaired = await waitFor('host subsets repaired', async () => {
      const host = await hostCopy('web');
      return host?.subsets?.[0]?.addresses?.[0]?.ip === '10.0.0.8' ? host : undefined;
    });
    expect(repaired.subsets).toEqual([simpleSubset('10.0.0.8')]);
    expect(repaired.metadata?.labels?.['host-tool']).toBe('x');
    // Subsets flow only virtual → host.
    const virtual = await virtualClient.get<Endpoints>(endpointsPath('default', 'web'));
    expect(virtual.subsets).toEqual([simpleSubset('10.0.0.8')]);
  });

  it('recreates the host copy when the virtual object was deleted and recreated while the syncer was stopped', async () => {
    const { virtualClient } = clusters;
    const first = await start();
    await createService(virtualClient, 'web');
    const oldVirtual = await createEndpoints(virtualClient, 'web', { subsets: [simpleSubset('10.0.0.1')] });
    const oldHost = await waitFor('host copy', () => hostCopy('web'));
    expect(oldHost.metadata?.annotations?.['vcluster.loft.sh/object-uid']).toBe(oldVirtual.metadata?.uid);
    await first.stop();

    await virtualClient.delete(endpointsPath('default', 'web'));
    const newVirtual = await createEndpoints(virtualClient, 'web', { subsets: [simpleSubset('10.0.0.2')] });
    expect(newVirtual.metadata?.uid).not.toBe(oldVirtual.metadata?.uid);

    const second = await start();
    const newHost = await waitFor('host copy of the new incarnation', async () => {
      const host = await hostCopy('web');
      return host?.metadata?.annotations?.['vcluster.loft.sh/object-uid'] === newVirtual.metadata?.uid ? host : undefined;
    });
    expect(newHost.metadata?.uid).not.toBe(oldHost.metadata?.uid);
    expect(newHost.subsets).toEqual([simpleSubset('10.0.0.2')]);
    await waitFor('recreated counted', async () => (await metricValue(second.registry, 'vcsync_sync_operations_total', { result: 'recreated' })) >= 1);
  });

  it('leaves a foreign host Endpoints of the same name alone and records a SyncError event saying what to do', async () => {
    const { virtualClient, hostClient, hostNamespace } = clusters;
    const foreign = await hostClient.create<Endpoints>(`/api/v1/namespaces/${hostNamespace}/endpoints`, {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: hostName('web'), labels: { owner: 'host-team' } },
      subsets: [simpleSubset('192.168.0.1')],
    });
    const syncer = await start({ events: 'recorder' });
    await createService(virtualClient, 'web');
    await createEndpoints(virtualClient, 'web', { subsets: [simpleSubset('10.0.0.1')] });
    const [event] = await waitFor('a SyncError event on the virtual Endpoints', async () => {
      const events = await eventsAbout(virtualClient, 'default', 'Endpoints', 'web');
      return events.length > 0 ? events : undefined;
    });
    expect(event).toMatchObject({ type: 'Warning', reason: 'SyncError', involvedObject: { kind: 'Endpoints', namespace: 'default', name: 'web', apiVersion: 'v1' } });
    expect(event?.message).toContain(`${hostNamespace}/${hostName('web')}`);
    expect(event?.message).toContain('not written by virtual cluster vc1');
    // Not retried with backoff: a host object the syncer does not own will not go away by itself.
    await waitFor('terminal error counted', async () => (await metricValue(syncer.registry, 'vcsync_sync_operations_total', { result: 'terminal_error' })) >= 1);
    const after = await hostClient.get<Endpoints>(hostPath('web'));
    expect(after.metadata?.resourceVersion).toBe(foreign.metadata?.resourceVersion);
    expect(after.subsets).toEqual([simpleSubset('192.168.0.1')]);

    // Once the host owner removes it, the next change syncs.
    await hostClient.delete(hostPath('web'));
    await virtualClient.patch(endpointsPath('default', 'web'), 'merge', { metadata: { labels: { retry: 'now' } } });
    const synced = await waitFor('host copy after the foreign object went', async () => {
      const host = await hostCopy('web');
      return host?.metadata?.labels?.['vcluster.loft.sh/managed-by'] === 'vc1' ? host : undefined;
    });
    expect(synced.subsets).toEqual([simpleSubset('10.0.0.1')]);
  });

  it('converges many objects while the host copies are edited concurrently', async () => {
    const { virtualClient, hostClient } = clusters;
    await start({ workers: 4 });
    const names = Array.from({ length: 24 }, (_, i) => `svc-${i}`);
    await Promise.all(names.map((name) => createService(virtualClient, name)));
    await Promise.all(names.map((name, i) => createEndpoints(virtualClient, name, { labels: { app: name }, subsets: [simpleSubset(`10.2.0.${i}`)] })));

    // Race the syncer: host-side drift and virtual-side changes on every object, several rounds.
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        names.map(async (name, i) => {
          try {
            await hostClient.patch(hostPath(name), 'merge', { subsets: [simpleSubset(`6.6.${round}.${i}`)], metadata: { labels: { [`host-${round}`]: 'x' } } });
          } catch {
            // Not created yet, or being recreated: the race is the point, not every edit landing.
          }
          await virtualClient.patch(endpointsPath('default', name), 'merge', { subsets: [simpleSubset(`10.3.${round}.${i}`)] });
        }),
      );
    }

    await waitFor(
      'every host copy equal to its virtual object',
      async () => {
        for (const [i, name] of names.entries()) {
          const host = await hostCopy(name);
          const virtual = await virtualClient.get<Endpoints>(endpointsPath('default', name));
          if (JSON.stringify(host?.subsets) !== JSON.stringify([simpleSubset(`10.3.2.${i}`)])) return false;
          for (const [key, value] of Object.entries(virtual.metadata?.labels ?? {})) {
            if (host?.metadata?.labels?.[key] !== value) return false;
          }
        }
        return true;
      },
      { timeoutMs: 45_000, intervalMs: 200 },
    );
    const hostObjects = await hostClient.list<Endpoints>(`/api/v1/namespaces/${clusters.hostNamespace}/endpoints`);
    expect(hostObjects.items.map((e) => e.metadata?.name).sort()).toEqual(names.map((n) => hostName(n)).sort());
  });
});
