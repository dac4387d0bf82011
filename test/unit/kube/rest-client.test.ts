import { getEventListeners } from 'node:events';
import http from 'node:http';
import type https from 'node:https';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, isConflict, isNotFound, isTooManyRequests } from '../../../src/apimachinery/index.js';
import { KubeErrorCode, TransportError } from '../../../src/kube/kube-errors.js';
import { FakeClock } from '../../../src/kube/fake-clock.js';
import { loadClusterConfig, type ClusterConfig } from '../../../src/kube/kube-config.js';
import { KubeMetrics } from '../../../src/kube/metrics.js';
import { RestClient, type RestClientOptions } from '../../../src/kube/rest-client.js';
import { waitFor } from '../../support/wait-for.js';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Responder = (req: Seen, res: http.ServerResponse) => void;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(respond: Responder): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(entry);
      respond(entry, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function kubeconfig(server: string, user = 'admin'): object {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster: { server } }],
    users: [{ name: user, user: { token: 'secret-token' } }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user, namespace: 'team' } }],
    'current-context': 'ctx',
  };
}

function client(server: string, options: Partial<RestClientOptions> = {}): RestClient {
  const rest = new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: kubeconfig(server) }, { name: 'virtual' }), ...options });
  cleanups.push(() => rest.close());
  return rest;
}

