import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { answerBody, sendRawBody } from '../../support/raw-body-client.js';
import { waitFor } from '../../support/wait-for.js';
import { KEYS_PATH, ManagementFixture } from '../../support/management-fixture.js';

const FULL_SPEC = {
  displayName: 'CI pipeline',
  description: 'deploys from main',
  user: 'alice',
  groups: ['ci'],
  disabled: false,
  ttl: 86_400,
  ttlAfterLastActivity: false,
  type: 'User',
  scope: {
    roles: [{ role: 'platformCLI', projects: ['p1'], virtualClusters: ['vc1'] }],
    projects: [{ project: '*' }],
    spaces: [{ project: 'p1', space: 's1' }],
    virtualClusters: [{ project: 'p1', virtualCluster: 'vc1' }],
    clusters: [{ cluster: 'c1' }],
    rules: [
      {
        verbs: ['get'],
        resources: [{ group: '', resources: ['pods'], resourceNames: ['a'] }],
        namespaces: ['ns'],
        nonResourceURLs: ['/healthz'],
        requestTargets: ['Management'],
        cluster: 'c1',
        virtualClusters: [{ name: 'vc1', namespace: 'ns' }],
        allowPlatformCli: true,
      },
    ],
  },
  identity: {
    userId: 'u-1',
    username: 'alice',
    preferredUsername: 'Alice',
    email: 'alice@example.com',
    emailVerified: true,
    extraClaims: { department: ['eng'] },
    groups: ['eng'],
    connector: 'github',
    connectorData: Buffer.from('upstream-refresh-token').toString('base64'),
    identityRefresh: '2026-01-01T00:00:00Z',
  },
  oidcProvider: { clientId: 'cli', nonce: 'n', redirectUri: 'http://localhost/cb', scopes: 'openid' },
  parent: 'parent-key',
  oidcLogin: { idToken: Buffer.from('id').toString('base64'), accessToken: Buffer.from('at').toString('base64'), refreshToken: Buffer.from('rt').toString('base64'), lastRefresh: '2026-01-01T00:00:00Z' },
};

function withoutHidden(spec: typeof FULL_SPEC): Record<string, unknown> {
  const identity: Record<string, unknown> = { ...spec.identity };
  delete identity['connectorData'];
  return { ...spec, identity };
}

