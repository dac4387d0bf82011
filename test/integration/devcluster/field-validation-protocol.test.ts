import { describe, expect, it } from 'vitest';
import { useDevclusterFixture } from '../../support/devcluster-fixture.js';

const fx = useDevclusterFixture();

const CM = '/api/v1/namespaces/default/configmaps';
const typo = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, colour: 'red' }, dta: { a: 'b' }, data: { ok: 'yes' } });

async function post(query: string, body: unknown): Promise<Response> {
  return fetch(`${fx.cluster.url}${CM}${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('fieldValidation on writes', () => {
  it('Strict refuses unknown fields with the server\'s message and stores nothing', async () => {
    const response = await post('?fieldValidation=Strict', typo('strict'));
    expect(response.status).toBe(400);
    const status = (await response.json()) as { reason: string; message: string };
    expect(status.reason).toBe('BadRequest');
    expect(status.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.colour", unknown field "dta"');
    expect((await fx.request(`${CM}/strict`)).status).toBe(404);
  });

  it('Warning headers escape what a header cannot carry: unknown field names with DEL and non-Latin-1 characters (hostile-input finding)', async () => {
    const response = await post('', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'odd-fields' }, 'a\u007fb': 1, '\ufffd\u4e2d': 2 });
    // The headers could not be set: the answer was Fastify's own error, not the created object.
    expect(response.status).toBe(201);
    expect(response.headers.get('warning')).toBe('299 - "unknown field \\"a\\u007fb\\"", 299 - "unknown field \\"\\ufffd\\u4e2d\\""');
  });

  it('Warn (the default) drops them and says so in Warning headers', async () => {
    for (const [name, query] of [['warn', '?fieldValidation=Warn'], ['default', '']] as const) {
      const response = await post(query, typo(name));
      expect(response.status).toBe(201);
      expect(response.headers.get('warning')).toBe('299 - "unknown field \\"metadata.colour\\"", 299 - "unknown field \\"dta\\""');
      const stored = (await fx.request(`${CM}/${name}`)).body;
      expect(stored.dta).toBeUndefined();
      expect(stored.metadata.colour).toBeUndefined();
      expect(stored.data).toEqual({ ok: 'yes' });
    }
  });

  it('Ignore drops them silently', async () => {
    const response = await post('?fieldValidation=Ignore', typo('ignore'));
    expect(response.status).toBe(201);
    expect(response.headers.get('warning')).toBeNull();
    expect((await fx.request(`${CM}/ignore`)).body.dta).toBeUndefined();
  });

  it('applies to patches: a merge patch adding an unknown field fails under Strict', async () => {
    const patch = await fetch(`${fx.cluster.url}${CM}/ignore?fieldValidation=Strict`, {
      method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ dta: { x: 'y' } }),
    });
    expect(patch.status).toBe(400);
    expect(((await patch.json()) as { message: string }).message).toContain('unknown field "dta"');
  });

  it('refuses an unknown fieldValidation value as the real server does: 422 Invalid naming the write\'s options', async () => {
    const response = await post('?fieldValidation=Loose', typo('loose'));
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"',
      reason: 'Invalid',
      details: {
        group: 'meta.k8s.io',
        kind: 'CreateOptions',
        causes: [{ reason: 'FieldValueNotSupported', message: 'Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"', field: 'fieldValidation' }],
      },
      code: 422,
    });
    const put = await fetch(`${fx.cluster.url}${CM}/loose?fieldValidation=Loose`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(typo('loose')) });
    expect(((await put.json()) as { details: { kind: string } }).details.kind).toBe('UpdateOptions');
  });
});

const SVC = '/api/v1/namespaces/default/services';
const service = (name: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ name: 'http', port: 80, bogus: 1 }], zzz: { a: 1 } } });

async function send(path: string, body: string | unknown, method = 'POST'): Promise<Response> {
  return fetch(`${fx.cluster.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

describe('unknown fields at every depth, as the real server prunes them against its schemas', () => {
  it('Strict names each unknown field by its path, list items included, in document order', async () => {
    const response = await send(`${SVC}?fieldValidation=Strict`, service('deep-strict'));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe(
      'Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.ports[0].bogus", unknown field "spec.zzz"',
    );
  });

  it('Warn and Ignore drop them from the stored object; Warn says so per field', async () => {
    const warned = await send(`${SVC}?fieldValidation=Warn`, service('deep-warn'));
    expect(warned.status).toBe(201);
    expect(warned.headers.get('warning')).toBe('299 - "unknown field \\"spec.ports[0].bogus\\"", 299 - "unknown field \\"spec.zzz\\""');
    const ignored = await send(`${SVC}?fieldValidation=Ignore`, service('deep-ignore'));
    expect(ignored.headers.get('warning')).toBeNull();
    for (const name of ['deep-warn', 'deep-ignore']) {
      const stored = (await fx.request(`${SVC}/${name}`)).body;
      expect(stored.spec.zzz).toBeUndefined();
      expect(stored.spec.ports[0].bogus).toBeUndefined();
      expect(stored.spec.ports[0]).toMatchObject({ name: 'http', port: 80 });
    }
  });
});

describe('duplicate JSON fields', () => {
  const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup-a","name":"dup-b"},"data":{"k":"1","k":"2"}}';

  it('Strict refuses them with their paths', async () => {
    const response = await send(`${CM}?fieldValidation=Strict`, body);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name", duplicate field "data.k"',
    );
  });

  it('Warn lists them among the unknown fields in document order, as the real server does', async () => {
    const mixed = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup-m","zz":1,"name":"dup-n"},"data":{"a":"1","a":"2"}}';
    const warned = await send(`${CM}?fieldValidation=Warn`, mixed);
    expect(warned.headers.get('warning')).toBe('299 - "unknown field \\"metadata.zz\\"", 299 - "duplicate field \\"metadata.name\\"", 299 - "duplicate field \\"data.a\\""');
  });

  it('Warn keeps the last value and warns per field; Ignore keeps the last value silently', async () => {
    const warned = await send(`${CM}?fieldValidation=Warn`, body);
    expect(warned.status).toBe(201);
    expect(warned.headers.get('warning')).toBe('299 - "duplicate field \\"metadata.name\\"", 299 - "duplicate field \\"data.k\\""');
    expect(((await warned.json()) as { data: unknown }).data).toEqual({ k: '2' });
    const ignored = await send(`${CM}?fieldValidation=Ignore`, body.replace('"dup-b"', '"dup-c"'));
    expect(ignored.status).toBe(201);
    expect(ignored.headers.get('warning')).toBeNull();
  });
});

describe('empty lists and maps, as the real server stores them', () => {
  it('drops empty and null optional maps and lists at every depth, keeps false and zero values', async () => {
    const created = await send(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'empties', labels: {}, annotations: null, finalizers: [], ownerReferences: [] }, data: {}, binaryData: {}, immutable: false });
    expect(created.status).toBe(201);
    const stored = (await fx.request(`${CM}/empties`)).body;
    expect(stored.metadata.labels).toBeUndefined();
    expect(stored.metadata.annotations).toBeUndefined();
    expect(stored.metadata.finalizers).toBeUndefined();
    expect(stored.metadata.ownerReferences).toBeUndefined();
    expect(stored.data).toBeUndefined();
    expect(stored.binaryData).toBeUndefined();
    expect(stored.immutable).toBe(false);
    const endpoints = await send('/api/v1/namespaces/default/endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'empties' }, subsets: [{ addresses: [{ ip: '10.1.1.1' }], notReadyAddresses: [], ports: [{ port: 80 }] }] });
    expect(((await endpoints.json()) as { subsets: Record<string, unknown>[] }).subsets[0]).not.toHaveProperty('notReadyAddresses');
  });
});
