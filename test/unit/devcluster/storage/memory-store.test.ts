import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type ClosableWatchListener } from '../../../../src/devcluster/storage/open-store.js';
import { StoreError, type Store, type StoreEvent, type StoredObject } from '../../../../src/devcluster/storage/types.js';

const EP = 'core/v1/endpoints';

function endpoints(namespace: string, name: string, ip = '10.0.0.1'): StoredObject {
  return { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace }, subsets: [{ addresses: [{ ip }] }] };
}

async function expectStoreError(promise: Promise<unknown>, code: StoreError['code']): Promise<StoreError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreError);
  expect((error as StoreError).code).toBe(code);
  return error as StoreError;
}

describe('memory store', () => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) {
      await store.close().catch(() => undefined); // already closed by the test itself
    }
  });
  async function open(watchWindow?: number): Promise<Store> {
    const store = await openStore(watchWindow === undefined ? {} : { watchWindow });
    stores.push(store);
    return store;
  }

  it('assigns strictly increasing revisions and stamps resourceVersion on a frozen copy', async () => {
    const store = await open();
    expect(store.currentRevision()).toBe(0);
    const input = endpoints('default', 'a');
    const created = await store.create(EP, input);
    expect(created.metadata.resourceVersion).toBe('1');
    expect(input.metadata.resourceVersion).toBeUndefined();
    expect(Object.isFrozen(created)).toBe(true);
    expect(Object.isFrozen(created.metadata)).toBe(true);
    expect(() => {
      (created.metadata as { name: string }).name = 'x';
    }).toThrow(TypeError);
    input.metadata.name = 'changed-after-create';
    expect(store.get({ resource: EP, namespace: 'default', name: 'a' })?.metadata.name).toBe('a');

    const updated = await store.update(EP, { ...endpoints('default', 'a', '10.0.0.2') });
    expect(updated.metadata.resourceVersion).toBe('2');
    await store.create(EP, endpoints('other', 'b'));
    const deleted = await store.delete({ resource: EP, namespace: 'default', name: 'a' });
    expect(deleted.metadata.resourceVersion).toBe('4');
    expect(deleted['subsets']).toEqual([{ addresses: [{ ip: '10.0.0.2' }] }]);
    expect(store.currentRevision()).toBe(4);
    expect(store.get({ resource: EP, namespace: 'default', name: 'a' })).toBeUndefined();
  });

  it('lists sorted by namespace then name, per namespace, with the revision', async () => {
    const store = await open();
    for (const [ns, name] of [['b', 'z'], ['a', 'y'], ['b', 'a'], ['', 'cluster']] as const) {
      await store.create(EP, endpoints(ns, name));
    }
    await store.create('core/v1/services', endpoints('a', 'other-resource'));
    const all = store.list(EP);
    expect(all.revision).toBe(5);
    expect(all.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['/cluster', 'a/y', 'b/a', 'b/z']);
    expect(store.list(EP, 'b').items.map((o) => o.metadata.name)).toEqual(['a', 'z']);
    expect(store.list('apps/v1/nothing').items).toEqual([]);
  });

  it('fails with AlreadyExists, NotFound and Conflict', async () => {
    const store = await open();
    await store.create(EP, endpoints('default', 'a'));
    await expectStoreError(store.create(EP, endpoints('default', 'a')), 'AlreadyExists');
    await expectStoreError(store.update(EP, endpoints('default', 'missing')), 'NotFound');
    await expectStoreError(store.delete({ resource: EP, namespace: 'default', name: 'missing' }), 'NotFound');
    await expectStoreError(store.update(EP, endpoints('default', 'a'), { resourceVersion: '7' }), 'Conflict');
    await expectStoreError(store.delete({ resource: EP, namespace: 'default', name: 'a' }, { uid: 'nope' }), 'Conflict');
    const ok = await store.update(EP, endpoints('default', 'a'), { resourceVersion: '1' });
    expect(ok.metadata.resourceVersion).toBe('2');
    expect(store.currentRevision()).toBe(2);
  });

  it('lets exactly one of two concurrent updates with the same resourceVersion win', async () => {
    const store = await open();
    await store.create(EP, endpoints('default', 'a'));
    const results = await Promise.allSettled([
      store.update(EP, endpoints('default', 'a', '1.1.1.1'), { resourceVersion: '1' }),
      store.update(EP, endpoints('default', 'a', '2.2.2.2'), { resourceVersion: '1' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.filter((r) => r.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(((rejected[0] as PromiseRejectedResult).reason as StoreError).code).toBe('Conflict');
  });

  it('replays retained events after a revision, then delivers live ones in order, filtered', async () => {
    const store = await open();
    await store.create(EP, endpoints('a', 'one')); // 1
    await store.create(EP, endpoints('b', 'two')); // 2
    await store.create('core/v1/services', endpoints('a', 'svc')); // 3
    await store.update(EP, endpoints('a', 'one', '9.9.9.9')); // 4
    const all: StoreEvent[] = [];
    const onlyA: StoreEvent[] = [];
    store.watch({ resource: EP }, 1, { onEvent: (e) => all.push(e) });
    store.watch({ resource: EP, namespace: 'a' }, 0, { onEvent: (e) => onlyA.push(e) });
    expect(all.map((e) => [e.type, e.revision])).toEqual([['ADDED', 2], ['MODIFIED', 4]]);
    expect(onlyA.map((e) => e.revision)).toEqual([1, 4]);
    await store.delete({ resource: EP, namespace: 'a', name: 'one' }); // 5
    await store.create(EP, endpoints('b', 'three')); // 6
    expect(all.map((e) => [e.type, e.revision])).toEqual([['ADDED', 2], ['MODIFIED', 4], ['DELETED', 5], ['ADDED', 6]]);
    expect(onlyA.map((e) => [e.type, e.revision])).toEqual([['ADDED', 1], ['MODIFIED', 4], ['DELETED', 5]]);
    for (const event of all) {
      expect(Number(event.object.metadata.resourceVersion)).toBe(event.revision);
    }
  });

  it('delivers each event once and in order when listeners write and register watches', async () => {
    const store = await open();
    const outer: number[] = [];
    const inner: number[] = [];
    const writes: Promise<StoredObject>[] = [];
    let registered = false;
    store.watch({ resource: EP }, 0, {
      onEvent: (event) => {
        outer.push(event.revision);
        if (event.revision === 1) {
          // Writes and registers from inside delivery of revision 1.
          writes.push(store.create(EP, endpoints('x', 'from-listener')));
          writes.push(store.create(EP, endpoints('x', 'from-listener-2')));
          if (!registered) {
            registered = true;
            store.watch({ resource: EP }, 0, { onEvent: (e) => inner.push(e.revision) });
          }
        }
      },
    });
    const third: number[] = [];
    store.watch({ resource: EP }, 0, { onEvent: (e) => third.push(e.revision) });
    await store.create(EP, endpoints('x', 'first'));
    await Promise.all(writes);
    await store.create(EP, endpoints('x', 'last'));
    expect(outer).toEqual([1, 2, 3, 4]);
    expect(inner).toEqual([1, 2, 3, 4]);
    expect(third).toEqual([1, 2, 3, 4]);
  });

  it('closes the watch of a throwing listener and keeps the others and the store working', async () => {
    const store = await open();
    const good: number[] = [];
    const endings: string[] = [];
    const failing: ClosableWatchListener = {
      onEvent: () => {
        throw new Error('listener bug');
      },
      onClosed: (end) => endings.push(end.reason),
    };
    store.watch({ resource: EP }, 0, failing);
    store.watch({ resource: EP }, 0, { onEvent: (e) => good.push(e.revision) });
    await store.create(EP, endpoints('x', 'a'));
    await store.create(EP, endpoints('x', 'b'));
    expect(good).toEqual([1, 2]);
    expect(endings).toEqual(['listener-failed']);
  });

  it('stops delivery as soon as a handle is closed (idempotently)', async () => {
    const store = await open();
    const seen: number[] = [];
    const handle = store.watch({ resource: EP }, 0, { onEvent: (e) => seen.push(e.revision) });
    await store.create(EP, endpoints('x', 'a'));
    handle.close();
    handle.close();
    await store.create(EP, endpoints('x', 'b'));
    expect(seen).toEqual([1]);
  });

  it('expires watches older than the retained window and defines the oldest watchable revision', async () => {
    const store = await open(3);
    expect(store.oldestWatchableRevision()).toBe(0);
    for (let i = 1; i <= 5; i++) {
      await store.create(EP, endpoints('x', `o${i}`));
    }
    // Retained: 3, 4, 5; a watch may start after 2 or later.
    expect(store.oldestWatchableRevision()).toBe(2);
    expect(() => store.watch({ resource: EP }, 1, { onEvent: () => undefined })).toThrow(
      expect.objectContaining({ code: 'Expired' }) as Error,
    );
    const seen: number[] = [];
    store.watch({ resource: EP }, 2, { onEvent: (e) => seen.push(e.revision) });
    expect(seen).toEqual([3, 4, 5]);
    const future: number[] = [];
    store.watch({ resource: EP }, 7, { onEvent: (e) => future.push(e.revision) });
    for (let i = 6; i <= 8; i++) {
      await store.create(EP, endpoints('x', `o${i}`));
    }
    expect(future).toEqual([8]);
  });

  it('lists a resource as it was at a past revision, undoing later creates, updates and deletes', async () => {
    const store = await open(10);
    await store.create(EP, endpoints('a', 'one')); // 1
    await store.create(EP, endpoints('b', 'two')); // 2
    await store.create('core/v1/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', namespace: 'a' } }); // 3
    await store.update(EP, endpoints('a', 'one', '10.9.9.9')); // 4
    await store.delete({ resource: EP, namespace: 'b', name: 'two' }); // 5
    await store.create(EP, endpoints('a', 'three')); // 6
    const at3 = store.listAt(EP, 3);
    expect(at3.revision).toBe(3);
    expect(at3.items.map((item) => [item.metadata.namespace, item.metadata.name, item.metadata.resourceVersion])).toEqual([
      ['a', 'one', '1'],
      ['b', 'two', '2'],
    ]);
    expect(at3.items[0]?.['subsets']).toEqual([{ addresses: [{ ip: '10.0.0.1' }] }]);
    expect(store.listAt(EP, 3, 'b').items.map((item) => item.metadata.name)).toEqual(['two']);
    expect(store.listAt(EP, 0).items).toEqual([]);
    expect(store.listAt(EP, 6).items).toEqual(store.list(EP).items);
  });

  it('refuses to list a revision older than the retained window', async () => {
    const store = await open(2);
    for (let i = 1; i <= 4; i++) {
      await store.create(EP, endpoints('x', `o${i}`));
    }
    // Retained: 3, 4; the state at 2 can be rebuilt, the one at 1 not.
    expect(store.listAt(EP, 2).items.map((item) => item.metadata.name)).toEqual(['o1', 'o2']);
    expect(() => store.listAt(EP, 1)).toThrow(expect.objectContaining({ code: 'Expired' }) as Error);
  });

  it('rejects every call after close and ends open watches', async () => {
    const store = await open();
    const endings: string[] = [];
    const listener: ClosableWatchListener = { onEvent: () => undefined, onClosed: (end) => endings.push(end.reason) };
    store.watch({ resource: EP }, 0, listener);
    await store.close();
    expect(endings).toEqual(['store-closed']);
    await expectStoreError(store.close(), 'Closed');
    await expectStoreError(store.create(EP, endpoints('x', 'a')), 'Closed');
    expect(() => store.list(EP)).toThrow(StoreError);
    expect(() => store.watch({ resource: EP }, 0, { onEvent: () => undefined })).toThrow(StoreError);
  });
});
