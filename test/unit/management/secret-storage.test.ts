import { afterEach, describe, expect, it } from 'vitest';
import { StorageError, type StorageEvent, type StoredObject } from '../../../src/apiserver/storage.js';
import { encodeSecret, type ManagementSecret } from '../../../src/management/secret-encoding.js';
import { SecretStorage, type SecretClient } from '../../../src/management/secret-storage.js';
import { waitFor } from '../../support/wait-for.js';
import { FakeListerWatcher } from '../kube/fake-lister-watcher.js';

const WIDGETS = 'example.vcsync.io/v1alpha1/widgets';

function secret(name: string, size: string, resourceVersion: string): ManagementSecret {
  const object: StoredObject = { metadata: { name }, spec: { size } };
  const encoded = encodeSecret(WIDGETS, object, 'vcsync');
  return { ...encoded, metadata: { ...encoded.metadata, resourceVersion } };
}

/** The host as the test scripts it: reads through the fake reflector client, no writes. */
function hostClient(fake: FakeListerWatcher): SecretClient {
  const unused = (): never => {
    throw new Error('this test makes no writes');
  };
  return { list: fake.list.bind(fake), watch: fake.watch.bind(fake), get: unused, create: unused, update: unused, delete: unused };
}

const summary = (event: StorageEvent): unknown[] => [event.type, event.object.metadata.name, event.object.metadata.resourceVersion, (event.object['spec'] as { size: string }).size];

describe('SecretStorage on a scripted host', () => {
  let controller = new AbortController();
  let running: Promise<void> | undefined;
  afterEach(async () => {
    controller.abort();
    await running;
    controller = new AbortController();
  });

  async function start(fake: FakeListerWatcher, options: { replayWindow?: number } = {}): Promise<SecretStorage> {
    const storage = new SecretStorage({ client: hostClient(fake), namespace: 'vcsync', unknownResourceVersionWaitMs: 10, reflector: { initialBackoffMs: 1, backoffJitter: 0 }, ...options });
    running = storage.run(controller.signal);
    await waitFor('the first list', () => storage.hasSynced());
    await waitFor('the watch to open', () => fake.watches.length === 1);
    return storage;
  }

  it('turns a relist after an expired watch into the changes it implies: updates, and deletions at the list’s resourceVersion', async () => {
    const fake = new FakeListerWatcher();
    fake.listScript = [{ items: [secret('a', 'small', '5'), secret('b', 'small', '6')], metadata: { resourceVersion: '6' } }];
    const storage = await start(fake);
    const events: StorageEvent[] = [];
    await storage.watch({ resource: WIDGETS }, '6', { onEvent: (event) => events.push(event), onClosed: () => undefined });
    fake.listScript = [{ items: [secret('a', 'large', '9')], metadata: { resourceVersion: '10' } }];
    fake.lastWatch.push({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 6 (8)' } });
    await waitFor('the relist', () => events.length === 2);
    expect(events.map(summary)).toEqual([
      ['MODIFIED', 'a', '9', 'large'],
      ['DELETED', 'b', '10', 'small'],
    ]);
    expect((await storage.list(WIDGETS)).resourceVersion).toBe('10');
  });

  it('ignores a labelled Secret it cannot read, and drops the object of one edited into that state', async () => {
    const fake = new FakeListerWatcher();
    fake.listScript = [{ items: [secret('a', 'small', '5')], metadata: { resourceVersion: '5' } }];
    const storage = await start(fake);
    const broken = { ...secret('a', 'small', '7'), data: { object: Buffer.from('{not json').toString('base64') } };
    fake.lastWatch.push({ type: 'MODIFIED', object: broken });
    const empty: ManagementSecret = { ...secret('b', 'small', '8'), data: {} };
    fake.lastWatch.push({ type: 'ADDED', object: empty });
    await waitFor('both events', async () => (await storage.list(WIDGETS)).resourceVersion === '8');
    expect((await storage.list(WIDGETS)).items).toEqual([]);
  });

  it('remembers a bounded number of bookmarks: a watch from a forgotten one is told to relist', async () => {
    const fake = new FakeListerWatcher();
    fake.listScript = [{ items: [], metadata: { resourceVersion: '1' } }];
    const storage = await start(fake, { replayWindow: 3 });
    for (let version = 2; version <= 20; version += 1) fake.lastWatch.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: String(version) } } });
    await waitFor('the bookmarks', async () => (await storage.list(WIDGETS)).resourceVersion === '20');
    const listener = { onEvent: () => undefined, onClosed: () => undefined };
    const forgotten = await storage.watch({ resource: WIDGETS }, '2', listener).catch((error: unknown) => error);
    expect(forgotten instanceof StorageError && forgotten.code).toBe('Expired');
    (await storage.watch({ resource: WIDGETS }, '15', listener)).close();
  });
});
