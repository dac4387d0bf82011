import { afterEach, describe, expect, it } from 'vitest';
import { buildApiServer, type ApiServer } from '../../../src/apiserver/api-server.js';
import { ResourceRegistry, type KindDefinition } from '../../../src/apiserver/resource-type.js';
import { isConflict, isNotFound } from '../../../src/kube/api-error.js';
import { CoreResources, objectPath } from '../../../src/kube/api-path.js';
import { loadClusterConfig } from '../../../src/kube/kube-config.js';
import type { KubeObject, WatchEvent } from '../../../src/kube/kube-object.js';
import { RestClient } from '../../../src/kube/rest-client.js';
import { secretNameFor, type ManagementSecret } from '../../../src/management/secret-encoding.js';
import { silentLogger } from '../../../src/observe/logger.js';
import { waitFor } from '../../support/wait-for.js';
import { storeBackends, useStoreBed } from './store-bed.js';

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
  let server: ApiServer | undefined;
  let api: RestClient | undefined;
  afterEach(async () => {
    api?.close();
    server?.endWatches();
    await server?.app.close();
    [api, server] = [undefined, undefined];
  });

  it('serves create, get, list, watch, update and delete over HTTP with the Secrets’ resourceVersions, opaque', async () => {
    const bed = await start();
    const storage = await bed.open();
    server = buildApiServer({
      registry: new ResourceRegistry([GADGETS]),
      storage,
      serverName: 'management test server',
      version: { major: '1', minor: '32', gitVersion: 'v1.32.0-management' },
      serverAddress: () => '127.0.0.1:0',
      bookmarkIntervalMs: 60_000,
      watchSendBufferBytes: 1024 * 1024,
      logger: silentLogger(),
    });
    api = clientOf(await server.app.listen({ port: 0, host: '127.0.0.1' }));
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
