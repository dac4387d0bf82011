import { describe, expect, it } from 'vitest';
import { CoreResources } from '../../../src/kube/api-path.js';
import { WITHOUT_MANAGED_FIELDS } from '../../../src/kube/object-transforms.js';
import { informerKey, SharedInformerFactory } from '../../../src/manager/shared-informers.js';
import { waitFor } from '../../support/wait-for.js';
import { FakeListerWatcher } from '../kube/fake-lister-watcher.js';

const services = { name: 'virtual-services', cluster: 'virtual', resource: CoreResources.services };

describe('SharedInformerFactory: one informer per (cluster, resource, namespace, label selector, transform)', () => {
  it('gives two users of the same watch one informer, and one list and watch on the API', async () => {
    const virtual = new FakeListerWatcher();
    const factory = new SharedInformerFactory({ clusters: { virtual, host: new FakeListerWatcher() } });
    const first = factory.informer(services);
    const second = factory.informer({ ...services, name: 'made-up-services' });
    expect(second).toBe(first);
    expect(first.name).toBe('virtual-services');
    const abort = new AbortController();
    const running = factory.run(abort.signal);
    await waitFor('synced', () => factory.hasSynced());
    await waitFor('the watch open', () => virtual.watches.length === 1);
    expect(virtual.listCalls).toHaveLength(1);
    abort.abort();
    await running;
  });

  it.each([
    ['another cluster', { cluster: 'host' }],
    ['another resource', { resource: CoreResources.endpoints }],
    ['another namespace', { namespace: 'ns1' }],
    ['another label selector', { labelSelector: 'a=b' }],
    ['another transform (what its cache keeps)', { transform: WITHOUT_MANAGED_FIELDS }],
  ])('keeps a watch of %s apart', (_label, change) => {
    const factory = new SharedInformerFactory({ clusters: { virtual: new FakeListerWatcher(), host: new FakeListerWatcher() } });
    expect(informerKey({ ...services, ...change })).not.toBe(informerKey(services));
    expect(factory.informer({ ...services, ...change })).not.toBe(factory.informer(services));
    expect(factory.informers()).toHaveLength(2);
  });

  it('starts an informer requested while running, and stops every informer on the signal', async () => {
    const virtual = new FakeListerWatcher();
    const factory = new SharedInformerFactory({ clusters: { virtual } });
    factory.informer(services);
    const abort = new AbortController();
    const running = factory.run(abort.signal);
    await waitFor('the first watch open', () => virtual.watches.length === 1);
    const late = factory.informer({ name: 'virtual-endpoints', cluster: 'virtual', resource: CoreResources.endpoints });
    await waitFor('the late informer synced', () => late.hasSynced() && virtual.watches.length === 2);
    expect(factory.disconnected()).toEqual([]);
    abort.abort();
    await running;
    expect(virtual.watches.every((w) => w.closed)).toBe(true);
  });

  it('names the clusters it knows when asked for another', () => {
    const factory = new SharedInformerFactory({ clusters: { virtual: new FakeListerWatcher() } });
    expect(() => factory.informer({ ...services, cluster: 'elsewhere' })).toThrow('informer virtual-services: no cluster "elsewhere" (known: virtual)');
  });
});
