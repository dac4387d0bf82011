import { afterEach, describe, expect, it } from 'vitest';
import { StorageError, type StorageEvent, type StorageWatchEnd } from '../../../../src/apiserver/storage.js';
import { ApiStorage } from '../../../../src/devcluster/storage/api-storage.js';
import { openStore } from '../../../../src/devcluster/storage/open-store.js';
import type { Store, StoredObject } from '../../../../src/devcluster/storage/types.js';

const CM = 'core/v1/configmaps';

function configMap(name: string, value = '1'): StoredObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { value } };
}

async function failure(promise: Promise<unknown>): Promise<StorageError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StorageError);
  return error as StorageError;
}

describe('the devcluster store as the core’s storage', () => {
  let store: Store;
  afterEach(async () => {
    await store.close();
  });

  async function open(watchWindow = 100): Promise<ApiStorage> {
    store = await openStore({ watchWindow });
    return new ApiStorage(store);
  }

  it('lists with the revision as resourceVersion and refuses one that is not a revision', async () => {
    const storage = await open();
    await storage.create(CM, configMap('a'));
    expect(await storage.list(CM, { namespace: 'default', resourceVersion: '1' })).toMatchObject({ resourceVersion: '1', items: [{ metadata: { name: 'a' } }] });
    const refused = await failure(storage.list(CM, { resourceVersion: 'v1' }));
    expect(refused.code).toBe('InvalidResourceVersion');
    expect(refused.message).toBe('invalid resource version: v1');
  });

  it('marks the retained events of a resumed watch as replayed and live ones not', async () => {
    const storage = await open();
    await storage.create(CM, configMap('a'));
    await storage.update(CM, configMap('a', '2'));
    const events: StorageEvent[] = [];
    const watch = await storage.watch({ resource: CM }, '1', { onEvent: (event) => events.push(event), onClosed: () => undefined });
    await storage.create(CM, configMap('b'));
    expect(events.map((event) => [event.type, event.object.metadata.name, event.replayed])).toEqual([
      ['MODIFIED', 'a', true],
      ['ADDED', 'b', false],
    ]);
    expect(watch.progressResourceVersion()).toBe('3');
    watch.close();
  });

  it('answers Expired with the oldest watchable revision, and InvalidResourceVersion for garbage', async () => {
    const storage = await open(1);
    await storage.create(CM, configMap('a', '1'));
    await storage.update(CM, configMap('a', '2'));
    await storage.update(CM, configMap('a', '3'));
    const expired = await failure(storage.watch({ resource: CM }, '0', { onEvent: () => undefined, onClosed: () => undefined }));
    expect(expired.code).toBe('Expired');
    expect(expired.message).toBe('too old resource version: 0 (2)');
    expect((await failure(storage.watch({ resource: CM }, '-1', { onEvent: () => undefined, onClosed: () => undefined }))).code).toBe('InvalidResourceVersion');
  });

  it('never reports progress older than where the watch started, and tells the watcher when the store closes', async () => {
    const storage = await open();
    const ends: StorageWatchEnd[] = [];
    const watch = await storage.watch({ resource: CM }, '42', { onEvent: () => undefined, onClosed: (end) => ends.push(end) });
    expect(watch.progressResourceVersion()).toBe('42');
    await store.close();
    expect(ends).toEqual(['storage-closed']);
    store = await openStore();
  });
});