describe('OwnedAccessKey over HTTPS', () => {
  let fixture: ManagementFixture;
  beforeAll(async () => {
    fixture = await ManagementFixture.start();
  });
  afterAll(async () => {
    await fixture.stop();
  });

  it('create: every OwnedAccessKey field round-trips; the generated key is shown once, 256-bit base64url; connectorData never', async () => {
    const created = await fixture.createKey(FULL_SPEC, { name: 'full' });
    expect(created.status).toBe(201);
    expect(created.body.spec.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.body.spec.identity.connectorData).toBeUndefined();
    expect(created.body.metadata.generation).toBe(1);
    const read = await fixture.call('GET', `${KEYS_PATH}/full`, { key: fixture.adminKey });
    expect(read.status).toBe(200);
    expect(read.body.spec).toEqual(withoutHidden(FULL_SPEC));
    expect(read.text).not.toContain(created.body.spec.key);
    const stored = await fixture.storage.get({ resource: 'management.loft.sh/v1/ownedaccesskeys', namespace: '', name: 'full' });
    expect(stored?.['spec']).toMatchObject({ key: expect.stringMatching(/^hmac-sha256:/), identity: { connectorData: FULL_SPEC.identity.connectorData } });
    expect(JSON.stringify(stored)).not.toContain(created.body.spec.key);
  });

  it('create with a client key: accepted when strong, 422 when weak or when it is a hash', async () => {
    const strong = 'Zq8sJ2vN_x-4LmT9aB7cD1eF3gH5iK6jP0oR';
    const accepted = await fixture.createKey({ user: 'alice', key: strong }, { name: 'chosen' });
    expect(accepted.status).toBe(201);
    expect(accepted.body.spec.key).toBe(strong);
    expect((await fixture.call('GET', `${KEYS_PATH}/chosen`, { key: strong })).status).toBe(200);
    const weak = await fixture.createKey({ user: 'alice', key: 'short' });
    expect(weak.status).toBe(422);
    expect(weak.body.message).toContain('at least 32 characters');
    const hash = await fixture.createKey({ user: 'alice', key: 'hmac-sha256:AAAA' });
    expect(hash.status).toBe(422);
    expect(hash.body.message).toContain('a key hash cannot be written');
  });

  it('YAML bodies and YAML responses (Content-Type/Accept application/yaml)', async () => {
    const body = toYaml({ apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name: 'yaml-key' }, spec: { displayName: 'y', ttl: 60, type: 'User', user: 'alice' }, status: {} });
    const created = await fixture.call('POST', KEYS_PATH, { key: fixture.adminKey, body, contentType: 'application/yaml', accept: 'application/yaml' });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toContain('application/yaml');
    expect(created.text).toMatch(/key: [A-Za-z0-9_-]{43}/);
  });

  it('unrecognised apiVersion or kind: 400 Status', async () => {
    const wrongVersion = await fixture.call('POST', KEYS_PATH, { key: fixture.adminKey, body: { apiVersion: 'management.loft.sh/v2', kind: 'OwnedAccessKey', metadata: { name: 'x' }, spec: { user: 'a' } } });
    expect(wrongVersion.status).toBe(400);
    expect(wrongVersion.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    const wrongKind = await fixture.call('POST', KEYS_PATH, { key: fixture.adminKey, body: { apiVersion: 'management.loft.sh/v1', kind: 'Secret', metadata: { name: 'x' }, spec: { user: 'a' } } });
    expect(wrongKind.status).toBe(400);
  });

  it('spec and status values of the wrong type: 422 naming each field, nothing stored (hostile-input findings)', async () => {
    const wrong = await fixture.createKey({ user: 'alice', groups: 'admins', disabled: 'yes', identity: 'x' }, { name: 'wrong-types' });
    expect(wrong.status).toBe(422);
    expect(wrong.body).toMatchObject({ kind: 'Status', reason: 'Invalid' });
    expect(wrong.body.details.causes).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec.groups', message: 'Invalid value: "string": spec.groups in body must be of type array: "string"' },
      { reason: 'FieldValueTypeInvalid', field: 'spec.disabled', message: 'Invalid value: "string": spec.disabled in body must be of type boolean: "string"' },
      { reason: 'FieldValueTypeInvalid', field: 'spec.identity', message: 'Invalid value: "string": spec.identity in body must be of type object: "string"' },
    ]);
    expect((await fixture.createKey({ user: 'alice', groups: [5] }, { name: 'wrong-types' })).body.details.causes[0]).toMatchObject({ field: 'spec.groups[0]' });
    expect(await fixture.storage.get({ resource: 'management.loft.sh/v1/ownedaccesskeys', namespace: '', name: 'wrong-types' })).toBeUndefined();
    await fixture.createKey({ user: 'alice' }, { name: 'typed-status' });
    const status = await fixture.call('PATCH', `${KEYS_PATH}/typed-status/status`, { key: fixture.adminKey, contentType: 'application/merge-patch+json', body: { status: { lastActivity: 'now' } } });
    expect(status.status).toBe(422);
    expect(status.body.details.causes[0]).toMatchObject({ field: 'status.lastActivity', message: 'Invalid value: "now": status.lastActivity in body must be of type date-time: "now"' });
  });

  it('body too large: 413 Status, read by a client still writing the body, over TLS', async () => {
    const huge = await fixture.createKey({ user: 'alice', description: 'x'.repeat(4 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.body.kind).toBe('Status');
    // Answered before the body is read; closing the connection then reset it under the client.
    const target = { url: fixture.server.url, caCertPem: fixture.tls.caCertPem };
    for (const size of [3 * 1024 * 1024 + 1, 6 * 1024 * 1024]) {
      const exchange = await sendRawBody(target, { path: KEYS_PATH, contentType: 'application/json', declaredBytes: size, sendBytes: size, headers: { authorization: `Bearer ${fixture.adminKey}` } });
      expect(exchange.received).toMatch(/^HTTP\/1\.1 413 /);
      expect(answerBody(exchange.received)).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', message: 'the request body is too large: limit is 3145728 bytes (3 MiB)' });
      expect(exchange).toMatchObject({ error: undefined, bytesWritten: size });
    }
  });

  it('a request refused at authentication reads at most 4 MiB of its body and holds its connection at most 5 s, over TLS', async () => {
    const target = { url: fixture.server.url, caCertPem: fixture.tls.caCertPem };
    const MiB = 1024 * 1024;
    // Without a key, declaring 1 GiB: the 401 is decided from the head; the body was then read without end.
    const endless = await sendRawBody(target, { path: KEYS_PATH, contentType: 'application/json', declaredBytes: 1024 * MiB, sendBytes: 256 * MiB });
    expect(endless.bytesWritten).toBeLessThan(64 * MiB);
    expect(endless.received).toMatch(/^HTTP\/1\.1 401 /);
    expect(answerBody(endless.received)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    // With a key nobody holds, trickling 16 KiB every 100 ms (2 MiB would take 13 s): cut by the clock.
    const trickle = await sendRawBody(target, { path: KEYS_PATH, contentType: 'application/json', declaredBytes: 2 * MiB, sendBytes: 2 * MiB, chunkBytes: 16 * 1024, paceMs: 100, headers: { authorization: 'Bearer nobody-holds-this-key' } });
    expect(trickle.closedAfterMs).toBeLessThan(10_000);
    expect(trickle.received).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('list and Table output (name, owner, type, disabled, expires, last activity)', async () => {
    const list = await fixture.call('GET', KEYS_PATH, { key: fixture.adminKey });
    expect(list.status).toBe(200);
    expect(list.body.kind).toBe('OwnedAccessKeyList');
    for (const item of list.body.items) expect(item.spec.key).toBeUndefined();
    const table = await fixture.call('GET', KEYS_PATH, { key: fixture.adminKey, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(table.body.columnDefinitions.map((column: { name: string }) => column.name)).toEqual(['Name', 'Owner', 'Type', 'Disabled', 'Expires', 'Last Activity', 'Age']);
    const full = table.body.rows.find((row: { cells: unknown[] }) => row.cells[0] === 'full');
    expect(full.cells.slice(1, 5)).toEqual(['user:alice', 'User', 'false', '24h']);
  });

  it('PUT (kubectl replace/edit): omitting spec.key keeps the stored hash and does not bump generation; a new key replaces it', async () => {
    const created = await fixture.createKey({ user: 'alice', displayName: 'before' }, { name: 'put-me' });
    const key = created.body.spec.key as string;
    const read = await fixture.call('GET', `${KEYS_PATH}/put-me`, { key: fixture.adminKey });
    const same = await fixture.call('PUT', `${KEYS_PATH}/put-me`, { key: fixture.adminKey, body: read.body });
    expect(same.status).toBe(200);
    expect(same.body.metadata.generation).toBe(1);
    const edited = await fixture.call('PUT', `${KEYS_PATH}/put-me`, { key: fixture.adminKey, body: { ...read.body, spec: { ...read.body.spec, displayName: 'after' } } });
    expect(edited.status).toBe(200);
    expect(edited.body.spec.key).toBeUndefined();
    expect(edited.body.metadata.generation).toBe(2);
    expect((await fixture.call('GET', `${KEYS_PATH}/put-me`, { key })).status).toBe(200);
    const stale = await fixture.call('PUT', `${KEYS_PATH}/put-me`, { key: fixture.adminKey, body: read.body });
    expect(stale.status).toBe(409);
    const rotated = 'Rr0tat3d_Key-ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const current = await fixture.call('GET', `${KEYS_PATH}/put-me`, { key: fixture.adminKey });
    const replaced = await fixture.call('PUT', `${KEYS_PATH}/put-me`, { key: fixture.adminKey, body: { ...current.body, spec: { ...current.body.spec, key: rotated } } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.spec.key).toBeUndefined();
    await waitFor('the old key to stop working', async () => (await fixture.call('GET', `${KEYS_PATH}/put-me`, { key })).status === 401);
    expect((await fixture.call('GET', `${KEYS_PATH}/put-me`, { key: rotated })).status).toBe(200);
  });

  it('patch: JSON Patch (an annotation, as documented), merge, and server-side apply keep the key', async () => {
    const created = await fixture.createKey({ user: 'alice' }, { name: 'patch-me' });
    const key = created.body.spec.key as string;
    const json = await fixture.call('PATCH', `${KEYS_PATH}/patch-me`, {
      key: fixture.adminKey,
      contentType: 'application/json-patch+json',
      body: [
        { op: 'add', path: '/metadata/annotations', value: {} },
        { op: 'add', path: '/metadata/annotations/team', value: 'ci' },
      ],
    });
    expect(json.status).toBe(200);
    expect(json.body.metadata.annotations).toEqual({ team: 'ci' });
    expect(json.body.spec.key).toBeUndefined();
    const merge = await fixture.call('PATCH', `${KEYS_PATH}/patch-me`, { key: fixture.adminKey, contentType: 'application/merge-patch+json', body: { spec: { description: 'merged' } } });
    expect(merge.status).toBe(200);
    expect(merge.body.spec.description).toBe('merged');
    expect(merge.body.metadata.generation).toBe(2);
    const apply = await fixture.call('PATCH', `${KEYS_PATH}/patch-me?fieldManager=tester`, {
      key: fixture.adminKey,
      contentType: 'application/apply-patch+yaml',
      body: toYaml({ apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name: 'patch-me' }, spec: { user: 'alice', displayName: 'applied' } }),
    });
    expect(apply.status).toBe(200);
    expect(apply.body.spec.displayName).toBe('applied');
    expect(apply.body.metadata.managedFields.map((entry: { manager: string; operation: string }) => `${entry.manager}/${entry.operation}`)).toContain('tester/Apply');
    expect((await fixture.call('GET', `${KEYS_PATH}/patch-me`, { key })).status).toBe(200);
  });

  it('watch: events never carry the key hash', async () => {
    const url = new URL(fixture.server.url);
    const events: { type: string; object: { metadata: { name: string }; spec: Record<string, unknown> } }[] = [];
    const request = httpsRequest({ host: url.hostname, port: url.port, path: `${url.pathname}${KEYS_PATH}?watch=true`, headers: { authorization: `Bearer ${fixture.adminKey}` }, ca: fixture.tls.caCertPem }, (response) => {
      let buffered = '';
      response.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) if (line.trim() !== '') events.push(JSON.parse(line));
      });
    });
    request.end();
    try {
      await waitFor('the initial ADDED events', () => events.some((event) => event.object.metadata.name === 'full'));
      await fixture.createKey({ user: 'alice' }, { name: 'watched' });
      await fixture.call('DELETE', `${KEYS_PATH}/watched`, { key: fixture.adminKey });
      await waitFor('the DELETED event', () => events.some((event) => event.type === 'DELETED' && event.object.metadata.name === 'watched'));
      for (const event of events) expect(event.object.spec['key']).toBeUndefined();
    } finally {
      request.destroy();
    }
  });

  it('delete and deletecollection', async () => {
    await fixture.createKey({ user: 'bob' }, { name: 'gone-1' });
    await fixture.call('PATCH', `${KEYS_PATH}/gone-1`, { key: fixture.adminKey, contentType: 'application/merge-patch+json', body: { metadata: { labels: { batch: 'x' } } } });
    await fixture.call('POST', KEYS_PATH, { key: fixture.adminKey, body: { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name: 'gone-2', labels: { batch: 'x' } }, spec: { user: 'bob' } } });
    const removed = await fixture.call('DELETE', `${KEYS_PATH}?labelSelector=batch%3Dx`, { key: fixture.adminKey });
    expect(removed.status).toBe(200);
    expect(removed.body.items.map((item: { metadata: { name: string } }) => item.metadata.name).sort()).toEqual(['gone-1', 'gone-2']);
    for (const item of removed.body.items) expect(item.spec.key).toBeUndefined();
    const created = await fixture.createKey({ user: 'bob' }, { name: 'gone-3' });
    expect((await fixture.call('DELETE', `${KEYS_PATH}/gone-3`, { key: fixture.adminKey })).status).toBe(200);
    expect((await fixture.call('GET', `${KEYS_PATH}/gone-3`, { key: fixture.adminKey })).status).toBe(404);
    expect(created.body.spec.key).toBeDefined();
  });

  it('serves only under /kubernetes/management: discovery and OpenAPI there, 404 outside', async () => {
    const apis = await fixture.call('GET', '/apis', { key: fixture.adminKey });
    expect(apis.body.groups.map((group: { name: string }) => group.name)).toEqual(['management.loft.sh']);
    const resources = await fixture.call('GET', '/apis/management.loft.sh/v1', { key: fixture.adminKey });
    expect(resources.body.resources.map((resource: { name: string }) => resource.name)).toEqual(['ownedaccesskeys', 'ownedaccesskeys/status', 'directclusterendpointtokens']);
    const openapi = await fixture.call('GET', '/openapi/v3/apis/management.loft.sh/v1', { key: fixture.adminKey });
    expect(Object.keys(openapi.body.components.schemas)).toContain('sh.loft.management.v1.OwnedAccessKey');
    expect((await fixture.call('GET', `//${KEYS_PATH}`, { key: fixture.adminKey })).status).toBe(404);
    expect((await fixture.call('GET', '//kubernetes/managementx/apis', { key: fixture.adminKey })).status).toBe(404);
  });
});
