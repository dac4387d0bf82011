import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { createService, eventsAbout } from '../../support/endpoints-fixtures.js';
import { startResourceSyncer, type RunningResourceSyncer, type StartSyncerOptions } from '../../support/resource-syncer-harness.js';
import { payload, resourceCases } from '../../support/synced-resource-fixtures.js';
import { metricValue, runnableBackends, useSyncBackends, type SyncClusters } from '../../support/sync-harness.js';
import { captureLogger } from '../../support/log-capture.js';
import { waitFor } from '../../support/wait-for.js';

describe.each(resourceCases(runnableBackends('the synced resources\' lifecycle on a real kube-apiserver')))('$resource lifecycle ($virtual virtual, $host host, over HTTP)', (matrix) => {
  const fx = matrix.fixture;
  const startClusters = useSyncBackends(matrix);
  let clusters: SyncClusters;
  const syncers: RunningResourceSyncer[] = [];

  beforeEach(async () => {
    clusters = await startClusters();
  });

  afterEach(async () => {
    for (const syncer of syncers.splice(0)) await syncer.stop();
    await clusters.close();
  });

  const start = async (options: StartSyncerOptions = {}): Promise<RunningResourceSyncer> => {
    const syncer = await startResourceSyncer(clusters, fx, options);
    syncers.push(syncer);
    return syncer;
  };
  const hostCopy = (service: string) => fx.hostCopy(clusters.hostClient, clusters.hostNamespace, service);
  const hostPath = (service: string) => fx.hostPath(clusters.hostNamespace, service);

  it(`deletes the host copy when the virtual ${fx.resource} are deleted, and only that one, logging both keys`, async () => {
    const { virtualClient } = clusters;
    const log = captureLogger('debug'); // each write's own line is at debug; info has one summary line per interval
    const syncer = await start({ logger: log.logger });
    for (const name of ['a', 'b']) {
      await createService(virtualClient, name);
      await fx.createVirtual(virtualClient, name);
    }
    await waitFor('both host copies', async () => (await hostCopy('a')) !== undefined && (await hostCopy('b')) !== undefined);
    await virtualClient.delete(fx.virtualPath('default', 'a'));
    await waitFor('host copy of a deleted', async () => (await hostCopy('a')) === undefined);
    expect(await hostCopy('b')).toBeDefined();
    // Every write is logged with the virtual key and the host key, deletes included.
    await waitFor('the delete counted', async () => (await metricValue(syncer.registry, 'vcsync_sync_operations_total', { result: 'deleted' })) >= 1);
    expect(log.matching('deleted host object')[0]).toMatchObject({
      key: `default/${fx.objectName('a')}`,
      host: `${clusters.hostNamespace}/${fx.hostObjectName('a')}`,
      reason: 'virtual object deleted',
    });
  });

  it('logs host writes at info as one summary line with counts, never a line per object', async () => {
    const { virtualClient } = clusters;
    const log = captureLogger('info');
    const syncer = await start({ logger: log.logger });
    for (const name of ['a', 'b', 'c']) {
      await createService(virtualClient, name);
      await fx.createVirtual(virtualClient, name);
    }
    await waitFor('three creates counted', async () => (await metricValue(syncer.registry, 'vcsync_sync_operations_total', { result: 'created' })) >= 3);
    await virtualClient.delete(fx.virtualPath('default', 'a'));
    await waitFor('the delete counted', async () => (await metricValue(syncer.registry, 'vcsync_sync_operations_total', { result: 'deleted' })) >= 1);
    await syncer.stop(); // a stopping controller logs what it counted since the last summary
    expect(log.matching('created host object')).toEqual([]);
    expect(log.matching('deleted host object')).toEqual([]);
    const summaries = log.matching('synced host objects');
    const total = (field: string): number => summaries.reduce((sum, line) => sum + Number(line[field]), 0);
    expect({ created: total('created'), deleted: total('deleted'), updated: total('updated'), recreated: total('recreated') }).toEqual({ created: 3, deleted: 1, updated: 0, recreated: 0 });
    // Logs name the controller as metrics do (the registry's name), so a log line and a series can be matched.
    expect(summaries[0]).toMatchObject({ controller: fx.syncerName });
  });

  it('recreates a host copy someone deleted (vcsync never deletes tenant data for a host-side action)', async () => {
    const { virtualClient, hostClient } = clusters;
    await start();
    await createService(virtualClient, 'web');
    await fx.createVirtual(virtualClient, 'web', { payload: payload('10.0.0.7') });
    const first = await waitFor('host copy', () => hostCopy('web'));
    await hostClient.delete(hostPath('web'));
    const again = await waitFor('host copy recreated', async () => {
      const host = await hostCopy('web');
      return host !== undefined && host.metadata?.uid !== first.metadata?.uid ? host : undefined;
    });
    expect(fx.bodyOf(again)).toEqual(fx.bodyOf(first));
    expect(fx.payloadOf(again)).toEqual(payload('10.0.0.7'));
    expect(await virtualClient.get(fx.virtualPath('default', 'web'))).toBeDefined();
  });

  it(`repairs the ${fx.resource}' addresses and ports edited on the host from the virtual object, keeping host-only labels`, async () => {
    const { virtualClient, hostClient } = clusters;
    await start();
    await createService(virtualClient, 'web');
    const virtualBefore = await fx.createVirtual(virtualClient, 'web', { payload: payload('10.0.0.8') });
    const synced = await waitFor('host copy', () => hostCopy('web'));
    await hostClient.patch(hostPath('web'), 'merge', { ...fx.payloadPatch(payload('6.6.6.6', 666)), metadata: { labels: { 'host-tool': 'x' } } });
    const repaired = await waitFor('host payload repaired', async () => {
      const host = await hostCopy('web');
      return fx.payloadOf(host)?.ips[0] === '10.0.0.8' && fx.payloadOf(host)?.port === 8080 ? host : undefined;
    });
    expect(fx.bodyOf(repaired)).toEqual(fx.bodyOf(synced));
    expect(repaired.metadata?.labels?.['host-tool']).toBe('x');
    // The payload flows only virtual → host.
    const virtual = await virtualClient.get<KubeObject>(fx.virtualPath('default', 'web'));
    expect(fx.bodyOf(virtual)).toEqual(fx.bodyOf(virtualBefore));
  });

  it('recreates the host copy when the virtual object was deleted and recreated while the syncer was stopped', async () => {
    const { virtualClient } = clusters;
    const first = await start();
    await createService(virtualClient, 'web');
    const oldVirtual = await fx.createVirtual(virtualClient, 'web', { payload: payload('10.0.0.1') });
    const oldHost = await waitFor('host copy', () => hostCopy('web'));
    expect(oldHost.metadata?.annotations?.['vcluster.loft.sh/object-uid']).toBe(oldVirtual.metadata?.uid);
    await first.stop();

    await virtualClient.delete(fx.virtualPath('default', 'web'));
    const newVirtual = await fx.createVirtual(virtualClient, 'web', { payload: payload('10.0.0.2') });
    expect(newVirtual.metadata?.uid).not.toBe(oldVirtual.metadata?.uid);

    const second = await start();
    const newHost = await waitFor('host copy of the new incarnation', async () => {
      const host = await hostCopy('web');
      return host?.metadata?.annotations?.['vcluster.loft.sh/object-uid'] === newVirtual.metadata?.uid ? host : undefined;
    });
    expect(newHost.metadata?.uid).not.toBe(oldHost.metadata?.uid);
    expect(fx.payloadOf(newHost)).toEqual(payload('10.0.0.2'));
    await waitFor('recreated counted', async () => (await metricValue(second.registry, 'vcsync_sync_operations_total', { result: 'recreated' })) >= 1);
  });

  if (fx.foreignHostObject === 'replaced') {
    it(`replaces a foreign host ${fx.kind} of the copy's name with the synced copy`, async () => {
      const { virtualClient, hostClient, hostNamespace } = clusters;
      const foreign = await fx.createVirtual(hostClient, 'web', { namespace: hostNamespace, name: fx.hostObjectName('web'), labels: { owner: 'host-team' }, payload: payload('192.168.0.1') });
      const syncer = await start({ events: 'recorder' });
      await createService(virtualClient, 'web');
      await fx.createVirtual(virtualClient, 'web', { payload: payload('10.0.0.1') });
      const synced = await waitFor('the synced copy in place of the foreign object', async () => {
        const host = await hostCopy('web');
        return host?.metadata?.labels?.['vcluster.loft.sh/managed-by'] === 'vc1' ? host : undefined;
      });
      expect(synced.metadata?.uid).not.toBe(foreign.metadata?.uid);
      expect(synced.metadata?.labels?.['owner']).toBeUndefined();
      expect(fx.payloadOf(synced)).toEqual(payload('10.0.0.1'));
      await waitFor('the replacement counted', async () => (await metricValue(syncer.registry, 'vcsync_sync_operations_total', { result: 'recreated' })) + (await metricValue(syncer.registry, 'vcsync_sync_operations_total', { result: 'created' })) >= 1);
      expect(await eventsAbout(virtualClient, 'default', fx.kind, fx.objectName('web'))).toEqual([]);
    });
  } else {
    it(`leaves a foreign host ${fx.kind} of the same name alone and records a SyncError event saying what to do`, async () => {
      const { virtualClient, hostClient, hostNamespace } = clusters;
      // A host object of the copy's name that vcsync did not write.
      const foreign = await fx.createVirtual(hostClient, 'web', { namespace: hostNamespace, name: fx.hostObjectName('web'), labels: { owner: 'host-team' }, payload: payload('192.168.0.1') });
      const syncer = await start({ events: 'recorder' });
      await createService(virtualClient, 'web');
      await fx.createVirtual(virtualClient, 'web', { payload: payload('10.0.0.1') });
      const [event] = await waitFor(`a SyncError event on the virtual ${fx.kind}`, async () => {
        const events = await eventsAbout(virtualClient, 'default', fx.kind, fx.objectName('web'));
        return events.length > 0 ? events : undefined;
      });
      expect(event).toMatchObject({
        type: 'Warning',
        reason: 'SyncError',
        involvedObject: { kind: fx.kind, namespace: 'default', name: fx.objectName('web'), apiVersion: fx.apiVersion },
      });
      expect(event?.message).toContain(`${hostNamespace}/${fx.hostObjectName('web')}`);
      expect(event?.message).toContain('not written by virtual cluster vc1');
      // Not retried with backoff: a host object the syncer does not own will not go away by itself.
      await waitFor('terminal error counted', async () => (await metricValue(syncer.registry, 'vcsync_sync_operations_total', { result: 'terminal_error' })) >= 1);
      const after = await hostClient.get<KubeObject>(hostPath('web'));
      expect(after.metadata?.resourceVersion).toBe(foreign.metadata?.resourceVersion);
      expect(fx.payloadOf(after)).toEqual(payload('192.168.0.1'));

      // Once the host owner removes it, the next change syncs.
      await hostClient.delete(hostPath('web'));
      await virtualClient.patch(fx.virtualPath('default', 'web'), 'merge', { metadata: { labels: { retry: 'now' } } });
      const synced = await waitFor('host copy after the foreign object went', async () => {
        const host = await hostCopy('web');
        return host?.metadata?.labels?.['vcluster.loft.sh/managed-by'] === 'vc1' ? host : undefined;
      });
      expect(fx.payloadOf(synced)).toEqual(payload('10.0.0.1'));
    });
  }

  it('converges many objects while the host copies are edited concurrently', async () => {
    const { virtualClient, hostClient } = clusters;
    await start({ workers: 4 });
    const names = Array.from({ length: 24 }, (_, i) => `svc-${i}`);
    await Promise.all(names.map((name) => createService(virtualClient, name)));
    await Promise.all(names.map((name, i) => fx.createVirtual(virtualClient, name, { labels: { app: name }, payload: payload(`10.2.0.${i}`) })));

    // Race the syncer: host-side drift and virtual-side changes on every object, several rounds.
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        names.map(async (name, i) => {
          try {
            await hostClient.patch(hostPath(name), 'merge', { ...fx.payloadPatch(payload(`6.6.${round}.${i}`)), metadata: { labels: { [`host-${round}`]: 'x' } } });
          } catch {
            // Not created yet, or being recreated: the race is the point, not every edit landing.
          }
          await virtualClient.patch(fx.virtualPath('default', name), 'merge', fx.payloadPatch(payload(`10.3.${round}.${i}`)));
        }),
      );
    }

    await waitFor(
      'every host copy equal to its virtual object',
      async () => {
        for (const [i, name] of names.entries()) {
          const host = await hostCopy(name);
          if (JSON.stringify(fx.payloadOf(host)) !== JSON.stringify(payload(`10.3.2.${i}`))) return false;
          // The test's own labels (a fixture's own label, such as a slice's Service name, is translated).
          if (host?.metadata?.labels?.['app'] !== name) return false;
        }
        return true;
      },
      { timeoutMs: 45_000, intervalMs: 200 },
    );
    const hostObjects = await fx.list(hostClient, clusters.hostNamespace);
    expect(hostObjects.map((e) => e.metadata?.name).sort()).toEqual(names.map((n) => fx.hostObjectName(n)).sort());
  });
});
