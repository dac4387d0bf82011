import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture } from './devcluster-fixture.js';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => {
  await fx.cluster.close();
});

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
    expect(status.message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "dta", unknown field "metadata.colour"');
    expect((await fx.request(`${CM}/strict`)).status).toBe(404);
  });

  it('Warn (the default) drops them and says so in Warning headers', async () => {
    for (const [name, query] of [['warn', '?fieldValidation=Warn'], ['default', '']] as const) {
      const response = await post(query, typo(name));
      expect(response.status).toBe(201);
      expect(response.headers.get('warning')).toBe('299 - "unknown field \\"dta\\"", 299 - "unknown field \\"metadata.colour\\""');
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

  it('rejects an unknown fieldValidation value', async () => {
    const response = await post('?fieldValidation=Loose', typo('loose'));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toBe('invalid fieldValidation: "Loose": must be one of Ignore, Warn, Strict');
  });
});
