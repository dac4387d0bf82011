import { request as httpsRequest, type RequestOptions } from 'node:https';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect as tcpConnect, type AddressInfo, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureTlsAssets, type TlsAssets } from '../../../src/apiserver/security/tls-assets.js';
import { parseFieldSelector } from '../../../src/apiserver/field-selector.js';
import { parseLabelSelector } from '../../../src/apiserver/label-selector.js';
import { ResourceRegistry } from '../../../src/apiserver/resource-type.js';
import { WatchEventCache } from '../../../src/apiserver/watch-event-cache.js';
import type { Storage, StoredObject } from '../../../src/apiserver/storage.js';
import { WatchStream, type WatchStreamInit } from '../../../src/apiserver/watch-stream.js';
import type { WatchLimits } from '../../../src/apiserver/watch-admission.js';
import { coreKindDefinitions } from '../../../src/devcluster/core-kinds.js';
import { ApiStorage } from '../../../src/devcluster/storage/api-storage.js';
import { openStore } from '../../../src/devcluster/storage/open-store.js';
import type { Store } from '../../../src/devcluster/storage/types.js';
import { ManagementMetrics, startManagementServer, type ManagementServer } from '../../../src/management/index.js';
import type { ConnectionLimits } from '../../../src/observe/connection-guard.js';
import { silentLogger } from '../../../src/observe/logger.js';
import { MapStorage } from '../../support/map-storage.js';
import { metricValue } from '../../support/metrics.js';
import { waitFor } from '../../support/wait-for.js';

// Watches and connections cannot exhaust the process.

const KEYS = '/apis/management.loft.sh/v1/ownedaccesskeys';

/** A management server over HTTPS with the given limits, its admin key and a metrics registry. */
interface Served {
  server: ManagementServer;
  tls: TlsAssets;
  adminKey: string;
  registry: Registry;
  dir: string;
}

const started: Served[] = [];
const opened: { destroy(): void }[] = [];

afterEach(async () => {
  for (const socket of opened.splice(0)) socket.destroy();
  for (const served of started.splice(0)) {
    await served.server.close();
    await rm(served.dir, { recursive: true, force: true });
  }
});

async function serve(limits: { watchLimits?: Partial<WatchLimits>; connectionLimits?: Partial<ConnectionLimits> } = {}): Promise<Served> {
  const dir = await mkdtemp(join(tmpdir(), 'watch-exhaustion-'));
  const tls = await ensureTlsAssets(join(dir, 'tls'), { serverName: 'vcsync-management' });
  const registry = new Registry();
  const keyPath = join(dir, 'admin.key');
  const server = await startManagementServer({
    storage: new MapStorage(),
    keyHashSecret: Buffer.alloc(32, 7),
    tls: { certPath: tls.serverCertPath, keyPath: tls.serverKeyPath },
    bootstrapKeyPath: keyPath,
    metrics: new ManagementMetrics(registry),
    ...limits,
    logger: silentLogger(),
  });
  const served = { server, tls, adminKey: (await readFile(keyPath, 'utf8')).trim(), registry, dir };
  started.push(served);
  return served;
}

function requestOptions(served: Served, method: string, path: string, key: string | undefined): RequestOptions {
  const url = new URL(served.server.url);
  return {
    host: url.hostname,
    port: url.port,
    method,
    path: `${url.pathname}${path}`,
    ca: served.tls.caCertPem,
    agent: false,
    headers: { accept: 'application/json', ...(key !== undefined ? { authorization: `Bearer ${key}` } : {}) },
  };
}

