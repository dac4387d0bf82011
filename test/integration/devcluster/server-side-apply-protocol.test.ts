import { describe, expect, it } from 'vitest';
import { useDevclusterFixture } from '../../support/devcluster-fixture.js';

const fx = useDevclusterFixture();

const CM = '/api/v1/namespaces/default/configmaps';
const APPLY = 'application/apply-patch+yaml';

function cm(name: string, data: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

function apply(name: string, query: string, body: unknown) {
  return fx.request(`${CM}/${name}?${query}`, { method: 'PATCH', body, contentType: APPLY });
}

const owners = (object: { metadata: { managedFields?: { manager: string; operation: string; fieldsV1: unknown }[] } }): unknown =>
  object.metadata.managedFields?.map((entry) => [entry.manager, entry.operation, entry.fieldsV1]);

describe('managedFields on every write', () => {
  it('records the fieldManager, else the User-Agent, on create, update and patch', async () => {
    const created = await fx.request(`${CM}?fieldManager=creator`, { method: 'POST', body: cm('mf', { a: '1', b: '2' }) });
    expect(created.status).toBe(201);
    expect(owners(created.body)).toEqual([['creator', 'Update', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } }]]);
    expect(created.body.metadata.managedFields[0]).toMatchObject({ apiVersion: 'v1', fieldsType: 'FieldsV1', time: expect.stringMatching(/Z$/) });

    const patched = await fx.request(`${CM}/mf`, { method: 'PATCH', body: { data: { a: '5' } }, contentType: 'application/merge-patch+json', headers: { 'user-agent': 'kubectl-edit/v1.36.3 (linux/amd64)' } });
    expect(owners(patched.body)).toEqual([
      ['creator', 'Update', { 'f:data': { '.': {}, 'f:b': {} } }],
      ['kubectl-edit', 'Update', { 'f:data': { 'f:a': {} } }],
    ]);

    const put = await fx.request(`${CM}/mf?fieldManager=other`, { method: 'PUT', body: cm('mf', { a: '5' }) });
    expect(owners(put.body)).toEqual([
      ['creator', 'Update', { 'f:data': {} }],
      ['kubectl-edit', 'Update', { 'f:data': { 'f:a': {} } }],
    ]);

    const reset = await fx.request(`${CM}/mf`, { method: 'PATCH', body: { metadata: { managedFields: [{}] } }, contentType: 'application/merge-patch+json' });
    expect(reset.body.metadata.managedFields).toBeUndefined();
  });

  it('refuses a fieldManager over 128 bytes with 422 about CreateOptions', async () => {
    const refused = await fx.request(`${CM}?fieldManager=${'x'.repeat(129)}`, { method: 'POST', body: cm('long', { a: '1' }) });
    expect(refused.status).toBe(422);
    expect(refused.body.details).toMatchObject({ group: 'meta.k8s.io', kind: 'CreateOptions', causes: [{ reason: 'FieldValueTooLong', field: 'fieldManager' }] });
  });

  it('gives a Service creator its defaults but not the allocated cluster IP and IP families, as the real server', async () => {
    const body = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'owned' }, spec: { selector: { app: 'x' }, ports: [{ name: 'http', port: 80 }] } };
    const created = await fx.request('/api/v1/namespaces/default/services?fieldManager=creator', { method: 'POST', body });
    expect(created.status).toBe(201);
    expect(created.body.spec).toMatchObject({ clusterIP: expect.any(String), ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' });
    const spec = Object.keys(created.body.metadata.managedFields[0].fieldsV1['f:spec']).sort();
    expect(spec).toEqual(['f:internalTrafficPolicy', 'f:ports', 'f:selector', 'f:sessionAffinity', 'f:type']);
  });
});

describe('server-side apply', () => {
  it('creates (201), then updates (200); YAML bodies work', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sa\ndata:\n  a: "1"\n';
    const created = await fx.request(`${CM}/sa?fieldManager=one`, { method: 'PATCH', rawBody: yaml, contentType: APPLY });
    expect(created.status).toBe(201);
    expect(owners(created.body)).toEqual([['one', 'Apply', { 'f:data': { 'f:a': {} } }]]);
    const updated = await apply('sa', 'fieldManager=one', cm('sa', { a: '1', b: '2' }));
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({ a: '1', b: '2' });
  });

  it('requires a fieldManager (422) and refuses force on other patch types (422)', async () => {
    const missing = await apply('nofm', '', cm('nofm', { a: '1' }));
    expect(missing.status).toBe(422);
    expect(missing.body.details).toEqual({ group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }] });
    const forced = await fx.request(`${CM}/sa?fieldManager=x&force=true`, { method: 'PATCH', body: { data: { c: '1' } }, contentType: 'application/merge-patch+json' });
    expect(forced.status).toBe(422);
    expect(forced.body.details.causes[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'force' });
  });

  it('answers 409 with the conflicting fields and managers; force=true takes them over', async () => {
    await apply('conf', 'fieldManager=one', cm('conf', { a: '1', b: '1' }));
    const conflict = await apply('conf', 'fieldManager=two', cm('conf', { a: '2', b: '2' }));
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ reason: 'Conflict', message: 'Apply failed with 2 conflicts: conflicts with "one":\n- .data.a\n- .data.b' });
    expect(conflict.body.details.causes.map((cause: { field: string }) => cause.field)).toEqual(['.data.a', '.data.b']);
    const forced = await apply('conf', 'fieldManager=two&force=true', cm('conf', { a: '2' }));
    expect(forced.status).toBe(200);
    expect(forced.body.data).toEqual({ a: '2', b: '1' });
    expect(owners(forced.body)).toEqual([
      ['one', 'Apply', { 'f:data': { 'f:b': {} } }],
      ['two', 'Apply', { 'f:data': { 'f:a': {} } }],
    ]);
  });

  it('removes a field its manager stops applying', async () => {
    await apply('drop', 'fieldManager=one', cm('drop', { a: '1', b: '2' }));
    const dropped = await apply('drop', 'fieldManager=one', cm('drop', { a: '1' }));
    expect(dropped.body.data).toEqual({ a: '1' });
  });

  it('stores nothing on dryRun, and refuses a body naming another object (400)', async () => {
    const dry = await apply('dry', 'fieldManager=one&dryRun=All', cm('dry', { a: '1' }));
    expect(dry.status).toBe(201);
    expect(dry.body.metadata.managedFields).toHaveLength(1);
    expect((await fx.request(`${CM}/dry`)).status).toBe(404);
    const other = await apply('named', 'fieldManager=one', cm('other', { a: '1' }));
    expect(other.status).toBe(400);
    expect(other.body.message).toBe('the name of the object (other) does not match the name on the URL (named)');
  });

  it('merges Service ports by port and protocol', async () => {
    const SVC = '/api/v1/namespaces/default/services';
    const body = (ports: unknown[]): unknown => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports } });
    await fx.request(`${SVC}/web?fieldManager=one`, { method: 'PATCH', body: body([{ name: 'http', port: 80 }]), contentType: APPLY });
    const second = await fx.request(`${SVC}/web?fieldManager=two`, { method: 'PATCH', body: body([{ name: 'dns', port: 53, protocol: 'UDP' }]), contentType: APPLY });
    expect(second.status).toBe(200);
    expect(second.body.spec.ports.map((port: { name: string }) => port.name)).toEqual(['http', 'dns']);
    expect(Object.keys(second.body.metadata.managedFields[1].fieldsV1['f:spec']['f:ports'])).toEqual(['k:{"port":53,"protocol":"UDP"}']);
  });
});
