import { afterEach, describe, expect, it } from 'vitest';
import { buildApiServer, type ApiServer, type ApiServerInit } from '../../../src/apiserver/api-server.js';
import { ResourceRegistry, type KindDefinition } from '../../../src/apiserver/resource-type.js';
import { isConflict, isNotFound } from '../../../src/apimachinery/index.js';
import { CoreResources, objectPath } from '../../../src/kube/api-path.js';
import { loadClusterConfig } from '../../../src/kube/kube-config.js';
import type { KubeObject, WatchEvent } from '../../../src/kube/kube-object.js';
import { RestClient } from '../../../src/kube/rest-client.js';
import { OBJECT_DATA_KEY, secretNameFor, type ManagementSecret } from '../../../src/management/secret-encoding.js';
import { silentLogger } from '../../../src/observe/logger.js';
import { waitFor } from '../../support/wait-for.js';
import type { SecretStorage } from '../../../src/management/secret-storage.js';
import { holdableWatches, storeBackends, useStoreBed } from './store-bed.js';

const BACKENDS = storeBackends('the management store behind the API-server core');

/** A made-up cluster-scoped kind: the core needs only this definition and a storage. */
const GADGETS: KindDefinition = {
  group: 'example.vcsync.io',
  version: 'v1alpha1',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: false,
  returnDeletedObject: true,
  generation: 'spec',
  strategy: {},
};
const RESOURCE = 'example.vcsync.io/v1alpha1/gadgets';
const GADGETS_PATH = '/apis/example.vcsync.io/v1alpha1/gadgets';

interface Gadget extends KubeObject {
  spec?: { color?: string };
}

/** A client of the server at `address`, without credentials (the test server has no authenticator). */
function clientOf(address: string): RestClient {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'management', cluster: { server: address } }],
    users: [{ name: 'anonymous', user: {} }],
    contexts: [{ name: 'management', context: { cluster: 'management', user: 'anonymous' } }],
    'current-context': 'management',
  };
  return new RestClient({ cluster: loadClusterConfig({ kind: 'object', config }, { name: 'management' }), qps: Infinity });
}

