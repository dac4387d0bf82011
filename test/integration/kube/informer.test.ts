import { afterEach, describe, expect, it } from 'vitest';
import { CoreResources, collectionPath, objectPath } from '../../../src/kube/api-path.js';
import { Informer, type InformerOptions } from '../../../src/kube/informer.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { startDevCluster, type DevClusterOptions } from '../../../src/devcluster/index.js';
import { waitFor } from '../../support/wait-for.js';
import { metricValue, startTestBed, tempDir, type TestBed } from './support.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.stop();
  bed = undefined;
});

const cms = collectionPath(CoreResources.configMaps, 'default');
const cm = (name: string): string => objectPath(CoreResources.configMaps, 'default', name);

/** Starts an informer on default/configmaps recording every delivery as a line. */
function startInformer(testBed: TestBed, options: Partial<InformerOptions> = {}): { informer: Informer<ConfigMap>; log: string[] } {
  const informer = new Informer<ConfigMap>({
    name: 'configmaps',
    client: testBed.client,
    resource: CoreResources.configMaps,
    namespace: 'default',
    metrics: testBed.metrics,
    resyncPeriodMs: 0,
    initialBackoffMs: 50,
    maxBackoffMs: 400,
    ...options,
  });
  const log: string[] = [];
  informer.addHandler({
    onAdd: (o) => {
      log.push(`add ${o.metadata?.name}`);
    },
    onUpdate: (old, cur) => {
      log.push(old === cur ? `resync ${cur.metadata?.name}` : `update ${cur.metadata?.name} ${cur.data?.['v'] ?? ''}`);
    },
    onDelete: (o) => {
      log.push(`delete ${o.metadata?.name}`);
    },
  });
  const controller = new AbortController();
  const running = informer.run(controller.signal);
  testBed.defer(async () => {
    controller.abort();
    await running;
  });
  return { informer, log };
}

async function synced(informer: Informer<ConfigMap>): Promise<void> {
  const waiting = new AbortController();
  const timer = setTimeout(() => waiting.abort(), 20_000);
  try {
    expect(await informer.waitForCacheSync(waiting.signal)).toBe(true);
  } finally {
    clearTimeout(timer);
  }
}

describe('Informer against a devcluster', () => {
  it('sees create, update and delete in order and keeps its cache in step', async () => {
    bed = await startTestBed();
    await bed.client.create(cms, { metadata: { name: 'before' } });
    const { informer, log } = startInformer(bed);
    await synced(informer);
    expect(log).toEqual(['add before']);
    const created = await bed.client.create<ConfigMap>(cms, { metadata: { name: 'x' }, data: { v: '1' } });
    await bed.client.update(cm('x'), { ...created, data: { v: '2' } });
    await bed.client.patch(cm('x'), 'merge', { data: { v: '3' } });
    await bed.client.delete(cm('x'));
    await waitFor('four more deliveries', () => log.length >= 5);
    expect(log).toEqual(['add before', 'add x', 'update x 2', 'update x 3', 'delete x']);
    expect(informer.get('default/x')).toBeUndefined();
    expect(informer.list().map((o) => o.metadata?.name)).toEqual(['before']);
  });

  it('relists when its resourceVersion has fallen out of the watch window (410)', async () => {
    bed = await startTestBed({ watchWindow: 5 });
    const testBed = bed;
    await testBed.client.create(cms, { metadata: { name: 'watched-1', labels: { app: 'watched' } } });
    const { informer, log } = startInformer(testBed, {
      labelSelector: 'app=watched',
      minWatchTimeoutSeconds: 2,
      maxWatchTimeoutSeconds: 3,
    });
    await synced(informer);
    // Writes the informer does not see push its resourceVersion out of the 5-event window, so the
    // next watch (after the server ends this one) is answered 410 and the reflector must relist.
    for (let i = 0; i < 12; i++) await testBed.client.create(cms, { metadata: { name: `noise-${i}` } });
    await waitFor('a relist', async () => (await metricValue(testBed.registry, 'vcsync_watch_relists_total', { informer: 'configmaps' })) >= 2);
    await testBed.client.create(cms, { metadata: { name: 'watched-2', labels: { app: 'watched' } } });
    await waitFor('the object created after the relist', () => informer.get('default/watched-2'));
    expect(log).toEqual(['add watched-1', 'add watched-2']);
    expect(informer.list().map((o) => o.metadata?.name).sort()).toEqual(['watched-1', 'watched-2']);
  });

  it('restarts a watch the server ends (timeoutSeconds) from its resourceVersion without relisting', async () => {
    bed = await startTestBed();
    const testBed = bed;
    const { informer, log } = startInformer(testBed, { minWatchTimeoutSeconds: 1, maxWatchTimeoutSeconds: 2 });
    await synced(informer);
    await waitFor('two watch restarts', async () => (await metricValue(testBed.registry, 'vcsync_watch_restarts_total', { informer: 'configmaps' })) >= 2);
    await testBed.client.create(cms, { metadata: { name: 'late' } });
    await waitFor('the object created after restarts', () => log.includes('add late'));
    expect(await metricValue(testBed.registry, 'vcsync_watch_relists_total', { informer: 'configmaps' })).toBe(1);
    expect(log).toEqual(['add late']);
  });

  it('catches up after the devcluster restarts on the same port with the same data', async () => {
    const data = await tempDir();
    bed = await startTestBed({ dataDir: data.dir });
    const testBed = bed;
    testBed.defer(data.remove);
    const port = Number(new URL(testBed.cluster.url).port);
    await testBed.client.create(cms, { metadata: { name: 'kept' } });
    await testBed.client.create(cms, { metadata: { name: 'doomed' } });
    const { informer, log } = startInformer(testBed);
    await synced(informer);
    expect(informer.connected()).toBe(true);
    await testBed.cluster.close();
    await waitFor('the informer to report the lost API server', () => !informer.connected());

    const options: DevClusterOptions = { port, dataDir: data.dir };
    const restarted = await startDevCluster(options);
    testBed.defer(() => restarted.close());
    await waitFor('the informer to reconnect', () => informer.connected());
    await testBed.client.delete(cm('doomed'));
    await testBed.client.patch(cm('kept'), 'merge', { data: { v: 'after' } });
    await testBed.client.create(cms, { metadata: { name: 'new' } });
    await waitFor('the object created after the restart', () => informer.get('default/new'));
    await waitFor('the delete made after the restart', () => informer.get('default/doomed') === undefined);
    await waitFor('the update made after the restart', () => informer.get('default/kept')?.data?.['v'] === 'after');
    expect(log.slice(0, 2).sort()).toEqual(['add doomed', 'add kept']);
    expect(log.slice(2).sort()).toEqual(['add new', 'delete doomed', 'update kept after']);
  });

  it('redelivers every cached object on each resync period', async () => {
    bed = await startTestBed();
    await bed.client.create(cms, { metadata: { name: 'a' } });
    await bed.client.create(cms, { metadata: { name: 'b' } });
    const { informer, log } = startInformer(bed, { resyncPeriodMs: 300, resyncJitter: 0 });
    await synced(informer);
    await waitFor('two resync rounds', () => log.filter((l) => l.startsWith('resync')).length >= 4);
    expect(log.slice(0, 2).sort()).toEqual(['add a', 'add b']);
    expect(log.filter((l) => l.startsWith('resync')).slice(0, 4).sort()).toEqual(['resync a', 'resync a', 'resync b', 'resync b']);
  });
});
