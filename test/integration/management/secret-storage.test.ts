import { describe, expect, it } from 'vitest';
import { StorageError, type StorageEvent, type StorageWatchEnd, type StoredObject } from '../../../src/apiserver/storage.js';
import { CoreResources, collectionPath, objectPath } from '../../../src/kube/api-path.js';
import { OBJECT_DATA_KEY, RESOURCE_LABEL, secretNameFor, type ManagementSecret } from '../../../src/management/secret-encoding.js';
import { waitFor } from '../../support/wait-for.js';
import { storeBackends, useStoreBed } from './store-bed.js';

const BACKENDS = storeBackends('the management store');
const WIDGETS = 'example.vcsync.io/v1alpha1/widgets';

function widget(name: string, size = 'small', extra: Record<string, unknown> = {}): StoredObject {
  return { apiVersion: 'example.vcsync.io/v1alpha1', kind: 'Widget', metadata: { name, uid: `uid-${name}`, ...extra }, spec: { size } };
}

/** A storage watch's events as [type, name, size, previous size]. */
function recorder(): { events: StorageEvent[]; ends: StorageWatchEnd[]; listener: { onEvent(event: StorageEvent): void; onClosed(end: StorageWatchEnd): void } } {
  const events: StorageEvent[] = [];
  const ends: StorageWatchEnd[] = [];
  return { events, ends, listener: { onEvent: (event) => events.push(event), onClosed: (end) => ends.push(end) } };
}

const sizeOf = (object: StoredObject | undefined): unknown => (object?.['spec'] as { size?: string } | undefined)?.size;
const summary = (event: StorageEvent): unknown[] => [event.type, event.object.metadata.name, sizeOf(event.object), sizeOf(event.previous), event.replayed];

async function storageError(promise: Promise<unknown>): Promise<StorageError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof StorageError)) throw new Error(`expected a StorageError, got ${String(error)}`);
  return error;
}