describe.each(BACKENDS)('the API-server core on the Secret store of a %s', (backend) => {
  const start = useStoreBed(backend, 'vcsync-api');
  const replicas: Array<{ server: ApiServer; api: RestClient }> = [];
  afterEach(async () => {
    for (const replica of replicas.splice(0)) {
      replica.api.close();
      replica.server.endWatches();
      await replica.server.app.close();
    }
  });

  /** The API-server core on `storage`, served over HTTP, as one replica; a client of it. */
  async function serve(storage: SecretStorage, access: Pick<ApiServerInit, 'authenticator' | 'authorizer'> = {}): Promise<RestClient> {
    const replica = buildApiServer({
      ...access,
      registry: new ResourceRegistry([GADGETS]),
      storage,
      serverName: 'management test server',
      version: { major: '1', minor: '32', gitVersion: 'v1.32.0-management' },
      serverAddress: () => '127.0.0.1:0',
      bookmarkIntervalMs: 60_000,
      watchSendBufferBytes: 1024 * 1024,
      logger: silentLogger(),
    });
    const client = clientOf(await replica.app.listen({ port: 0, host: '127.0.0.1' }));
    replicas.push({ server: replica, api: client });
    return client;
  }

  it('computes a write through a replica whose cache lags another replica’s write on the host’s current object: no 409 without a precondition, 409 for a stale one', async () => {
    const bed = await start();
    const one = await serve(await bed.open());
    const lagging = holdableWatches(bed.client);
    // Its own writes are not reported back while its watch is held: they stand after 100 ms.
    const twoStorage = await bed.open({ client: lagging.client, writeVisibleTimeoutMs: 100 });
    const two = await serve(twoStorage);
    const secretPath = objectPath(CoreResources.secrets, bed.namespace, secretNameFor({ resource: RESOURCE, namespace: '', name: 'g' }));
    const onHost = async (): Promise<Gadget> => JSON.parse(Buffer.from((await bed.client.get<ManagementSecret>(secretPath)).data?.[OBJECT_DATA_KEY] ?? '', 'base64').toString('utf8')) as Gadget;
    const hostVersion = async (): Promise<string | undefined> => (await bed.client.get<ManagementSecret>(secretPath)).metadata?.resourceVersion;
    const conflicts = async (call: Promise<unknown>): Promise<boolean> => isConflict(await call.catch((error: unknown) => error));

    const created = await one.create<Gadget>(GADGETS_PATH, { apiVersion: 'example.vcsync.io/v1alpha1', kind: 'Gadget', metadata: { name: 'g' }, spec: { color: 'red' } });
    await waitFor('the other replica to see the gadget', async () => (await twoStorage.get({ resource: RESOURCE, namespace: '', name: 'g' })) !== undefined, { timeoutMs: 10_000 });
    lagging.hold();
    const blue = await one.patch<Gadget>(`${GADGETS_PATH}/g`, 'merge', { spec: { color: 'blue' } });
    expect((await twoStorage.get({ resource: RESOURCE, namespace: '', name: 'g' }))?.metadata.resourceVersion).toBe(created.metadata?.resourceVersion);

    // No precondition: PATCH and PUT apply to the host's current object, as the real server's GuaranteedUpdate.
    const green = await two.patch<Gadget>(`${GADGETS_PATH}/g`, 'merge', { spec: { color: 'green' } });
    expect(green.spec).toEqual({ color: 'green' });
    expect(green.metadata).toMatchObject({ generation: 3, resourceVersion: await hostVersion() });
    const yellow = await two.update<Gadget>(`${GADGETS_PATH}/g`, { apiVersion: 'example.vcsync.io/v1alpha1', kind: 'Gadget', metadata: { name: 'g' }, spec: { color: 'yellow' } });
    expect(yellow.metadata?.resourceVersion).toBe(await hostVersion());
    expect((await onHost()).spec).toEqual({ color: 'yellow' });

    // A stale client precondition still conflicts; a current one wins although the cache lags.
    expect(await conflicts(two.patch(`${GADGETS_PATH}/g`, 'merge', { metadata: { resourceVersion: blue.metadata?.resourceVersion }, spec: { color: 'black' } }))).toBe(true);
    expect(await conflicts(two.update(`${GADGETS_PATH}/g`, { ...blue, spec: { color: 'black' } }))).toBe(true);
    expect((await onHost()).spec).toEqual({ color: 'yellow' });
    const white = await two.patch<Gadget>(`${GADGETS_PATH}/g`, 'merge', { metadata: { resourceVersion: yellow.metadata?.resourceVersion }, spec: { color: 'white' } });
    expect(white.metadata?.resourceVersion).toBe(await hostVersion());

    // What the lagging cache shows (red) is no longer what the host holds: setting it is a write, not a no-op.
    const red = await two.patch<Gadget>(`${GADGETS_PATH}/g`, 'merge', { spec: { color: 'red' } });
    expect(red.metadata?.resourceVersion).not.toBe(white.metadata?.resourceVersion);
    expect((await onHost()).spec).toEqual({ color: 'red' });

    // A DELETE without preconditions deletes what is there.
    await two.delete(`${GADGETS_PATH}/g`);
    expect(isNotFound(await bed.client.get(secretPath).catch((error: unknown) => error))).toBe(true);
    lagging.release();
    await waitFor('the lagging replica to catch up with the deletion', async () => (await twoStorage.get({ resource: RESOURCE, namespace: '', name: 'g' })) === undefined, { timeoutMs: 10_000 });
  });

  it('deletes and updates an object its lagging cache has not seen yet: the host has it, so no 404 (the chaos run: a created key answered 404 to its delete, and its GET answered 404)', async () => {
    const bed = await start();
    const lagging = holdableWatches(bed.client);
    const storage = await bed.open({ client: lagging.client, writeVisibleTimeoutMs: 100 });
    // An authorizer that restricts what a caller sees makes the DELETE check the object first, as the management server's does.
    const api = await serve(storage, {
      authenticator: { authenticate: async () => ({ ok: true, user: { username: 'owner', groups: ['system:authenticated'], extra: {} } }) },
      authorizer: { authorize: () => ({ allowed: true, visible: () => true }) },
    });
    lagging.hold();
    const body = (name: string): Gadget => ({ apiVersion: 'example.vcsync.io/v1alpha1', kind: 'Gadget', metadata: { name }, spec: { color: 'red' } });
    await api.create<Gadget>(GADGETS_PATH, body('unseen'));
    await api.create<Gadget>(GADGETS_PATH, body('patched'));
    expect(await storage.get({ resource: RESOURCE, namespace: '', name: 'unseen' })).toBeUndefined();
    const patched = await api.patch<Gadget>(`${GADGETS_PATH}/patched`, 'merge', { spec: { color: 'blue' } });
    expect(patched.spec).toEqual({ color: 'blue' });
    expect((await api.get<Gadget>(`${GADGETS_PATH}/unseen`)).metadata?.name).toBe('unseen');
    await api.delete(`${GADGETS_PATH}/unseen`);
    const secretPath = objectPath(CoreResources.secrets, bed.namespace, secretNameFor({ resource: RESOURCE, namespace: '', name: 'unseen' }));
    expect(isNotFound(await bed.client.get(secretPath).catch((error: unknown) => error))).toBe(true);
    lagging.release();
  });

  it('serves create, get, list, watch, update and delete over HTTP with the Secrets’ resourceVersions, opaque', async () => {
    const bed = await start();
    const storage = await bed.open();
    const api = await serve(storage);
    const secretPath = objectPath(CoreResources.secrets, bed.namespace, secretNameFor({ resource: RESOURCE, namespace: '', name: 'g' }));
    const hostVersion = async (): Promise<string | undefined> => (await bed.client.get<ManagementSecret>(secretPath))?.metadata?.resourceVersion;

    const created = await api.create<Gadget>(GADGETS_PATH, { apiVersion: 'example.vcsync.io/v1alpha1', kind: 'Gadget', metadata: { name: 'g' }, spec: { color: 'red' } });
    expect(created.metadata).toMatchObject({ name: 'g', uid: expect.any(String), generation: 1 });
    expect(created.metadata?.resourceVersion).toBe(await hostVersion());
    expect(await api.get<Gadget>(`${GADGETS_PATH}/g`)).toEqual(created);
    const listed = await api.list<Gadget>(GADGETS_PATH);
    expect(listed.items.map((item) => [item.metadata?.name, item.metadata?.resourceVersion, item.spec?.color])).toEqual([['g', created.metadata?.resourceVersion, 'red']]);

    const stream = await api.watch<Gadget>(GADGETS_PATH, { resourceVersion: listed.metadata?.resourceVersion ?? '', allowWatchBookmarks: false });
    const events: Array<WatchEvent<Gadget>> = [];
    const reading = (async () => {
      for await (const event of stream) events.push(event);
    })();

    const updated = await api.update<Gadget>(`${GADGETS_PATH}/g`, { ...created, spec: { color: 'blue' } });
    expect(updated.metadata).toMatchObject({ generation: 2, resourceVersion: await hostVersion() });
    const stale = await api.update<Gadget>(`${GADGETS_PATH}/g`, { ...created, spec: { color: 'green' } }).catch((error: unknown) => error);
    expect(isConflict(stale)).toBe(true);

    const deleted = await api.delete<Gadget>(`${GADGETS_PATH}/g`);
    expect(deleted.spec).toEqual({ color: 'blue' });
    expect(isNotFound(await api.get(`${GADGETS_PATH}/g`).catch((error: unknown) => error))).toBe(true);
    expect(isNotFound(await bed.client.get(secretPath).catch((error: unknown) => error))).toBe(true);
    expect((await api.list<Gadget>(GADGETS_PATH)).items).toEqual([]);

    await waitFor('the watch to report the update and the deletion', () => events.length >= 2, { timeoutMs: 10_000 });
    stream.close();
    await reading.catch(() => undefined);
    expect(events.map((event) => [event.type, (event.object as Gadget).spec?.color])).toEqual([
      ['MODIFIED', 'blue'],
      ['DELETED', 'blue'],
    ]);
    expect((events[0]?.object as Gadget | undefined)?.metadata?.resourceVersion).toBe(updated.metadata?.resourceVersion);
  });
});
