import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { createService, servicePath } from '../../support/endpoints-fixtures.js';
import { startResourceSyncer, type RunningResourceSyncer } from '../../support/resource-syncer-harness.js';
import { payload, resourceCases } from '../../support/synced-resource-fixtures.js';
import { getOrUndefined, metricValue, runnableBackends, useSyncBackends, type SyncClusters } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';

/**
 * The rules every to-host resource shares (its Service decides, plugins' objects are left alone,
 * labels flow both ways, a converged object costs no write). What only one resource does (for
 * Endpoints: default/kubernetes, the leader annotation, every address field) is in its own suite.
 */
describe.each(resourceCases(runnableBackends('the shared sync rules on a real kube-apiserver')))('$resource sync rules shared by every resource ($virtual virtual, $host host, over HTTP)', (matrix) => {
  const fx = matrix.fixture;
  const startClusters = useSyncBackends(matrix);
  let clusters: SyncClusters;
  let syncer: RunningResourceSyncer | undefined;

  beforeEach(async () => {
    clusters = await startClusters();
  });

  afterEach(async () => {
    await syncer?.stop();
    syncer = undefined;
    await clusters.close();
  });

  const start = async (): Promise<RunningResourceSyncer> => (syncer = await startResourceSyncer(clusters, fx));
  const operations = (result: string): Promise<number> => metricValue(syncer!.registry, 'vcsync_sync_operations_total', { controller: fx.syncerName, result });
  /** Reconciles so far that skipped or removed for `cause`: state from the syncer's metrics, not log text. */
  const skips = (cause: string): Promise<number> => metricValue(syncer!.registry, 'vcsync_sync_skips_total', { controller: fx.syncerName, cause });
  const skipped = (cause: string, atLeast: number) => waitFor(`${atLeast} skips (${cause}) counted`, async () => (await skips(cause)) >= atLeast);
  const hostCopy = (service: string) => fx.hostCopy(clusters.hostClient, clusters.hostNamespace, service);

  it(`does not sync ${fx.resource} without a Service, and syncs them once the Service is created`, async () => {
    const { virtualClient } = clusters;
    await start();
    await fx.createVirtual(virtualClient, 'lonely');
    await skipped('excluded', 1);
    expect(await hostCopy('lonely')).toBeUndefined();

    await createService(virtualClient, 'lonely');
    const host = await waitFor('host copy after the Service appeared', () => hostCopy('lonely'));
    expect(fx.payloadOf(host)).toEqual(payload('10.0.0.1'));
  });

  it(`does not sync ${fx.resource} of a Service with a selector`, async () => {
    const { virtualClient } = clusters;
    await start();
    await createService(virtualClient, 'selected', { selector: { app: 'selected' } });
    await fx.createVirtual(virtualClient, 'selected');
    await skipped('excluded', 1);
    expect(await hostCopy('selected')).toBeUndefined();
  });

  it('deletes the host copy when the Service gains a selector, and syncs again when it loses it', async () => {
    const { virtualClient } = clusters;
    await start();
    await createService(virtualClient, 'web');
    await fx.createVirtual(virtualClient, 'web');
    const first = await waitFor('host copy', () => hostCopy('web'));

    await virtualClient.patch(servicePath('default', 'web'), 'merge', { spec: { selector: { app: 'web' } } });
    await waitFor('host copy deleted after the selector was added', async () => (await hostCopy('web')) === undefined);
    // The virtual object is the tenant's: only the host copy goes.
    expect(await virtualClient.get(fx.virtualPath('default', 'web'))).toBeDefined();

    await virtualClient.patch(servicePath('default', 'web'), 'merge', { spec: { selector: null } });
    const again = await waitFor('host copy after the selector was removed', () => hostCopy('web'));
    expect(again.metadata?.uid).not.toBe(first.metadata?.uid);
    expect(fx.bodyOf(again)).toEqual(fx.bodyOf(first));
  });

  it('deletes the host copy when its Service is deleted, and syncs again when the Service is back', async () => {
    const { virtualClient } = clusters;
    await start();
    await createService(virtualClient, 'web');
    await fx.createVirtual(virtualClient, 'web');
    const first = await waitFor('host copy', () => hostCopy('web'));

    await virtualClient.delete(servicePath('default', 'web'));
    await waitFor('host copy deleted after the Service was', async () => (await hostCopy('web')) === undefined);
    const left = await getOrUndefined(virtualClient, fx.virtualPath('default', 'web'));
    if (matrix.virtual === 'real' && fx.deletedWithService) {
      // kube-apiserver deleted the object with its Service; the tenant writes it again.
      expect(left).toBeUndefined();
      await fx.createVirtual(virtualClient, 'web');
    } else {
      expect(left).toBeDefined();
    }

    await createService(virtualClient, 'web');
    const again = await waitFor('host copy after the Service came back', () => hostCopy('web'));
    expect(again.metadata?.uid).not.toBe(first.metadata?.uid);
    expect(fx.bodyOf(again)).toEqual(fx.bodyOf(first));
  });

  it('leaves a plugin\'s objects alone on both sides: a controlled-by virtual object is not copied, a host copy taken over is neither repaired nor deleted', async () => {
    const { virtualClient, hostClient, hostNamespace } = clusters;
    await start();
    await createService(virtualClient, 'plugged');
    await fx.createVirtual(virtualClient, 'plugged', { labels: { 'vcluster.loft.sh/controlled-by': 'my-plugin' } });
    await skipped('controlled_elsewhere', 1);
    expect(await hostCopy('plugged')).toBeUndefined();

    await createService(virtualClient, 'taken');
    await fx.createVirtual(virtualClient, 'taken');
    await waitFor('host copy of taken', () => hostCopy('taken'));
    // A plugin takes the host copy over (its own syncer's name in the annotation); the host event
    // that brings it to the cache is reconciled, and skipped.
    const beforeTakeover = await skips('controlled_elsewhere');
    await hostClient.patch(fx.hostPath(hostNamespace, 'taken'), 'merge', { metadata: { annotations: { 'vcluster.loft.sh/controlled-by': 'plugin-syncer' } } });
    await skipped('controlled_elsewhere', beforeTakeover + 1);
    const before = await skips('controlled_elsewhere');
    await virtualClient.patch(fx.virtualPath('default', 'taken'), 'merge', fx.payloadPatch(payload('10.9.9.9')));
    await skipped('controlled_elsewhere', before + 1);
    expect(fx.payloadOf(await hostCopy('taken'))).toEqual(payload('10.0.0.1'));

    const beforeDelete = await skips('controlled_elsewhere');
    await virtualClient.delete(fx.virtualPath('default', 'taken'));
    await skipped('controlled_elsewhere', beforeDelete + 1);
    expect(await hostCopy('taken')).toBeDefined();
  });

  it('syncs labels both ways: virtual removals and changes win on the host, a host-side addition flows back', async () => {
    const { virtualClient, hostClient, hostNamespace } = clusters;
    const own = fx.ownLabels('two');
    await start();
    await createService(virtualClient, 'two');
    await fx.createVirtual(virtualClient, 'two', { labels: { app: 'two', tier: 'a' } });
    await waitFor('host copy with both labels', async () => (await hostCopy('two'))?.metadata?.labels?.['tier'] === 'a');

    await virtualClient.patch(fx.virtualPath('default', 'two'), 'merge', { metadata: { labels: { tier: null } } });
    const withoutTier = await waitFor('tier removed on the host', async () => {
      const host = await hostCopy('two');
      return host !== undefined && host.metadata?.labels?.['tier'] === undefined ? host : undefined;
    });
    expect(withoutTier.metadata?.labels?.['app']).toBe('two');

    await hostClient.patch(fx.hostPath(hostNamespace, 'two'), 'merge', { metadata: { labels: { team: 'blue' } } });
    const virtual = await waitFor('the host-side label on the virtual object', async () => {
      const v = await virtualClient.get<KubeObject>(fx.virtualPath('default', 'two'));
      return v.metadata?.labels?.['team'] === 'blue' ? v : undefined;
    });
    expect(virtual.metadata?.labels).toEqual({ ...own, app: 'two', team: 'blue' });

    await virtualClient.patch(fx.virtualPath('default', 'two'), 'merge', { metadata: { labels: { app: 'two-v2' } } });
    const host = await waitFor('the virtual change on the host', async () => {
      const h = await hostCopy('two');
      return h?.metadata?.labels?.['app'] === 'two-v2' ? h : undefined;
    });
    expect(host.metadata?.labels).toMatchObject({ app: 'two-v2', team: 'blue', 'vcluster.loft.sh/managed-by': 'vc1' });
    const finalVirtual = await virtualClient.get<KubeObject>(fx.virtualPath('default', 'two'));
    expect(finalVirtual.metadata?.labels).toEqual({ ...own, app: 'two-v2', team: 'blue' });
  });

  it('converges on what the server stores: once the copies are written, a reconcile answers unchanged and writes nothing', async () => {
    const { virtualClient } = clusters;
    await start();
    const names = ['one', 'two', 'three'];
    for (const [i, name] of names.entries()) {
      await createService(virtualClient, name);
      await fx.createVirtual(virtualClient, name, { payload: { ips: [`10.2.0.${i}`], port: 80 + i } });
    }
    for (const name of names) await waitFor(`host copy of ${name}`, () => hostCopy(name));
    await waitFor('every copy created once', async () => (await operations('created')) === names.length);
    const updatedBefore = await operations('updated');
    const unchangedBefore = await operations('unchanged');
    // A Service change wakes its objects: each reconcile must now find the copy as desired.
    for (const name of names) {
      await virtualClient.patch(servicePath('default', name), 'merge', { metadata: { labels: { touched: 'yes' } } });
    }
    await waitFor(`a reconcile of every woken ${fx.resource}`, async () => (await operations('unchanged')) >= unchangedBefore + names.length);
    expect(await operations('updated')).toBe(updatedBefore);
    expect(updatedBefore).toBe(0);
  });
});
