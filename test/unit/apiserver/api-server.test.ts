import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApiServer, type ApiServer } from '../../../src/apiserver/api-server.js';
import { invalidValue } from '../../../src/apiserver/metadata-validation.js';
import { ResourceRegistry, type KindDefinition } from '../../../src/apiserver/resource-type.js';
import type { StoredObject } from '../../../src/apiserver/storage.js';
import { NAME_COLUMN, tableColumn } from '../../../src/apiserver/table-column.js';
import { silentLogger } from '../../../src/observe/logger.js';
import { waitFor } from '../../support/wait-for.js';
import { MapStorage } from '../../support/map-storage.js';

/** A kind no devcluster serves: the core needs nothing but this definition and a storage. */
const WIDGETS: KindDefinition = {
  group: 'example.vcsync.io',
  version: 'v1alpha1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: false,
  returnDeletedObject: true,
  selectableFields: ['spec.size'],
  // Like a custom resource: the generation follows spec changes.
  generation: 'spec',
  columns: [NAME_COLUMN, tableColumn('Size', 'How big the widget is', (object) => String((object['spec'] as { size?: string } | undefined)?.size ?? ''))],
  strategy: {
    prepareForWrite(object) {
      const spec = (object['spec'] ?? {}) as Record<string, unknown>;
      object['spec'] = { size: 'small', ...spec };
      return [];
    },
    validate(object) {
      const size = (object['spec'] as Record<string, unknown>)['size'];
      return ['small', 'large'].includes(String(size)) ? [] : [invalidValue('spec.size', size, 'must be small or large')];
    },
  },
};

const URL_BASE = '/apis/example.vcsync.io/v1alpha1/widgets';