describe.each(BACKENDS)('SecretStorage against a %s', (backend) => {
  const start = useStoreBed(backend, 'vcsync-mgmt');

  it('keeps each object in one labelled Secret whose resourceVersion is the object’s, through create, update and delete', async () => {
    const { client, namespace, open } = await start();
    const storage = await open();
    const created = await storage.create(WIDGETS, widget('w'));
    const path = objectPath(CoreResources.secrets, namespace, secretNameFor({ resource: WIDGETS, namespace: '', name: 'w' }));
    const secret = await client.get<ManagementSecret>(path);
    expect(created.metadata.resourceVersion).toBe(secret.metadata?.resourceVersion);
    expect(secret.metadata?.labels?.[RESOURCE_LABEL]).toBe('example.vcsync.io.v1alpha1.widgets');
    const stored = JSON.parse(Buffer.from(secret.data?.[OBJECT_DATA_KEY] ?? '', 'base64').toString('utf8')) as StoredObject;
    expect(stored).toEqual({ ...widget('w'), metadata: { name: 'w', uid: 'uid-w' } });
    expect(await storage.get({ resource: WIDGETS, namespace: '', name: 'w' })).toEqual(created);

    const updated = await storage.update(WIDGETS, widget('w', 'large'), { resourceVersion: created.metadata.resourceVersion ?? '' });
    expect(updated.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    expect(updated.metadata.resourceVersion).toBe((await client.get<ManagementSecret>(path)).metadata?.resourceVersion);
    const listed = await storage.list(WIDGETS);
    expect(listed.items).toEqual([updated]);
    expect(listed.resourceVersion).not.toBe('');
    expect((await storage.list('other.example.io/v1/widgets')).items).toEqual([]);

    const deleted = await storage.delete({ resource: WIDGETS, namespace: '', name: 'w' }, { resourceVersion: updated.metadata.resourceVersion ?? '' });
    expect(sizeOf(deleted)).toBe('large');
    expect(await storage.get({ resource: WIDGETS, namespace: '', name: 'w' })).toBeUndefined();
    expect((await client.list<ManagementSecret>(collectionPath(CoreResources.secrets, namespace), { labelSelector: RESOURCE_LABEL })).items).toEqual([]);
  });

  it('resolves a write only once its own watch has reported it: reads and watchers see it at once', async () => {
    const { open } = await start();
    const storage = await open();
    const watched = recorder();
    await storage.watch({ resource: WIDGETS }, (await storage.list(WIDGETS)).resourceVersion, watched.listener);
    const created = await storage.create(WIDGETS, widget('now'));
    expect(watched.events.map(summary)).toEqual([['ADDED', 'now', 'small', undefined, false]]);
    expect((await storage.list(WIDGETS)).resourceVersion).toBe(created.metadata.resourceVersion);
    const updated = await storage.update(WIDGETS, widget('now', 'large'));
    expect(await storage.get({ resource: WIDGETS, namespace: '', name: 'now' })).toEqual(updated);
    const deleted = await storage.delete({ resource: WIDGETS, namespace: '', name: 'now' });
    expect(watched.events.map(summary)).toEqual([
      ['ADDED', 'now', 'small', undefined, false],
      ['MODIFIED', 'now', 'large', 'small', false],
      ['DELETED', 'now', 'large', 'large', false],
    ]);
    // The deleted object carries the deletion's resourceVersion, as its DELETED event does.
    expect(deleted.metadata.resourceVersion).toBe(watched.events[2]?.object.metadata.resourceVersion);
    expect(deleted.metadata.resourceVersion).not.toBe(updated.metadata.resourceVersion);
  });

  it('keeps an object whose name is too long for a readable Secret name under its exact name', async () => {
    const { open } = await start();
    const storage = await open();
    const name = `${'long-name.'.repeat(25)}end`;
    const created = await storage.create(WIDGETS, widget(name, 'small', { namespace: 'team' }));
    expect(secretNameFor({ resource: WIDGETS, namespace: 'team', name }).length).toBeLessThanOrEqual(253);
    expect(await storage.get({ resource: WIDGETS, namespace: 'team', name })).toEqual(created);
    // A second store finds it by listing, through the annotations.
    expect((await (await open()).list(WIDGETS)).items).toEqual([created]);
  });

  it('answers AlreadyExists, Conflict and NotFound as the storage contract says', async () => {
    const { open } = await start();
    const storage = await open();
    const ref = { resource: WIDGETS, namespace: '', name: 'w' };
    const created = await storage.create(WIDGETS, widget('w'));
    expect((await storageError(storage.create(WIDGETS, widget('w', 'large')))).code).toBe('AlreadyExists');
    const updated = await storage.update(WIDGETS, widget('w', 'large'), { resourceVersion: created.metadata.resourceVersion ?? '' });
    expect((await storageError(storage.update(WIDGETS, widget('w', 'small'), { resourceVersion: created.metadata.resourceVersion ?? '' }))).code).toBe('Conflict');
    expect((await storageError(storage.update(WIDGETS, widget('w', 'small'), { uid: 'someone-else' }))).code).toBe('Conflict');
    expect((await storageError(storage.delete(ref, { resourceVersion: created.metadata.resourceVersion ?? '' }))).code).toBe('Conflict');
    // Without a resourceVersion precondition an update applies to the current object.
    const unconditional = await storage.update(WIDGETS, widget('w', 'small'));
    expect(unconditional.metadata.resourceVersion).not.toBe(updated.metadata.resourceVersion);
    await storage.delete(ref);
    expect((await storageError(storage.delete(ref))).code).toBe('NotFound');
    expect((await storageError(storage.update(WIDGETS, widget('w')))).code).toBe('NotFound');
  });

  it('lets two stores on one namespace see each other’s writes through their watches', async () => {
    const { open } = await start();
    const [first, second] = await Promise.all([open(), open()]);
    const watched = recorder();
    const { resourceVersion } = await second.list(WIDGETS);
    const watch = await second.watch({ resource: WIDGETS }, resourceVersion, watched.listener);
    const created = await first.create(WIDGETS, widget('shared'));
    const updated = await first.update(WIDGETS, widget('shared', 'large'), { resourceVersion: created.metadata.resourceVersion ?? '' });
    await first.delete({ resource: WIDGETS, namespace: '', name: 'shared' });
    await waitFor('the second store to see the three changes', () => watched.events.length === 3, { timeoutMs: 10_000 });
    expect(watched.events.map(summary)).toEqual([
      ['ADDED', 'shared', 'small', undefined, false],
      ['MODIFIED', 'shared', 'large', 'small', false],
      ['DELETED', 'shared', 'large', 'large', false],
    ]);
    expect(watched.events[1]?.object.metadata.resourceVersion).toBe(updated.metadata.resourceVersion);
    // And the second store's own writes reach the first one's cache.
    await second.create(WIDGETS, widget('back'));
    await waitFor('the first store to see the second one’s write', async () => (await first.get({ resource: WIDGETS, namespace: '', name: 'back' })) !== undefined, { timeoutMs: 10_000 });
    expect(watch.progressResourceVersion()).not.toBe('');
    watch.close();
  });

  it('loses nothing across a restart: a new store finds every object with the same resourceVersion', async () => {
    const { open, close } = await start();
    const before = await open();
    const written = [await before.create(WIDGETS, widget('a')), await before.create(WIDGETS, widget('b', 'large')), await before.create(WIDGETS, widget('c', 'small', { namespace: 'team' }))];
    await before.delete({ resource: WIDGETS, namespace: '', name: 'a' });
    const watched = recorder();
    await before.watch({ resource: WIDGETS }, (await before.list(WIDGETS)).resourceVersion, watched.listener);
    await close(before);
    expect(watched.ends).toEqual(['storage-closed']);
    expect((await storageError(before.get({ resource: WIDGETS, namespace: '', name: 'b' }))).code).toBe('Closed');

    const after = await open();
    expect((await after.list(WIDGETS)).items).toEqual([written[1], written[2]]);
    expect((await after.list(WIDGETS, { namespace: 'team' })).items).toEqual([written[2]]);
  });

  it('replays retained changes to a resumed watch and answers Expired beyond them', async () => {
    const { open } = await start();
    const storage = await open({ replayWindow: 2, unknownResourceVersionWaitMs: 200 });
    const [a, b] = [await storage.create(WIDGETS, widget('a')), await storage.create(WIDGETS, widget('b'))];
    await storage.update(WIDGETS, widget('a', 'large'), { resourceVersion: a.metadata.resourceVersion ?? '' });
    await storage.delete({ resource: WIDGETS, namespace: '', name: 'b' });
    const resumed = recorder();
    await storage.watch({ resource: WIDGETS }, b.metadata.resourceVersion ?? '', resumed.listener);
    expect(resumed.events.map(summary)).toEqual([
      ['MODIFIED', 'a', 'large', 'small', true],
      ['DELETED', 'b', 'small', 'small', true],
    ]);
    const expired = await storageError(storage.watch({ resource: WIDGETS }, a.metadata.resourceVersion ?? '', recorder().listener));
    expect([expired.code, expired.message]).toEqual(['Expired', `too old resource version: ${a.metadata.resourceVersion ?? ''}`]);
    expect((await storageError(storage.watch({ resource: WIDGETS }, 'never-given-out', recorder().listener))).code).toBe('Expired');
  });

  it('lists exactly at the newest resourceVersion only, and at least as new for any other', async () => {
    const { open } = await start();
    const storage = await open({ unknownResourceVersionWaitMs: 200 });
    const a = await storage.create(WIDGETS, widget('a'));
    await storage.create(WIDGETS, widget('b'));
    const newest = await storage.list(WIDGETS);
    expect((await storage.list(WIDGETS, { resourceVersion: newest.resourceVersion, exact: true })).items).toHaveLength(2);
    expect((await storageError(storage.list(WIDGETS, { resourceVersion: a.metadata.resourceVersion ?? '', exact: true }))).code).toBe('Expired');
    expect((await storage.list(WIDGETS, { resourceVersion: a.metadata.resourceVersion ?? '' })).items).toHaveLength(2);
  });
});