/** A complete exchange: status, headers and the JSON body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- arbitrary JSON
function call(served: Served, method: string, path: string, key: string | undefined, body?: unknown): Promise<{ status: number; headers: IncomingMessage['headers']; body: any }> {
  const options = requestOptions(served, method, path, key);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) options.headers = { ...options.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
  return new Promise((resolve, reject) => {
    const request = httpsRequest(options, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text.startsWith('{') ? JSON.parse(text) : text });
      });
    });
    request.on('error', reject);
    request.end(payload);
  });
}

/** An open watch: its status, the events read so far. */
interface OpenWatch {
  status: number;
  headers: IncomingMessage['headers'];
  events: { type: string; object: any }[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- arbitrary JSON
  body: string;
  ended: boolean;
}

function watch(served: Served, key: string): Promise<OpenWatch> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(requestOptions(served, 'GET', `${KEYS}?watch=true`, key), (response) => {
      const open: OpenWatch = { status: response.statusCode ?? 0, headers: response.headers, events: [], body: '', ended: false };
      let buffered = '';
      response.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        open.body += chunk.toString('utf8');
        for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
          open.events.push(JSON.parse(buffered.slice(0, newline)));
          buffered = buffered.slice(newline + 1);
        }
      });
      response.on('close', () => (open.ended = true));
      resolve(open);
    });
    request.on('error', reject);
    opened.push(request);
    request.end();
  });
}

/** A raw TCP connection to the server's port, with a flag for when the server closed it. */
async function rawConnection(served: Served): Promise<{ socket: Socket; closed: () => boolean }> {
  const socket = tcpConnect({ host: '127.0.0.1', port: served.server.port });
  opened.push(socket);
  let closed = false;
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined); // an evicted connection may be reset: closed either way
  await new Promise((resolve) => socket.once('connect', resolve));
  return { socket, closed: () => closed };
}

describe('caps on concurrent watches', () => {
  it('answers a watch over the per-user cap 429 with Retry-After and a Status naming the limit, and admits again once one ends', async () => {
    const served = await serve({ watchLimits: { maxWatchesPerUser: 2, maxWatches: 10, retryAfterSeconds: 3 } });
    const first = await watch(served, served.adminKey);
    await watch(served, served.adminKey);
    expect(first.status).toBe(200);
    const refused = await call(served, 'GET', `${KEYS}?watch=true`, served.adminKey);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('3');
    expect(refused.body).toMatchObject({ kind: 'Status', code: 429, reason: 'TooManyRequests', details: { retryAfterSeconds: 3 } });
    expect(refused.body.message).toContain('the limit per user is 2');
    expect(await metricValue(served.registry, 'vcsync_apiserver_watches_refused_total', { limit: 'per_user' })).toBe(1);
    // A plain request is not a watch: still served.
    expect((await call(served, 'GET', KEYS, served.adminKey)).status).toBe(200);
    // The slot comes back when a watch ends.
    opened.shift()?.destroy();
    await waitFor('the closed watch to free its slot', async () => (await metricValue(served.registry, 'vcsync_apiserver_watches')) === 1);
    expect((await watch(served, served.adminKey)).status).toBe(200);
  });

  it('answers a watch over the global cap 429 whoever asks', async () => {
    const served = await serve({ watchLimits: { maxWatchesPerUser: 5, maxWatches: 1 } });
    const created = await call(served, 'POST', KEYS, served.adminKey, { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name: 'kim' }, spec: { user: 'kim' } });
    expect(created.status).toBe(201);
    expect((await watch(served, served.adminKey)).status).toBe(200);
    const refused = await call(served, 'GET', `${KEYS}?watch=true`, created.body.spec.key as string);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.body.message).toContain('its limit is 1');
    expect(await metricValue(served.registry, 'vcsync_apiserver_watches_refused_total', { limit: 'global' })).toBe(1);
  });
});