describe('a server built from the apiserver core alone', () => {
  let server: ApiServer;
  let storage: MapStorage;

  beforeEach(() => {
    storage = new MapStorage();
    server = buildApiServer({
      registry: new ResourceRegistry([WIDGETS]),
      storage,
      serverName: 'widget server',
      version: { major: '1', minor: '32', gitVersion: 'v1.32.0-widgets' },
      serverAddress: () => '127.0.0.1:0',
      bookmarkIntervalMs: 60_000,
      watchSendBufferBytes: 1024 * 1024,
      now: () => Date.parse('2026-01-02T03:04:05Z'),
      logger: silentLogger(),
    });
  });
  afterEach(async () => {
    server.endWatches();
    await server.app.close();
  });

  async function send(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await server.app.inject({ method, url, ...(body !== undefined ? { payload: JSON.stringify(body), headers: { 'content-type': contentType } } : {}) });
    return { status: response.statusCode, body: response.json<Record<string, unknown>>() };
  }

  it('applies the generic metadata rules and the kind strategy on create, with the storage’s opaque resourceVersion', async () => {
    const created = await send('POST', URL_BASE, { metadata: { generateName: 'gadget-' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      apiVersion: 'example.vcsync.io/v1alpha1',
      kind: 'Widget',
      metadata: { uid: expect.any(String), generation: 1, creationTimestamp: '2026-01-02T03:04:05Z', resourceVersion: 'v1' },
      spec: { size: 'small' },
    });
    expect((created.body['metadata'] as { name: string }).name).toMatch(/^gadget-[a-z0-9]{5}$/);
  });

  it('answers the kind’s validation failures and missing objects as Status objects', async () => {
    const invalid = await send('POST', URL_BASE, { metadata: { name: 'huge' }, spec: { size: 'huge' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ kind: 'Status', reason: 'Invalid', message: 'Widget "huge" is invalid: spec.size: Invalid value: "huge": must be small or large' });
    const missing = await send('GET', `${URL_BASE}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'widgets.example.vcsync.io "nope" not found' });
  });

  it('refuses what the real server refuses and the hostile-input test got stored: a resourceVersion or a junk timestamp on create, a PUT without a name, an invalid generateName on update', async () => {
    const versioned = await send('POST', URL_BASE, { metadata: { name: 'versioned', resourceVersion: '12' } });
    expect(versioned).toEqual({ status: 400, body: expect.objectContaining({ reason: 'BadRequest', message: 'resourceVersion should not be set on objects to be created' }) });
    expect(await storage.get({ resource: 'example.vcsync.io/v1alpha1/widgets', namespace: '', name: 'versioned' })).toBeUndefined();
    const dated = await send('POST', URL_BASE, { metadata: { name: 'dated', creationTimestamp: 'yesterday' } });
    expect(dated).toEqual({ status: 400, body: expect.objectContaining({ reason: 'BadRequest', message: 'Widget in version "v1alpha1" cannot be handled as a Widget: metadata.creationTimestamp: "yesterday" is not an RFC 3339 time' }) });
    expect((await send('POST', URL_BASE, { metadata: { name: 'dated', creationTimestamp: '2020-01-01T00:00:00Z' } })).status).toBe(201);
    await send('POST', URL_BASE, { metadata: { name: 'kept', labels: { a: 'b' } } });
    const nameless = await send('PUT', `${URL_BASE}/kept`, { metadata: {}, spec: { size: 'large' } });
    expect(nameless).toEqual({ status: 400, body: expect.objectContaining({ reason: 'BadRequest', message: 'the name of the object (kept based on URL) was undeterminable: name must be provided' }) });
    const prefixed = await send('PUT', `${URL_BASE}/kept`, { metadata: { name: 'kept', generateName: 'BAD_' } });
    expect(prefixed.status).toBe(422);
    expect(prefixed.body['details']).toMatchObject({ causes: [{ field: 'metadata.generateName', message: expect.stringContaining('Invalid value: "BAD_"') }] });
    expect((await send('PUT', `${URL_BASE}/kept`, { metadata: { name: 'kept', generateName: 'good-' } })).status).toBe(200);
    expect((await storage.get({ resource: 'example.vcsync.io/v1alpha1/widgets', namespace: '', name: 'kept' }))?.['spec']).toEqual({ size: 'small' });
  });

  it('refuses a write with a stale resourceVersion and bumps generation on spec changes only', async () => {
    await send('POST', URL_BASE, { metadata: { name: 'w', labels: { a: 'b' } } });
    const stale = await send('PUT', `${URL_BASE}/w`, { metadata: { name: 'w', resourceVersion: 'v0' }, spec: { size: 'large' } });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ reason: 'Conflict' });
    const relabelled = await send('PATCH', `${URL_BASE}/w`, { metadata: { labels: { a: 'c' } } }, 'application/merge-patch+json');
    expect(relabelled.body).toMatchObject({ metadata: { generation: 1, resourceVersion: 'v2' } });
    const resized = await send('PATCH', `${URL_BASE}/w`, { spec: { size: 'large' } }, 'application/merge-patch+json');
    expect(resized.body).toMatchObject({ metadata: { generation: 2 }, spec: { size: 'large' } });
  });

  it('computes a PATCH without resourceVersion again when another write lands between its read and its write; a PATCH naming one gets the 409', async () => {
    await send('POST', URL_BASE, { metadata: { name: 'w' } });
    const ownedBy = (owner: string) => (object: StoredObject): boolean => (object.metadata['labels'] as Record<string, string> | undefined)?.['owner'] === owner;
    // The controller's write is held until the user's PATCH (read before it) writes: it lands in between.
    storage.holdNextUpdate(ownedBy('controller'));
    const controller = send('PATCH', `${URL_BASE}/w`, { metadata: { labels: { owner: 'controller' } } }, 'application/merge-patch+json');
    await waitFor('the controller write to be held', () => storage.holding);
    const user = await send('PATCH', `${URL_BASE}/w`, { spec: { size: 'large' } }, 'application/merge-patch+json');
    expect(storage.interleaved).toBe(1);
    expect(user.status).toBe(200);
    expect(user.body).toMatchObject({ metadata: { labels: { owner: 'controller' } }, spec: { size: 'large' } });
    expect((await controller).status).toBe(200);

    const read = await send('GET', `${URL_BASE}/w`);
    const version = (read.body['metadata'] as { resourceVersion: string }).resourceVersion;
    storage.holdNextUpdate(ownedBy('someone-else'));
    const other = send('PATCH', `${URL_BASE}/w`, { metadata: { labels: { owner: 'someone-else' } } }, 'application/merge-patch+json');
    await waitFor('the other write to be held', () => storage.holding);
    const conditional = await send('PATCH', `${URL_BASE}/w`, { metadata: { resourceVersion: version }, spec: { size: 'small' } }, 'application/merge-patch+json');
    expect(storage.interleaved).toBe(2);
    expect(conditional.status).toBe(409);
    expect(conditional.body).toMatchObject({ kind: 'Status', reason: 'Conflict' });
    expect((await other).status).toBe(200);
  });

  it('keeps an object with finalizers until the last one is removed', async () => {
    await send('POST', URL_BASE, { metadata: { name: 'held', finalizers: ['example.vcsync.io/hold'] } });
    const marked = await send('DELETE', `${URL_BASE}/held`);
    expect(marked.body).toMatchObject({ metadata: { deletionTimestamp: '2026-01-02T03:04:05Z' } });
    expect((await send('GET', `${URL_BASE}/held`)).status).toBe(200);
    await send('PATCH', `${URL_BASE}/held`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect((await send('GET', `${URL_BASE}/held`)).status).toBe(404);
  });

  it('lists with the kind’s field selectors and Table columns, and serves discovery and OpenAPI for it', async () => {
    await send('POST', URL_BASE, { metadata: { name: 'a' } });
    await send('POST', URL_BASE, { metadata: { name: 'b' }, spec: { size: 'large' } });
    const selected = await send('GET', `${URL_BASE}?fieldSelector=spec.size%3Dlarge`);
    expect(selected.body).toMatchObject({ kind: 'WidgetList', metadata: { resourceVersion: 'v2' }, items: [{ metadata: { name: 'b' } }] });
    const table = await server.app.inject({ method: 'GET', url: URL_BASE, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.json()).toMatchObject({ kind: 'Table', rows: [{ cells: ['a', 'small'] }, { cells: ['b', 'large'] }] });
    const groups = await send('GET', '/apis');
    expect(groups.body).toMatchObject({ kind: 'APIGroupList', groups: [{ name: 'example.vcsync.io', preferredVersion: { version: 'v1alpha1' } }] });
    const document = await send('GET', '/openapi/v3/apis/example.vcsync.io/v1alpha1');
    const schemas = (document.body['components'] as { schemas: Record<string, { description?: string }> }).schemas;
    expect(schemas['io.k8s.api.example_vcsync_io.v1alpha1.Widget']?.description).toBe('Widget as served by the widget server.');
    expect((await send('GET', '/version')).body).toMatchObject({ gitVersion: 'v1.32.0-widgets' });
  });

  it('answers 400 for a resourceVersion its storage cannot have given out', async () => {
    const listed = await send('GET', `${URL_BASE}?resourceVersion=v1`);
    expect(listed.status).toBe(200);
    const watched = await server.app.inject({ method: 'GET', url: `${URL_BASE}?watch=true&resourceVersion=17` });
    expect(watched.statusCode).toBe(400);
    expect(watched.json()).toMatchObject({ reason: 'BadRequest', message: 'invalid resource version: 17' });
  });

  it('sends the last matching state as the DELETED object of a change leaving the selector, with a storage that gives no previous state', async () => {
    await send('POST', URL_BASE, { metadata: { name: 'w', labels: { side: 'in' } } });
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const response = await fetch(`${address}${URL_BASE}?watch=true&labelSelector=side%3Din&timeoutSeconds=1`);
    expect(response.status).toBe(200);
    await waitFor('the watch to be registered', () => storage.registered.open === 1);
    expect((await send('PATCH', `${URL_BASE}/w`, { metadata: { labels: { side: 'out' } } }, 'application/merge-patch+json')).status).toBe(200);
    expect((await send('PATCH', `${URL_BASE}/w`, { metadata: { labels: { side: 'in' } } }, 'application/merge-patch+json')).status).toBe(200);
    const events = (await response.text())
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { type: string; object: { metadata: { labels?: unknown; resourceVersion?: string } } });
    expect(events.map((event) => [event.type, event.object.metadata.labels, event.object.metadata.resourceVersion])).toEqual([
      ['ADDED', { side: 'in' }, 'v1'],
      ['DELETED', { side: 'in' }, 'v2'],
      ['ADDED', { side: 'in' }, 'v3'],
    ]);
  });

  it('ends a watch still registering with a slow storage when the server closes, and closes its storage watch', async () => {
    let release = (): void => undefined;
    storage.holdWatches = new Promise((resolve) => {
      release = resolve;
    });
    const answered = server.app.inject({ method: 'GET', url: `${URL_BASE}?watch=true` });
    await waitFor('the watch to reach the storage', () => storage.watchCalls === 1);
    server.endWatches();
    expect((await answered).statusCode).toBe(200);
    release();
    await waitFor('the late storage watch to be registered and closed again', () => storage.registered.total === 1 && storage.registered.open === 0);
  });

  it('answers HTTP the parser refuses, CONNECT and a path that is not valid percent-encoding with a Status (hostile-input findings)', async () => {
    const address = new URL(await server.app.listen({ port: 0, host: '127.0.0.1' }));
    const exchange = (request: string): Promise<{ status: number; body: unknown }> =>
      new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        const socket = connect({ host: '127.0.0.1', port: Number(address.port) }, () => socket.end(request));
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('error', reject);
        socket.on('close', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = /^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1];
          if (status === undefined) reject(new Error(`no HTTP answer: ${JSON.stringify(text)}`));
          else resolve({ status: Number(status), body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) });
        });
      });
    const status = (code: number, reason: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, reason, message: expect.any(String) });
    const end = 'Host: x\r\nConnection: close\r\n\r\n';
    expect(await exchange(`GET ${URL_BASE}/a\u0000b HTTP/1.1\r\n${end}`)).toEqual({ status: 400, body: status(400, 'BadRequest') });
    expect(await exchange(`BREW ${URL_BASE} HTTP/1.1\r\n${end}`)).toEqual({ status: 400, body: status(400, 'BadRequest') });
    expect(await exchange(`POST ${URL_BASE} HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n${end}0\r\n\r\n`)).toEqual({ status: 400, body: status(400, 'BadRequest') });
    expect(await exchange(`GET ${URL_BASE} HTTP/1.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n${end}`)).toEqual({ status: 431, body: status(431, 'RequestHeaderFieldsTooLarge') });
    expect(await exchange(`CONNECT localhost:443 HTTP/1.1\r\n${end}`)).toEqual({ status: 405, body: status(405, 'MethodNotAllowed') });
    // Found by the devcluster fuzzer: a HEAD gets the head alone; a body would break the client's parser.
    const head = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect({ host: '127.0.0.1', port: Number(address.port) }, () => socket.end(`HEAD ${URL_BASE} HTTP/1.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n${end}`));
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    expect(head).toMatch(/^HTTP\/1\.1 431 .*\r\nContent-Length: \d+\r\n/s);
    expect(head.endsWith('\r\n\r\n') && head.indexOf('\r\n\r\n') === head.length - 4).toBe(true);
    const badPercent = await send('GET', `${URL_BASE}/%C0%AF`);
    expect(badPercent).toEqual({ status: 400, body: status(400, 'BadRequest') });
  });
});
