import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ObjectRef, Storage } from '../../../src/apiserver/storage.js';
import { CoreResources, collectionPath } from '../../../src/kube/api-path.js';
import { BOOTSTRAP_ADMIN_KEY_NAME, KEY_HASH_SECRET_NAME } from '../../../src/management/management-constants.js';
import { ensureSharedKeyHashSecret, startManagementServer, type ManagementServer } from '../../../src/management/index.js';
import type { SecretClient } from '../../../src/management/secret-storage.js';
import { silentLogger } from '../../../src/observe/logger.js';
import { KEYS_PATH } from '../../support/management-fixture.js';
import { MapStorage } from '../../support/map-storage.js';
import { storeBackends, useStoreBed } from './store-bed.js';

/**
 * A gate that holds the first `parties` callers until all of them have arrived: two replicas that
 * both read "missing" before either writes, the losing order of a startup race.
 */
function barrier(parties: number): () => Promise<void> {
  let arrived = 0;
  let open = (): void => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return async () => {
    arrived += 1;
    if (arrived === parties) open();
    if (arrived <= parties) await opened;
  };
}

/** GET of `path` on a plain-HTTP server with a bearer key; answers the status code. */
function statusOf(url: string, path: string, key: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = new URL(`${url}${path}`);
    const call = request(target, { headers: { authorization: `Bearer ${key}` } }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    call.on('error', reject);
    call.end();
  });
}

describe.each(storeBackends('the shared key-hash Secret race'))('two replicas creating the shared key-hash Secret at once on a %s', (backend) => {
  const start = useStoreBed(backend, 'vcsync-hash');

  it('both end with the one Secret the winner created', async () => {
    const { client, namespace } = await start();
    const bothRead = barrier(2);
    // Both replicas have read "no Secret" before either creates one.
    const racing: Pick<SecretClient, 'get' | 'create'> = {
      get: async <T>(path: string): Promise<T> => {
        try {
          return await client.get<T>(path);
        } finally {
          await bothRead();
        }
      },
      create: client.create.bind(client),
    };
    const [one, two] = await Promise.all([ensureSharedKeyHashSecret({ client: racing, namespace }), ensureSharedKeyHashSecret({ client: racing, namespace })]);
    expect(one.equals(two)).toBe(true);
    const secrets = await client.list(collectionPath(CoreResources.secrets, namespace));
    expect(secrets.items.filter((secret) => secret.metadata?.name === KEY_HASH_SECRET_NAME)).toHaveLength(1);
  });
});

describe('two management servers creating the bootstrap admin key at once on one store', () => {
  const servers: ManagementServer[] = [];
  let dir: string | undefined;
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('both start: one creates the key and writes its file, the other uses it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'bootstrap-race-'));
    const keyPath = join(dir, 'admin.key');
    const shared = new MapStorage();
    const bothRead = barrier(2);
    // Both replicas have found no bootstrap key before either creates it.
    const racing = (): Storage => ({
      get: async (ref: ObjectRef) => {
        const object = await shared.get(ref);
        if (ref.name === BOOTSTRAP_ADMIN_KEY_NAME) await bothRead();
        return object;
      },
      list: shared.list.bind(shared),
      create: shared.create.bind(shared),
      update: shared.update.bind(shared),
      delete: shared.delete.bind(shared),
      watch: shared.watch.bind(shared),
    });
    const options = { keyHashSecret: Buffer.alloc(32, 7), insecureHttp: true, bootstrapKeyPath: keyPath, logger: silentLogger() };
    const started = await Promise.allSettled([startManagementServer({ ...options, storage: racing() }), startManagementServer({ ...options, storage: racing() })]);
    for (const result of started) if (result.status === 'fulfilled') servers.push(result.value);
    expect(started.map((result) => (result.status === 'rejected' ? String(result.reason) : 'started'))).toEqual(['started', 'started']);
    const adminKey = (await readFile(keyPath, 'utf8')).trim();
    expect((await shared.list('management.loft.sh/v1/ownedaccesskeys')).items.map((item) => item.metadata.name)).toEqual([BOOTSTRAP_ADMIN_KEY_NAME]);
    for (const server of servers) expect(await statusOf(server.url, KEYS_PATH, adminKey)).toBe(200);
  });
});