describe('connections', () => {
  it('closes a TLS connection whose request head stalls half-way', async () => {
    const served = await serve({ connectionLimits: { headersTimeoutMs: 300 } });
    const socket = tlsConnect({ host: '127.0.0.1', port: served.server.port, ca: served.tls.caCertPem, servername: 'localhost' });
    opened.push(socket);
    let closed = false;
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    socket.write('GET /kubernetes/management/version HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    await waitFor('the server to close the connection with the stalled head', () => closed, { timeoutMs: 15_000 });
  });

  it('closes a TCP connection that never starts its TLS handshake', async () => {
    const served = await serve({ connectionLimits: { headersTimeoutMs: 300 } });
    const idle = await rawConnection(served);
    await waitFor('the server to close the silent connection', () => idle.closed(), { timeoutMs: 15_000 });
  });

  it('closes an idle keep-alive connection after its idle timeout, and serves it until then', async () => {
    const served = await serve({ connectionLimits: { idleTimeoutMs: 400 } });
    const socket = tlsConnect({ host: '127.0.0.1', port: served.server.port, ca: served.tls.caCertPem, servername: 'localhost' });
    opened.push(socket);
    let closed = false;
    let answer = '';
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    await new Promise((resolve) => socket.once('secureConnect', resolve));
    socket.write('GET /kubernetes/management/readyz HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n\r\n');
    await waitFor('the answer on the keep-alive connection', () => answer.endsWith('\r\n\r\nok'));
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    await waitFor('the server to close the idle keep-alive connection', () => closed, { timeoutMs: 15_000 });
  });

  it('keeps its connection cap by evicting idle connections, so watches keep streaming and probes still answer', async () => {
    const served = await serve({ connectionLimits: { maxConnections: 8, headersTimeoutMs: 60_000 }, watchLimits: { maxWatches: 3 } });
    const watches = [await watch(served, served.adminKey), await watch(served, served.adminKey), await watch(served, served.adminKey)];
    await waitFor('the initial events of every watch', () => watches.every((open) => open.events.length >= 1));
    const idle: { closed: () => boolean }[] = [];
    for (let index = 0; index < 20; index += 1) idle.push(await rawConnection(served));
    // 3 watches + 20 idle connections on a cap of 8: the oldest idle ones made room.
    await waitFor('the server to close the idle connections over its cap', () => idle.filter((connection) => !connection.closed()).length <= 5);
    expect(await metricValue(served.registry, 'vcsync_apiserver_connections_closed_total', { reason: 'evicted_idle' })).toBeGreaterThanOrEqual(15);
    for (const probe of ['/readyz', '/livez']) expect((await call(served, 'GET', probe, undefined)).status).toBe(200);
    // The watches were busy, not idle: none was evicted, and they still receive changes.
    expect(watches.every((open) => !open.ended)).toBe(true);
    const created = await call(served, 'POST', KEYS, served.adminKey, { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name: 'after-flood' }, spec: { user: 'lee' } });
    expect(created.status).toBe(201);
    await waitFor('the new key on every watch', () => watches.every((open) => open.events.some((event) => event.object?.metadata?.name === 'after-flood')));
  });
});

describe('shared encoding', () => {
  it('serialises each object once per representation however many watch it', async () => {
    const served = await serve();
    for (let index = 0; index < 10; index += 1) {
      const created = await call(served, 'POST', KEYS, served.adminKey, { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name: `k${index}` }, spec: { user: 'kim' } });
      expect(created.status).toBe(201);
    }
    const objects = (await call(served, 'GET', KEYS, served.adminKey)).body.items.length as number;
    const before = await metricValue(served.registry, 'vcsync_apiserver_watch_event_encodings_total', { representation: 'json' });
    const watches: OpenWatch[] = [];
    for (let index = 0; index < 5; index += 1) watches.push(await watch(served, served.adminKey));
    await waitFor('every watch to get every object', () => watches.every((open) => open.events.length >= objects));
    // Five watchers, one serialisation of each object's ADDED line.
    expect((await metricValue(served.registry, 'vcsync_apiserver_watch_event_encodings_total', { representation: 'json' })) - before).toBe(objects);
    expect(await metricValue(served.registry, 'vcsync_apiserver_watch_events_sent_total')).toBeGreaterThanOrEqual(5 * objects);
    // The shared bytes are what each watcher received.
    expect(new Set(watches.map((open) => open.body)).size).toBe(1);
  });
});

