import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/observe/logger.js';
import { parseFieldSelector } from '../../../src/apiserver/field-selector.js';
import { parseLabelSelector } from '../../../src/apiserver/label-selector.js';
import { ResourceRegistry } from '../../../src/apiserver/resource-type.js';
import { WatchEventCache } from '../../../src/apiserver/watch-event-cache.js';
import { WatchStream } from '../../../src/apiserver/watch-stream.js';
import { coreKindDefinitions } from '../../../src/devcluster/core-kinds.js';
import { ApiStorage } from '../../../src/devcluster/storage/api-storage.js';
import { openStore } from '../../../src/devcluster/storage/open-store.js';
import type { Store } from '../../../src/devcluster/storage/types.js';
import { endpoints, WatchReader, useDevclusterFixture } from '../../support/devcluster-fixture.js';
import { waitFor } from '../../support/wait-for.js';

const fx = useDevclusterFixture({ watchWindow: 20, bookmarkIntervalMs: 200 });
const readers: WatchReader[] = [];
beforeAll(async () => {
  await fx.request('/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'w' } } });
});
afterEach(() => {
  for (const reader of readers.splice(0)) reader.close();
});

const EP = '/api/v1/namespaces/w/endpoints';

async function watch(query: string, headers: Record<string, string> = {}): Promise<WatchReader> {
  const reader = await new WatchReader().open(`${fx.cluster.url}${EP}?watch=true&${query}`, headers);
  readers.push(reader);
  return reader;
}

async function create(name: string, labels: Record<string, string> = {}): Promise<string> {
  const response = await fx.request(EP, { method: 'POST', body: endpoints(name, ['10.0.0.1'], { labels }) });
  expect(response.status).toBe(201);
  return response.body.metadata.resourceVersion;
}

async function relabel(name: string, labels: Record<string, string>): Promise<void> {
  const response = await fx.request(`${EP}/${name}`, { method: 'PATCH', body: { metadata: { labels } }, contentType: 'application/merge-patch+json' });
  expect(response.status).toBe(200);
}

describe('watch', () => {
  it('streams chunked newline-delimited JSON: initial ADDED, then changes in order', async () => {
    await create('w1');
    const response = await fetch(`${fx.cluster.url}${EP}?watch=true&timeoutSeconds=1`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    await response.body?.cancel();
    const reader = await watch('');
    await reader.waitForEvents(1);
    expect(reader.events[0]).toMatchObject({ type: 'ADDED', object: { kind: 'Endpoints', metadata: { name: 'w1' } } });
    await relabel('w1', { x: '1' });
    await fx.request(`${EP}/w1`, { method: 'DELETE' });
    await reader.waitForEvents(3);
    expect(reader.events.map((event) => event.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    const versions = reader.events.map((event) => Number(event.object.metadata.resourceVersion));
    expect([...versions].sort((a, b) => a - b)).toEqual(versions);
  });

  it('from resourceVersion N sends only later changes; "0" sends the current state', async () => {
    const rv = await create('w2');
    await relabel('w2', { step: '2' });
    const fromN = await watch(`resourceVersion=${rv}`);
    const fromZero = await watch('resourceVersion=0');
    await fromN.waitForEvents(1);
    await fromZero.waitForEvents(1);
    expect(fromN.events[0]).toMatchObject({ type: 'MODIFIED', object: { metadata: { labels: { step: '2' } } } });
    expect(fromZero.events.every((event) => event.type === 'ADDED')).toBe(true);
    expect(fromZero.events.some((event) => event.object.metadata.name === 'w2')).toBe(true);
  });

  it('answers a resourceVersion older than the window in the stream, as the real server: 200, one ERROR 410 Expired, end', async () => {
    const rv = await create('old');
    for (let index = 0; index < 25; index += 1) await relabel('old', { n: String(index) });
    const reader = await watch(`resourceVersion=${rv}`);
    expect(reader.status).toBe(200);
    await waitFor('the watch to end', () => reader.ended);
    expect(reader.events).toHaveLength(1);
    expect(reader.events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 } });
    expect(String(reader.events[0]?.object.message)).toMatch(new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`));
    const malformed = await fetch(`${fx.cluster.url}${EP}?watch=true&resourceVersion=abc`);
    expect(malformed.status).toBe(400);
  });

  it('ends cleanly after timeoutSeconds', async () => {
    const reader = await watch('timeoutSeconds=1');
    await waitFor('the watch to end', () => reader.ended);
  });

  it('sends bookmarks only when allowed, with just kind, apiVersion and resourceVersion', async () => {
    const withBookmarks = await watch('allowWatchBookmarks=true&resourceVersion=0');
    const without = await watch('resourceVersion=0');
    await waitFor('a bookmark', () => withBookmarks.events.some((event) => event.type === 'BOOKMARK'));
    const bookmark = withBookmarks.events.find((event) => event.type === 'BOOKMARK');
    expect(Object.keys(bookmark?.object ?? {}).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
    expect(bookmark?.object.metadata.resourceVersion).toMatch(/^\d+$/);
    await create('after-bookmark');
    await waitFor('the change on the plain watch', () => without.events.some((event) => event.object.metadata.name === 'after-bookmark'));
    expect(without.events.some((event) => event.type === 'BOOKMARK')).toBe(false);
  });

  it('ends sendInitialEvents with an annotated bookmark', async () => {
    await create('initial');
    const list = await fx.request(EP);
    const reader = await watch('sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=');
    const count = list.body.items.length;
    await reader.waitForEvents(count + 1);
    expect(reader.events.slice(0, count).every((event) => event.type === 'ADDED')).toBe(true);
    expect(reader.events[count]).toMatchObject({ type: 'BOOKMARK', object: { metadata: { annotations: { 'k8s.io/initial-events-end': 'true' } } } });
  });

  it('ends the initial events with no bookmark for a client that does not take bookmarks', async () => {
    await create('no-bookmark', { initial: 'quiet' });
    const reader = await watch(`labelSelector=${encodeURIComponent('initial=quiet')}&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1`);
    await waitFor('the watch to end', () => reader.ended);
    expect(reader.events.map((event) => [event.type, event.object.metadata.name])).toEqual([['ADDED', 'no-bookmark']]);
  });

  it.each([
    ['sendInitialEvents=true&allowWatchBookmarks=true', [{ field: 'resourceVersionMatch', reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan' }]],
    ['resourceVersionMatch=NotOlderThan', [{ field: 'resourceVersionMatch', reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided' }]],
    [
      'sendInitialEvents=true&resourceVersionMatch=Exact&allowWatchBookmarks=true',
      [
        { field: 'resourceVersionMatch', reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan' },
        { field: 'resourceVersionMatch', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Exact": supported values: "NotOlderThan"' },
      ],
    ],
  ])('refuses %s with 422 Invalid ListOptions before streaming', async (query, causes) => {
    const response = await fetch(`${fx.cluster.url}${EP}?watch=true&${query}`);
    expect(response.status).toBe(422);
    const status = (await response.json()) as Record<string, unknown>;
    expect(status).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422, details: { group: 'meta.k8s.io', kind: 'ListOptions', causes } });
    expect(String(status['message'])).toMatch(/^ListOptions\.meta\.k8s\.io "" is invalid: /);
  });

  it('sends the last state that matched as the DELETED object of a change that leaves the selector, live and resumed', async () => {
    const created = await create('leaver', { side: 'in' });
    const live = await watch(`labelSelector=${encodeURIComponent('side=in')}&resourceVersion=${created}`);
    await relabel('leaver', { side: 'out' });
    await relabel('leaver', { side: 'in' });
    const resumed = await watch(`labelSelector=${encodeURIComponent('side=in')}&resourceVersion=${created}`);
    for (const reader of [live, resumed]) {
      await reader.waitForEvents(2);
      expect(reader.events.map((event) => [event.type, event.object.metadata.labels])).toEqual([
        ['DELETED', { side: 'in' }],
        ['ADDED', { side: 'in' }],
      ]);
      // The DELETED object is the old state at the resourceVersion of the change that made it leave.
      expect(Number(reader.events[0]?.object.metadata.resourceVersion)).toBeGreaterThan(Number(created));
      expect(Number(reader.events[0]?.object.metadata.resourceVersion)).toBeLessThan(Number(reader.events[1]?.object.metadata.resourceVersion));
    }
  });

  it('a resumed watch with a field selector replays only the selected object', async () => {
    const created = await create('chosen');
    await create('bystander');
    await fx.request(`${EP}/bystander`, { method: 'DELETE' });
    await fx.request(`${EP}/chosen`, { method: 'DELETE' });
    const reader = await watch(`fieldSelector=${encodeURIComponent('metadata.name=chosen')}&resourceVersion=${created}&timeoutSeconds=1`);
    await waitFor('the watch to end', () => reader.ended);
    expect(reader.events.map((event) => [event.type, event.object.metadata.name])).toEqual([['DELETED', 'chosen']]);
  });

  it('applies selectors: an object that stops matching is DELETED, one that starts matching ADDED', async () => {
    await create('sel', { role: 'a' });
    const reader = await watch(`labelSelector=${encodeURIComponent('role=a')}`);
    await waitFor('the initial object', () => reader.events.some((event) => event.object.metadata.name === 'sel'));
    const start = reader.events.length;
    await relabel('sel', { role: 'b' });
    await relabel('sel', { role: 'a' });
    await relabel('sel', { role: 'a', other: 'x' });
    await create('unrelated', { role: 'z' });
    await fx.request(`${EP}/sel`, { method: 'DELETE' });
    await reader.waitForEvents(start + 4);
    expect(reader.events.slice(start).map((event) => event.type)).toEqual(['DELETED', 'ADDED', 'MODIFIED', 'DELETED']);
    const byName = await watch(`fieldSelector=${encodeURIComponent('metadata.name=unrelated')}`);
    await byName.waitForEvents(1);
    expect(byName.events.map((event) => event.object.metadata.name)).toEqual(['unrelated']);
  });

  it('serves Table watch events when asked', async () => {
    await create('tabled');
    const reader = await watch(`fieldSelector=${encodeURIComponent('metadata.name=tabled')}`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
    await reader.waitForEvents(1);
    expect(reader.events[0]?.object).toMatchObject({ kind: 'Table', rows: [{ cells: ['tabled', '10.0.0.1:80', expect.any(String)] }] });
  });
});

describe('watch stream resources', () => {
  let store: Store;
  let server: Server;
  const ended: string[] = [];
  /** The server side of the latest watch. */
  let served: ServerResponse | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await store?.close();
  });

  async function serve(sendBufferBytes: number): Promise<string> {
    store = await openStore({ watchWindow: 100 });
    const type = new ResourceRegistry(coreKindDefinitions()).byKind('ConfigMap');
    const storage = new ApiStorage(store);
    server = createServer((_request, response) => {
      served = response;
      const stream: WatchStream = new WatchStream({
        storage,
        type,
        namespace: undefined,
        labelSelector: parseLabelSelector(undefined),
        fieldSelector: parseFieldSelector(undefined),
        resourceVersion: String(store.currentRevision()),
        sendInitialEvents: undefined,
        allowBookmarks: false,
        timeoutMs: undefined,
        bookmarkIntervalMs: 60_000,
        sendBufferBytes,
        response,
        encoding: { representation: 'json', shared: true, encode: (object) => object },
        lines: new WatchEventCache(),
        logger: silentLogger(),
        onEnd: () => ended.push('ended'),
      });
      stream.start().catch((error: unknown) => response.destroy(error as Error));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  }

  it('hands a live event to the socket before the writer continues, not on the next tick', async () => {
    const url = await serve(1024 * 1024);
    const reader = await new WatchReader().open(url);
    await store.create('core/v1/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'd' } });
    // The writer's continuation (here: this line; in the server, its HTTP answer) runs before any
    // next tick: the event must already be flushed, not corked behind that answer.
    expect(served?.socket?.writableCorked).toBe(0);
    await reader.waitForEvents(1);
    reader.close();
  });

  it('closes the store watch when the client disconnects', async () => {
    ended.length = 0;
    const url = await serve(1024 * 1024);
    const reader = await new WatchReader().open(url);
    await store.create('core/v1/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'd' } });
    await reader.waitForEvents(1);
    reader.close();
    await waitFor('the stream to end after the disconnect', () => ended.length === 1);
  });

  it('ends a watch whose client does not read once its buffer passes the limit, without blocking writers', async () => {
    ended.length = 0;
    const url = await serve(64 * 1024);
    const response = await fetch(url); // never read: the socket buffers fill up
    expect(response.status).toBe(200);
    const big = 'x'.repeat(16 * 1024);
    let writes = 0;
    while (ended.length === 0 && writes < 2000) {
      await store.create('core/v1/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${writes}`, namespace: 'd' }, data: { big } });
      writes += 1;
    }
    expect(ended).toEqual(['ended']);
    expect(writes).toBeLessThan(2000);
    await response.body?.cancel().catch(() => undefined);
  });
});
