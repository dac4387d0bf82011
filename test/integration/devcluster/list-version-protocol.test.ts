import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { useDevclusterFixture } from '../../support/devcluster-fixture.js';

/** What the real kube-apiserver answers about list options and list versions (checked by the conformance suite). */
const fx = useDevclusterFixture({ watchWindow: 8 });

let namespaces = 0;
/** A fresh namespace per test, so the tests do not see each other's objects. */
async function namespace(): Promise<string> {
  const name = `lv-${(namespaces += 1)}`;
  expect((await fx.request('/api/v1/namespaces', { method: 'POST', body: { metadata: { name } } })).status).toBe(201);
  return name;
}

async function createConfigMap(ns: string, name: string, labels: Record<string, string> = {}, data: Record<string, string> = { a: '1' }): Promise<string> {
  const response = await fx.request(`/api/v1/namespaces/${ns}/configmaps`, { method: 'POST', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data } });
  expect(response.status).toBe(201);
  return response.body.metadata.resourceVersion;
}

function itemNames(body: { items: { metadata: { name: string } }[] }): string[] {
  return body.items.map((item) => item.metadata.name);
}

describe('list items', () => {
  it('carry no apiVersion and kind in JSON and YAML lists, as on the real server; single objects and metadata lists keep them', async () => {
    const ns = await namespace();
    await createConfigMap(ns, 'a');
    const json = await fx.request(`/api/v1/namespaces/${ns}/configmaps`);
    expect(json.body).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect(json.body.items).toHaveLength(1);
    expect(json.body.items[0]).not.toHaveProperty('kind');
    expect(json.body.items[0]).not.toHaveProperty('apiVersion');
    expect(json.body.items[0]).toMatchObject({ metadata: { name: 'a' }, data: { a: '1' } });
    const yaml = await fx.request(`/api/v1/namespaces/${ns}/configmaps`, { accept: 'application/yaml' });
    const fromYaml = parseYaml(yaml.text) as { items: Record<string, unknown>[] };
    expect(fromYaml.items[0]).not.toHaveProperty('kind');
    const one = await fx.request(`/api/v1/namespaces/${ns}/configmaps/a`);
    expect(one.body).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
    const partial = await fx.request(`/api/v1/namespaces/${ns}/configmaps`, { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io' });
    expect(partial.body.items[0]).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
  });

  it('count remainingItemCount only for an unfiltered list', async () => {
    const ns = await namespace();
    for (const name of ['a', 'b', 'c']) await createConfigMap(ns, name, { conf: 'yes' });
    const plain = await fx.request(`/api/v1/namespaces/${ns}/configmaps?limit=2`);
    expect(plain.body.metadata.remainingItemCount).toBe(1);
    expect(plain.body.metadata.continue).toEqual(expect.any(String));
    for (const selector of ['labelSelector=conf%3Dyes', 'fieldSelector=metadata.namespace%3D' + ns]) {
      const filtered = await fx.request(`/api/v1/namespaces/${ns}/configmaps?limit=2&${selector}`);
      expect(itemNames(filtered.body), selector).toEqual(['a', 'b']);
      expect(filtered.body.metadata.continue, selector).toEqual(expect.any(String));
      expect(filtered.body.metadata, selector).not.toHaveProperty('remainingItemCount');
    }
  });
});

describe('list options', () => {
  it.each([
    ['resourceVersionMatch=NotOlderThan', [{ field: 'resourceVersionMatch', reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided' }]],
    ['resourceVersion=0&resourceVersionMatch=Exact', [{ field: 'resourceVersionMatch', reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"' }]],
    ['resourceVersion=1&resourceVersionMatch=Newest', [{ field: 'resourceVersionMatch', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""' }]],
    ['sendInitialEvents=true', [{ field: 'sendInitialEvents', reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for list' }]],
    ['sendInitialEvents=false', [{ field: 'sendInitialEvents', reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for list' }]],
  ])('refuses %s with 422 Invalid ListOptions', async (query, causes) => {
    const response = await fx.request(`/api/v1/namespaces/default/configmaps?${query}`);
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason: 'Invalid',
      code: 422,
      message: `ListOptions.meta.k8s.io "" is invalid: ${causes.map((cause) => `${cause.field}: ${cause.message}`).join('')}`,
      details: { group: 'meta.k8s.io', kind: 'ListOptions', causes },
    });
  });

  it('refuses resourceVersionMatch with a continue token', async () => {
    const response = await fx.request('/api/v1/namespaces/default/configmaps?resourceVersion=0&resourceVersionMatch=NotOlderThan&continue=abc');
    expect(response.status).toBe(422);
    expect(response.body.details.causes).toEqual([{ field: 'resourceVersionMatch', reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden when continue is provided' }]);
  });
});

describe('resourceVersionMatch=Exact', () => {
  it('lists the collection as it was at that resourceVersion, objects in their state of then', async () => {
    const ns = await namespace();
    const first = await createConfigMap(ns, 'a', { conf: 'yes' });
    await createConfigMap(ns, 'b', { conf: 'yes' });
    expect((await fx.request(`/api/v1/namespaces/${ns}/configmaps/a`, { method: 'PATCH', contentType: 'application/merge-patch+json', body: { data: { a: '2' } } })).status).toBe(200);
    expect((await fx.request(`/api/v1/namespaces/${ns}/configmaps/a`, { method: 'DELETE' })).status).toBe(200);
    const past = await fx.request(`/api/v1/namespaces/${ns}/configmaps?resourceVersion=${first}&resourceVersionMatch=Exact`);
    expect(past.status).toBe(200);
    expect(past.body.metadata.resourceVersion).toBe(first);
    expect(past.body.items).toEqual([expect.objectContaining({ metadata: expect.objectContaining({ name: 'a', resourceVersion: first }), data: { a: '1' } })]);
    const now = await fx.request(`/api/v1/namespaces/${ns}/configmaps?resourceVersion=${first}&resourceVersionMatch=NotOlderThan`);
    expect(itemNames(now.body)).toEqual(['b']);
    // A limit with a resourceVersion and no match is an exact read too (the real server's legacy rule), page by page.
    const page = await fx.request(`/api/v1/namespaces/${ns}/configmaps?resourceVersion=${first}&limit=5`);
    expect(itemNames(page.body)).toEqual(['a']);
    expect(page.body.metadata.resourceVersion).toBe(first);
  });

  it('answers 410 Expired for a resourceVersion older than what the server keeps', async () => {
    const ns = await namespace();
    const first = await createConfigMap(ns, 'old');
    for (let index = 0; index < 10; index += 1) await createConfigMap(ns, `later-${index}`);
    const response = await fx.request(`/api/v1/namespaces/${ns}/configmaps?resourceVersion=${first}&resourceVersionMatch=Exact`);
    expect(response.status).toBe(410);
    expect(response.body).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410, message: 'The resourceVersion for the provided list is too old.' });
  });
});
