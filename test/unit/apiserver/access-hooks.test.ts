import { afterEach, describe, expect, it } from 'vitest';
import { buildApiServer, type ApiServer } from '../../../src/apiserver/api-server.js';
import type { JsonObject } from '../../../src/apimachinery/index.js';
import type { RequestAuthorizer } from '../../../src/apiserver/request-authorization.js';
import { ResourceRegistry, type KindDefinition } from '../../../src/apiserver/resource-type.js';
import { silentLogger } from '../../../src/observe/logger.js';
import { MapStorage } from '../../support/map-storage.js';

/** A kind with a write-only `spec.secret`: stored reversed, shown in the create response only. */
const LOCKERS: KindDefinition = {
  group: 'example.vcsync.io',
  version: 'v1',
  kind: 'Locker',
  plural: 'lockers',
  namespaced: false,
  generation: 'spec',
  strategy: {
    seal(object, old) {
      const spec = (object['spec'] ?? {}) as JsonObject;
      object['spec'] = spec;
      const secret = spec['secret'];
      if (typeof secret !== 'string') {
        const kept = ((old?.['spec'] ?? {}) as JsonObject)['secret'];
        if (kept !== undefined) spec['secret'] = kept;
        return undefined;
      }
      if (secret.startsWith('sealed:')) return undefined;
      spec['secret'] = `sealed:${[...secret].reverse().join('')}`;
      return old === undefined ? (stored) => ({ ...stored, spec: { ...(stored['spec'] as JsonObject), secret } }) : undefined;
    },
    present(object) {
      const spec = { ...((object['spec'] ?? {}) as JsonObject) };
      if (String(spec['secret']).startsWith('sealed:')) delete spec['secret'];
      return { ...object, spec };
    },
  },
};

const PATH = '/apis/example.vcsync.io/v1/lockers';

/** Users are named by the token; a user sees the lockers whose spec.owner is its name, and may not store spec.vip. */
const OWNERS: RequestAuthorizer = {
  authorize: (user) =>
    user.username === 'root'
      ? { allowed: true }
      : user.username === 'nobody'
        ? { allowed: false, reason: 'nobody may do anything' }
        : {
            allowed: true,
            visible: (object) => (object['spec'] as JsonObject | undefined)?.['owner'] === user.username,
            refuseWrite: (object) => ((object['spec'] as JsonObject | undefined)?.['vip'] === true ? 'only root makes VIP lockers' : undefined),
          },
};

describe('the core’s per-kind presentation and per-request access hooks', () => {
  let server: ApiServer;
  let storage: MapStorage;

  function build(basePath?: string): void {
    storage = new MapStorage();
    server = buildApiServer({
      registry: new ResourceRegistry([LOCKERS]),
      storage,
      serverName: 'locker server',
      version: { major: '1', minor: '32', gitVersion: 'v1.32.0-lockers' },
      authenticator: { authenticate: async ({ authorization }) => ({ ok: true, user: { username: (authorization ?? '').replace('Bearer ', ''), groups: [] } }) },
      authorizer: OWNERS,
      ...(basePath !== undefined ? { basePath } : {}),
      serverAddress: () => '127.0.0.1:0',
      bookmarkIntervalMs: 60_000,
      watchSendBufferBytes: 1024 * 1024,
      logger: silentLogger(),
    });
  }
  afterEach(async () => {
    server.endWatches();
    await server.app.close();
  });

  async function send(user: string, method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<{ status: number; body: JsonObject }> {
    const headers: Record<string, string> = { authorization: `Bearer ${user}` };
    if (body !== undefined) headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
    const response = await server.app.inject({ method, url, headers, ...(body !== undefined ? { payload: JSON.stringify(body) } : {}) });
    return { status: response.statusCode, body: response.json<JsonObject>() };
  }

  it('a base path moves every route under it; paths outside answer a 404 Status', async () => {
    build('/kubernetes/management');
    expect((await send('root', 'GET', `/kubernetes/management${PATH}`)).status).toBe(200);
    expect((await send('root', 'GET', '/kubernetes/management/apis')).body['kind']).toBe('APIGroupList');
    expect((await send('root', 'GET', '/kubernetes/management?x=1')).status).toBe(404);
    const outside = await send('root', 'GET', PATH);
    expect(outside.status).toBe(404);
    expect(outside.body).toMatchObject({ kind: 'Status', reason: 'NotFound' });
    expect((await send('root', 'GET', '/kubernetes/managementx/apis')).status).toBe(404);
  });

  it('seal stores the write-only field sealed and shows it in the create response only; present hides it everywhere else', async () => {
    build();
    const created = await send('root', 'POST', PATH, { metadata: { name: 'a' }, spec: { owner: 'ann', secret: 'abc' } });
    expect(created.body['spec']).toEqual({ owner: 'ann', secret: 'abc' });
    expect((await storage.get({ resource: 'example.vcsync.io/v1/lockers', namespace: '', name: 'a' }))?.['spec']).toEqual({ owner: 'ann', secret: 'sealed:cba' });
    expect((await send('root', 'GET', `${PATH}/a`)).body['spec']).toEqual({ owner: 'ann' });
    expect(((await send('root', 'GET', PATH)).body['items'] as JsonObject[])[0]?.['spec']).toEqual({ owner: 'ann' });
    const read = await send('root', 'GET', `${PATH}/a`);
    const put = await send('root', 'PUT', `${PATH}/a`, read.body);
    expect(put.status).toBe(200);
    expect((put.body['metadata'] as JsonObject)['generation']).toBe(1);
    expect((await storage.get({ resource: 'example.vcsync.io/v1/lockers', namespace: '', name: 'a' }))?.['spec']).toEqual({ owner: 'ann', secret: 'sealed:cba' });
  });

  it('an authorizer refuses (403), hides objects (lists, get 404) and refuses writes that give objects away or that it rejects', async () => {
    build();
    await send('root', 'POST', PATH, { metadata: { name: 'anns' }, spec: { owner: 'ann' } });
    await send('root', 'POST', PATH, { metadata: { name: 'bobs' }, spec: { owner: 'bob' } });
    const refused = await send('nobody', 'GET', PATH);
    expect(refused.status).toBe(403);
    expect(refused.body['message']).toContain('nobody may do anything');
    expect(((await send('ann', 'GET', PATH)).body['items'] as { metadata: { name: string } }[]).map((item) => item.metadata.name)).toEqual(['anns']);
    expect((await send('ann', 'GET', `${PATH}/bobs`)).status).toBe(404);
    expect((await send('ann', 'DELETE', `${PATH}/bobs`)).status).toBe(404);
    expect((await send('ann', 'PATCH', `${PATH}/bobs`, { spec: { owner: 'ann' } })).status).toBe(404);
    expect((await send('ann', 'POST', PATH, { metadata: { name: 'for-bob' }, spec: { owner: 'bob' } })).status).toBe(403);
    expect((await send('ann', 'PATCH', `${PATH}/anns`, { spec: { owner: 'bob' } })).status).toBe(403);
    const vip = await send('ann', 'POST', PATH, { metadata: { name: 'vip' }, spec: { owner: 'ann', vip: true } });
    expect(vip.status).toBe(403);
    expect(vip.body['message']).toBe('only root makes VIP lockers');
    expect((await send('ann', 'DELETE', `${PATH}/anns`)).status).toBe(200);
    expect((await storage.list('example.vcsync.io/v1/lockers')).items.map((item) => item.metadata.name)).toEqual(['bobs']);
  });
});