describe('backpressure', () => {
  let server: Server | undefined;
  let store: Store | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await store?.close();
  });

  /** Serves a watch of every ConfigMap per request (after `prepare` sees its response); answers the port. */
  async function serveConfigMapWatches(storage: Storage, init: Pick<WatchStreamInit, 'resourceVersion' | 'sendBufferBytes' | 'visible'>, prepare: (response: ServerResponse) => void = () => undefined): Promise<number> {
    const type = new ResourceRegistry(coreKindDefinitions()).byKind('ConfigMap');
    server = createServer((_request, response: ServerResponse) => {
      prepare(response);
      const stream = new WatchStream({
        ...init,
        storage,
        type,
        namespace: undefined,
        labelSelector: parseLabelSelector(undefined),
        fieldSelector: parseFieldSelector(undefined),
        sendInitialEvents: undefined,
        allowBookmarks: false,
        timeoutMs: undefined,
        bookmarkIntervalMs: 60_000,
        response,
        encoding: { representation: 'json', shared: true, encode: (object) => object },
        lines: new WatchEventCache(),
        logger: silentLogger(),
        onEnd: () => undefined,
      });
      stream.start().catch((error: unknown) => response.destroy(error as Error));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  it('writes the initial state only as fast as a watcher reads it', async () => {
    store = await openStore({ watchWindow: 100 });
    const padding = 'x'.repeat(1000);
    for (let index = 0; index < 3000; index += 1) {
      await store.create('core/v1/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${index}`, namespace: 'd' }, data: { padding } });
    }
    let largestBacklog = 0;
    let highWaterMark = 0;
    const port = await serveConfigMapWatches(new ApiStorage(store), { resourceVersion: '', sendBufferBytes: 64 * 1024 * 1024 }, (response) => {
      const write = response.write.bind(response) as (chunk: unknown) => boolean;
      response.write = ((chunk: unknown) => {
        const flowing = write(chunk);
        largestBacklog = Math.max(largestBacklog, response.writableLength);
        highWaterMark = Math.max(highWaterMark, response.socket?.writableHighWaterMark ?? 0);
        return flowing;
      }) as ServerResponse['write'];
    });
    const socket = tcpConnect({ host: '127.0.0.1', port });
    opened.push(socket);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const events = (): number => Buffer.concat(chunks).toString('latin1').split('"type":"ADDED"').length - 1;
    await waitFor('all 3000 objects to arrive', () => events() >= 3000, { intervalMs: 200 });
    // ~3 MB sent, never more than the socket's high-water mark and one line (about 1 KiB) waiting
    // in the process. The mark is Node's default: 16 KiB on Node 20, 64 KiB from Node 22 on.
    expect(highWaterMark).toBeGreaterThan(0);
    expect(largestBacklog).toBeLessThan(highWaterMark + 4 * 1024);
  });

  it('keeps nothing per object for a filtering watch when the storage says what each change replaced', async () => {
    store = await openStore({ watchWindow: 100 });
    const configMap = (name: string, role: string): StoredObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'd', labels: { role } } });
    for (const name of ['a', 'b', 'c']) await store.create('core/v1/configmaps', configMap(name, 'seen'));
    const engine = new ApiStorage(store);
    // What a watch reads of the collection: a watch that remembered every object (about 1 MiB
    // per watcher at 10,000 objects) would list them all before resuming.
    let lists = 0;
    const storage: Storage = {
      eventsCarryPrevious: engine.eventsCarryPrevious,
      get: (ref) => engine.get(ref),
      list: (resource, options) => {
        lists += 1;
        return engine.list(resource, options);
      },
      create: (resource, object) => engine.create(resource, object),
      update: (resource, object, preconditions) => engine.update(resource, object, preconditions),
      delete: (ref, preconditions) => engine.delete(ref, preconditions),
      watch: (filter, resourceVersion, listener) => engine.watch(filter, resourceVersion, listener),
    };
    const port = await serveConfigMapWatches(storage, {
      resourceVersion: String(store.currentRevision()),
      visible: (object) => (object.metadata['labels'] as Record<string, string> | undefined)?.['role'] === 'seen',
      sendBufferBytes: 1024 * 1024,
    });
    const socket = tcpConnect({ host: '127.0.0.1', port });
    opened.push(socket);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor('the watch to start', () => received.startsWith('HTTP/1.1 200'));
    await store.update('core/v1/configmaps', configMap('a', 'hidden'));
    await store.update('core/v1/configmaps', { ...configMap('b', 'seen'), data: { changed: 'yes' } });
    await waitFor('both changes to arrive', () => received.includes('"name":"b"'));
    // The change that hid "a" is its DELETED, carrying the state the watcher last saw.
    expect(received).toMatch(/"type":"DELETED","object":\{[^\n]*"name":"a"[^\n]*"role":"seen"/);
    expect(received).toMatch(/"type":"MODIFIED","object":\{[^\n]*"name":"b"/);
    expect(lists).toBe(0);
  });
});