function json(res: http.ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

describe('loadClusterConfig', () => {
  it('applies the token, keeps the namespace and accepts plain http', async () => {
    const a = loadClusterConfig({ kind: 'object', config: kubeconfig('http://127.0.0.1:1/') }, { name: 'virtual' });
    const b = loadClusterConfig({ kind: 'yaml', yaml: JSON.stringify(kubeconfig('https://10.0.0.1')) }, { name: 'host' });
    const options: https.RequestOptions = {};
    await a.applyToHTTPSOptions(options);
    expect(options.headers).toEqual({ Authorization: 'Bearer secret-token' });
    expect(options.rejectUnauthorized).toBe(false);
    expect(b.server).toBe('https://10.0.0.1');
    expect(a.server).toBe('http://127.0.0.1:1');
    expect(a.namespace).toBe('team');
  });

  it('fails with a config error naming the cluster when there is no usable context', () => {
    expect(() => loadClusterConfig({ kind: 'yaml', yaml: 'apiVersion: v1\nkind: Config\n' }, { name: 'host' })).toThrow(
      expect.objectContaining({ code: KubeErrorCode.config, message: expect.stringContaining('host') }),
    );
    const saved = process.env['KUBERNETES_SERVICE_HOST'];
    delete process.env['KUBERNETES_SERVICE_HOST'];
    try {
      expect(() => loadClusterConfig({ kind: 'inCluster' }, { name: 'host' })).toThrow(expect.objectContaining({ code: KubeErrorCode.config }));
    } finally {
      if (saved !== undefined) process.env['KUBERNETES_SERVICE_HOST'] = saved;
    }
  });
});

describe('RestClient', () => {
  it('sends the bearer token and JSON, and parses JSON answers', async () => {
    const { url, seen } = await serve((req, res) => json(res, req.method === 'POST' ? 201 : 200, { kind: 'ConfigMap', metadata: { name: 'x' } }));
    const rest = client(url);
    const created = await rest.create('/api/v1/namespaces/a/configmaps', { metadata: { name: 'x' } }, { query: { dryRun: 'All' } });
    expect(created).toEqual({ kind: 'ConfigMap', metadata: { name: 'x' } });
    expect(seen[0]?.headers['authorization']).toBe('Bearer secret-token');
    expect(seen[0]?.headers['content-type']).toBe('application/json');
    expect(seen[0]?.url).toBe('/api/v1/namespaces/a/configmaps?dryRun=All');
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ metadata: { name: 'x' } });
  });

  it('sends paths under the server URL\'s own path, as URL parsing would (encoded, dot segments resolved, no fragment)', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, {}));
    const rest = client(`${url}/prefix`);
    await rest.get('/api/v1/namespaces/team/endpoints/web');
    await rest.list('/api/v1/endpoints', { labelSelector: 'a=b,c in (d)' });
    await rest.get('/api/v1/a b/../c#fragment');
    expect(seen.map((s) => s.url)).toEqual([
      '/prefix/api/v1/namespaces/team/endpoints/web',
      '/prefix/api/v1/endpoints?labelSelector=a%3Db%2Cc+in+%28d%29',
      '/prefix/api/v1/c',
    ]);
  });

  it('uses the content type of each patch flavour', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, {}));
    const rest = client(url);
    await rest.patch('/p', 'json', [{ op: 'add', path: '/a', value: 1 }]);
    await rest.patch('/p', 'merge', { a: 1 });
    await rest.patch('/p', 'strategic', { a: 1 });
    expect(seen.map((s) => s.headers['content-type'])).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
  });

  it('passes list selectors and paging, and turns null items into an empty list', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, { kind: 'List', metadata: { resourceVersion: '3' }, items: null }));
    const list = await client(url).list('/api/v1/endpoints', { labelSelector: 'a=b', fieldSelector: 'metadata.name=x', limit: 10, continue: 'tok' });
    expect(list.items).toEqual([]);
    const query = new URL(seen[0]?.url ?? '', 'http://x').searchParams;
    expect(Object.fromEntries(query)).toEqual({ labelSelector: 'a=b', fieldSelector: 'metadata.name=x', limit: '10', continue: 'tok' });
  });

  it('rejects non-2xx answers with the Status the server sent, or one derived from the code', async () => {
    const { url } = await serve((req, res) => {
      if (req.url === '/missing') json(res, 404, { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message: 'nope', details: { name: 'm' } });
      else if (req.url === '/conflict') json(res, 409, { kind: 'Status', reason: 'Conflict', code: 409 });
      else {
        res.writeHead(429, { 'Content-Type': 'text/plain' });
        res.end('slow down');
      }
    });
    const rest = client(url);
    const missing = await rest.get('/missing').catch((err: unknown) => err);
    expect(missing).toBeInstanceOf(ApiError);
    expect(isNotFound(missing)).toBe(true);
    expect((missing as ApiError).status.details?.name).toBe('m');
    expect(isConflict(await rest.update('/conflict', {}).catch((err: unknown) => err))).toBe(true);
    const throttled = await rest.get('/throttled').catch((err: unknown) => err);
    expect(isTooManyRequests(throttled)).toBe(true);
    expect((throttled as ApiError).status.message).toBe('slow down');
  });

  it('reports a refused connection as a transport error and counts it', async () => {
    const { url } = await serve((_req, res) => json(res, 200, {}));
    const port = new URL(url).port;
    await cleanups.pop()?.();
    const registry = new Registry();
    const rest = client(`http://127.0.0.1:${port}`, { metrics: new KubeMetrics(registry) });
    const err = await rest.get('/x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).syscallCode).toBe('ECONNREFUSED');
    const requests = (await registry.getMetricsAsJSON()).find((m) => m.name === 'vcsync_rest_client_requests_total');
    expect(requests?.values).toEqual([expect.objectContaining({ labels: { cluster: 'virtual', verb: 'GET', code: 'error' }, value: 1 })]);
  });

  it('aborts a call with the caller signal', async () => {
    const { url } = await serve(() => {
      // Never answers: the client must give up on its own.
    });
    const controller = new AbortController();
    const pending = client(url).get('/slow', { signal: controller.signal });
    controller.abort(new Error('caller gave up'));
    await expect(pending).rejects.toThrow('caller gave up');
  });

  it('aborts every call in flight that shares a signal, before or during the body, and keeps one listener on it', async () => {
    let answered = 0;
    const { url, seen } = await serve((req, res) => {
      if (req.url === '/fast') return json(res, 200, { ok: true });
      if (req.url === '/partial') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"kind":');
        answered += 1;
      }
      // '/silent': never answers.
    });
    const rest = client(url, { qps: Infinity });
    const controller = new AbortController();
    const { signal } = controller;
    // Finished calls leave nothing behind on the signal but the one listener all calls share.
    for (let i = 0; i < 20; i += 1) await expect(rest.get('/fast', { signal })).resolves.toEqual({ ok: true });
    expect(getEventListeners(signal, 'abort').length).toBeLessThanOrEqual(1);
    const pending = [rest.get('/silent', { signal }), rest.get('/partial', { signal }), rest.create('/silent', { a: 1 }, { signal })].map((call) => call.catch((e: unknown) => e));
    await waitFor('the three calls reached the server', () => seen.length === 23 && answered === 1);
    const reason = new Error('term ended');
    controller.abort(reason);
    expect(await Promise.all(pending)).toEqual([reason, reason, reason]);
    // A call started after the abort rejects at once with the same reason.
    await expect(rest.get('/fast', { signal })).rejects.toBe(reason);
    // The client goes on working for calls with another (or no) signal.
    await expect(rest.get('/fast', { signal: new AbortController().signal })).resolves.toEqual({ ok: true });
    await expect(rest.get('/fast')).resolves.toEqual({ ok: true });
  });

  it('gives up on a server that does not answer within the request timeout', async () => {
    const { url } = await serve(() => {
      // Never answers.
    });
    const err = await client(url, { requestTimeoutMs: 200 }).get('/slow').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).message).toContain('no answer within 200 ms');
  });

  it('gives up on a server that sends the headers and part of the body, then nothing', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"kind":');
    });
    const err = await client(url, { requestTimeoutMs: 200 }).get('/half').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).message).toContain('GET /half: no answer within 200 ms');
  });

  it('gives up on a server that keeps trickling bytes past the request timeout (a deadline, not an idle timeout)', async () => {
    const timers: NodeJS.Timeout[] = [];
    cleanups.push(() => timers.forEach((timer) => clearInterval(timer)));
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('[');
      // A byte every 20 ms, never ending: the socket is never idle for the 200 ms limit.
      timers.push(setInterval(() => res.write(' '), 20));
    });
    const err = await client(url, { requestTimeoutMs: 200 }).get('/trickle').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).message).toContain('GET /trickle: no answer within 200 ms');
  });

  it('waits on the token bucket before sending', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, {}));
    const clock = new FakeClock();
    const rest = client(url, { qps: 1, burst: 1, clock });
    await rest.get('/one');
    let second = false;
    const pending = rest.get('/two').then(() => (second = true));
    // Held by the bucket: its wait is the only timer on the clock, and time stands still.
    await waitFor('the second request waiting for a token', () => clock.pendingTimers() === 1);
    expect(seen).toHaveLength(1);
    expect(second).toBe(false);
    clock.advance(1000);
    await pending;
    expect(seen.map((s) => s.url)).toEqual(['/one', '/two']);
  });

  it('streams watch events split across arbitrary chunks and ends with the response', async () => {
    const lines =
      JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', resourceVersion: '1' } } }) +
      '\n' +
      JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '2' } } }) +
      '\n' +
      JSON.stringify({ type: 'DELETED', object: { metadata: { name: 'a', resourceVersion: '3' } } }) +
      '\n';
    const { url, seen } = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const write = (from: number): void => {
        if (from >= lines.length) {
          res.end();
          return;
        }
        res.write(lines.slice(from, from + 37));
        setImmediate(() => write(from + 37));
      };
      write(0);
    });
    const stream = await client(url).watch('/api/v1/configmaps', { resourceVersion: '0', timeoutSeconds: 5 });
    const events: string[] = [];
    for await (const event of stream) {
      if (event.type !== 'ERROR') events.push(`${event.type}:${event.object.metadata?.resourceVersion}`);
    }
    expect(events).toEqual(['ADDED:1', 'BOOKMARK:2', 'DELETED:3']);
    const query = Object.fromEntries(new URL(seen[0]?.url ?? '', 'http://x').searchParams);
    expect(query).toEqual({ watch: 'true', resourceVersion: '0', timeoutSeconds: '5', allowWatchBookmarks: 'true' });
  });

  it('reports an unparsable watch line as a bad response, not a lost connection', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n<html>proxy error</html>\n');
    });
    const stream = await client(url).watch('/api/v1/configmaps');
    const types: string[] = [];
    const err = await (async () => {
      for await (const event of stream) types.push(event.type);
    })().catch((e: unknown) => e);
    expect(types).toEqual(['ADDED']);
    expect(err).toMatchObject({ code: KubeErrorCode.badResponse });
  });

  it('rejects a watch the server refuses with 410 as an ApiError', async () => {
    const { url } = await serve((_req, res) => json(res, 410, { kind: 'Status', reason: 'Expired', code: 410 }));
    const err = await client(url).watch('/api/v1/configmaps', { resourceVersion: '1' }).catch((e: unknown) => e);
    expect((err as ApiError).status.reason).toBe('Expired');
  });

  it('ends a watch iteration when closed', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a' } } }) + '\n');
    });
    const stream = await client(url).watch('/api/v1/configmaps');
    const seenTypes: string[] = [];
    const consumed = (async () => {
      try {
        for await (const event of stream) {
          seenTypes.push(event.type);
        }
      } catch {
        // A closed stream may end or throw; either way iteration must stop.
      }
    })();
    await waitFor('the first event', () => seenTypes.length === 1);
    stream.close();
    await consumed;
    expect(seenTypes).toEqual(['ADDED']);
  });
});

describe('RestClient credentials', () => {
  it('applies the kubeconfig (auth headers, CA/cert files) once a minute, not on every request', async () => {
    const { url, seen } = await serve((_req, res) => json(res, 200, { kind: 'Namespace' }));
    const loaded = loadClusterConfig({ kind: 'object', config: kubeconfig(url) }, { name: 'host' });
    let applied = 0;
    const cluster: ClusterConfig = {
      ...loaded,
      applyToHTTPSOptions: async (options) => {
        applied += 1;
        return loaded.applyToHTTPSOptions(options);
      },
    };
    const clock = new FakeClock();
    const rest = new RestClient({ cluster, clock, qps: Infinity });
    cleanups.push(() => rest.close());

    for (let i = 0; i < 3; i += 1) await rest.get('/api/v1/namespaces/a');
    expect(applied).toBe(1);
    clock.advance(60_000);
    await rest.get('/api/v1/namespaces/a');
    expect(applied).toBe(2);
    expect(seen.map((s) => s.headers.authorization)).toEqual(Array(4).fill('Bearer secret-token'));
  });
});
