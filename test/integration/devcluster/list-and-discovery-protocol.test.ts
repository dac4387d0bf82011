import { beforeAll, describe, expect, it } from 'vitest';
import { readWireFields, type WireField } from '../../../src/apiserver/protobuf-wire-reader.js';
import { endpoints, useDevclusterFixture } from '../../support/devcluster-fixture.js';

const fx = useDevclusterFixture();
beforeAll(async () => {
  await fx.request('/api/v1/namespaces', { method: 'POST', body: { metadata: { name: 'other' } } });
  const objects: [string, string, Record<string, string>][] = [
    ['default', 'a', { app: 'web', tier: 'fe' }],
    ['default', 'b', { app: 'web', tier: 'be' }],
    ['default', 'c', { app: 'db' }],
    ['other', 'd', { app: 'web' }],
    ['other', 'e', {}],
  ];
  for (const [namespace, name, labels] of objects) {
    const created = await fx.request(`/api/v1/namespaces/${namespace}/endpoints`, { method: 'POST', body: endpoints(name, ['10.0.0.1'], { labels }) });
    expect(created.status).toBe(201);
  }
});

function names(body: { items: { metadata: { name: string } }[] }): string[] {
  return body.items.map((item) => item.metadata.name).filter((name) => name !== 'kubernetes');
}

describe('list', () => {
  it('lists one namespace or all, with kind and resourceVersion', async () => {
    const one = await fx.request('/api/v1/namespaces/default/endpoints');
    expect(one.body.kind).toBe('EndpointsList');
    expect(one.body.apiVersion).toBe('v1');
    expect(one.body.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(names(one.body)).toEqual(['a', 'b', 'c']);
    const all = await fx.request('/api/v1/endpoints');
    expect(names(all.body)).toEqual(['a', 'b', 'c', 'd', 'e']);
    const zero = await fx.request('/api/v1/endpoints?resourceVersion=0&resourceVersionMatch=NotOlderThan');
    expect(names(zero.body)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it.each([
    ['app=web', ['a', 'b', 'd']],
    ['app==web', ['a', 'b', 'd']],
    ['app!=web', ['c', 'e']],
    ['app in (web,db)', ['a', 'b', 'c', 'd']],
    ['app notin (web)', ['c', 'e']],
    ['tier', ['a', 'b']],
    ['!tier', ['c', 'd', 'e']],
    ['app=web,tier=fe', ['a']],
  ])('label selector %s', async (selector, expected) => {
    const response = await fx.request(`/api/v1/endpoints?labelSelector=${encodeURIComponent(selector)}`);
    expect(response.status).toBe(200);
    expect(names(response.body)).toEqual(expected);
  });

  it('answers 400 for bad label selector syntax', async () => {
    for (const selector of ['app in web', 'app=(x', 'a b', '=x']) {
      const response = await fx.request(`/api/v1/endpoints?labelSelector=${encodeURIComponent(selector)}`);
      expect(response.status, selector).toBe(400);
      expect(response.body.reason).toBe('BadRequest');
    }
  });

  it('applies field selectors on metadata.name and metadata.namespace', async () => {
    const byName = await fx.request(`/api/v1/endpoints?fieldSelector=${encodeURIComponent('metadata.name=d')}`);
    expect(names(byName.body)).toEqual(['d']);
    const notDefault = await fx.request(`/api/v1/endpoints?fieldSelector=${encodeURIComponent('metadata.namespace!=default')}`);
    expect(names(notDefault.body)).toEqual(['d', 'e']);
    const doubled = await fx.request(`/api/v1/endpoints?fieldSelector=${encodeURIComponent('metadata.namespace==other,metadata.name=e')}`);
    expect(names(doubled.body)).toEqual(['e']);
    const unsupported = await fx.request(`/api/v1/endpoints?fieldSelector=${encodeURIComponent('spec.nodeName=x')}`);
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.message).toContain('field label not supported');
  });

  it('selects events by involved object, as kubectl describe does', async () => {
    const event = (name: string, involved: string) => ({
      metadata: { name },
      involvedObject: { kind: 'Endpoints', namespace: 'default', name: involved, apiVersion: 'v1' },
      reason: 'SyncError',
      type: 'Warning',
      source: { component: 'vcsync' },
    });
    expect((await fx.request('/api/v1/namespaces/default/events', { method: 'POST', body: event('ev1', 'a') })).status).toBe(201);
    expect((await fx.request('/api/v1/namespaces/default/events', { method: 'POST', body: event('ev2', 'b') })).status).toBe(201);
    const selector = encodeURIComponent('involvedObject.name=a,involvedObject.kind=Endpoints,source=vcsync,type=Warning');
    const selected = await fx.request(`/api/v1/namespaces/default/events?fieldSelector=${selector}`);
    expect(names(selected.body)).toEqual(['ev1']);
    const notOnEndpoints = await fx.request(`/api/v1/endpoints?fieldSelector=${encodeURIComponent('involvedObject.name=a')}`);
    expect(notOnEndpoints.status).toBe(400);
  });

  it('pages with limit and continue as a consistent snapshot', async () => {
    const first = await fx.request('/api/v1/endpoints?limit=2');
    expect(first.body.items).toHaveLength(2);
    const token = first.body.metadata.continue;
    expect(typeof token).toBe('string');
    // A write between pages must not show up in later pages.
    await fx.request('/api/v1/namespaces/other/endpoints', { method: 'POST', body: endpoints('f', ['10.0.0.1']) });
    const seen = [...first.body.items];
    let next: string | undefined = token;
    while (next !== undefined) {
      const page = await fx.request(`/api/v1/endpoints?limit=2&continue=${encodeURIComponent(next)}`);
      expect(page.status).toBe(200);
      expect(page.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
      seen.push(...page.body.items);
      next = page.body.metadata.continue;
    }
    expect(names({ items: seen })).toEqual(['a', 'b', 'c', 'd', 'e']);
    const reused = await fx.request(`/api/v1/endpoints?limit=2&continue=${encodeURIComponent(token)}`);
    expect(reused.status).toBe(200);
    await fx.request('/api/v1/namespaces/other/endpoints/f', { method: 'DELETE' });
  });

  it('answers 410 for an unknown continue token and 400 for a malformed one', async () => {
    const forged = Buffer.from(JSON.stringify({ id: 'gone', rv: 1, start: 1 })).toString('base64url');
    const expired = await fx.request(`/api/v1/endpoints?limit=1&continue=${forged}`);
    expect(expired.status).toBe(410);
    expect(expired.body).toMatchObject({ reason: 'Expired', code: 410 });
    const malformed = await fx.request('/api/v1/endpoints?limit=1&continue=%25%25%25');
    expect(malformed.status).toBe(400);
  });

  it('serves a meta.k8s.io/v1 Table when asked', async () => {
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const table = await fx.request('/api/v1/namespaces/default/endpoints?labelSelector=app%3Dweb', { accept });
    expect(table.body.kind).toBe('Table');
    expect(table.body.apiVersion).toBe('meta.k8s.io/v1');
    expect(table.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Endpoints', 'Age']);
    expect(table.body.rows[0].cells[0]).toBe('a');
    expect(table.body.rows[0].cells[1]).toBe('10.0.0.1:80');
    expect(table.body.rows[0].cells[2]).toMatch(/^\d+s$/);
    expect(table.body.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { name: 'a' } });
    const single = await fx.request('/api/v1/namespaces/default/endpoints/a?includeObject=Object', { accept });
    expect(single.body.rows[0].object.kind).toBe('Endpoints');
    const plain = await fx.request('/api/v1/namespaces/default/endpoints/a');
    expect(plain.body.kind).toBe('Endpoints');
  });
});

describe('discovery', () => {
  it('serves /version, /healthz and /readyz', async () => {
    const version = await fx.request('/version');
    expect(version.body).toMatchObject({ major: '1', minor: '32' });
    expect((await fx.request('/healthz')).text).toBe('ok');
    expect((await fx.request('/readyz')).status).toBe(200);
  });

  it('serves legacy discovery documents', async () => {
    expect((await fx.request('/api')).body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const apis = await fx.request('/apis');
    expect(apis.body.kind).toBe('APIGroupList');
    expect(apis.body.groups.map((g: { name: string }) => g.name)).toEqual(['coordination.k8s.io', 'discovery.k8s.io', 'certificates.k8s.io', 'apps', 'rbac.authorization.k8s.io']);
    const group = await fx.request('/apis/coordination.k8s.io');
    expect(group.body).toMatchObject({ kind: 'APIGroup', preferredVersion: { groupVersion: 'coordination.k8s.io/v1' } });
    const core = await fx.request('/api/v1');
    expect(core.body.kind).toBe('APIResourceList');
    const resources = core.body.resources.map((r: { name: string }) => r.name);
    expect(resources).toEqual(expect.arrayContaining(['namespaces', 'services', 'services/status', 'endpoints', 'pods', 'secrets', 'configmaps', 'events', 'serviceaccounts']));
    const ep = core.body.resources.find((r: { name: string }) => r.name === 'endpoints');
    expect(ep).toMatchObject({ kind: 'Endpoints', namespaced: true, shortNames: ['ep'], singularName: 'endpoints' });
    const leases = await fx.request('/apis/coordination.k8s.io/v1');
    expect(leases.body.resources[0]).toMatchObject({ name: 'leases', kind: 'Lease' });
    expect((await fx.request('/apis/nope.example.com')).status).toBe(404);
    expect((await fx.request('/apis/discovery.k8s.io/v9')).status).toBe(404);
  });

  it('serves aggregated discovery when asked, as kubectl 1.32 does', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
    const api = await fx.request('/api', { accept });
    expect(api.contentType).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    expect(api.body.kind).toBe('APIGroupDiscoveryList');
    const services = api.body.items[0].versions[0].resources.find((r: { resource: string }) => r.resource === 'services');
    expect(services).toMatchObject({ scope: 'Namespaced', responseKind: { group: '', version: 'v1', kind: 'Service' }, subresources: [{ subresource: 'status' }] });
    const apis = await fx.request('/apis', { accept });
    expect(apis.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['coordination.k8s.io', 'discovery.k8s.io', 'certificates.k8s.io', 'apps', 'rbac.authorization.k8s.io']);
  });

  it('serves OpenAPI v3 with GVK extensions and fieldValidation on writes', async () => {
    const index = await fx.request('/openapi/v3');
    const entry = index.body.paths['api/v1'];
    expect(entry.serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]+$/);
    const doc = await fx.request(entry.serverRelativeURL);
    expect(doc.body.openapi).toBe('3.0.0');
    const item = doc.body.paths['/api/v1/namespaces/{namespace}/endpoints/{name}'];
    expect(item.patch['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'Endpoints' });
    expect(item.patch.parameters.map((p: { name: string }) => p.name)).toContain('fieldValidation');
    expect(doc.body.components.schemas['io.k8s.api.core.v1.Endpoints']['x-kubernetes-group-version-kind']).toEqual([{ group: '', kind: 'Endpoints', version: 'v1' }]);
    const slices = await fx.request('/openapi/v3/apis/discovery.k8s.io/v1');
    expect(slices.body.components.schemas['io.k8s.api.discovery.v1.EndpointSlice']).toBeDefined();
    expect((await fx.request('/openapi/v3/apis/nope/v1')).status).toBe(404);
  });

  it('serves the real server\'s schemas in /openapi/v3, and as Swagger 2.0 in /openapi/v2', async () => {
    const v3 = await fx.request('/openapi/v3/api/v1');
    const configMap = v3.body.components.schemas['io.k8s.api.core.v1.ConfigMap'];
    expect(configMap.properties.data.description).toMatch(/^Data contains the configuration data\./);
    expect(v3.body.components.schemas['io.k8s.api.core.v1.ServicePort'].required).toEqual(['port']);
    const v2 = await fx.request('/openapi/v2');
    expect(v2.status).toBe(200);
    expect(v2.body.swagger).toBe('2.0');
    const definitions = v2.body.definitions;
    expect(Object.keys(definitions['io.k8s.api.core.v1.ConfigMap'].properties).sort()).toEqual(['apiVersion', 'binaryData', 'data', 'immutable', 'kind', 'metadata']);
    expect(definitions['io.k8s.api.core.v1.ConfigMap'].properties.metadata).toEqual({ $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', description: expect.any(String) });
    expect(definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toMatchObject({ type: 'string', format: 'int-or-string' });
    expect(definitions['io.k8s.api.discovery.v1.EndpointSlice']).toBeDefined();
    expect(JSON.stringify(v2.body)).not.toContain('#/components/');
    const create = v2.body.paths['/api/v1/namespaces/{namespace}/configmaps'].post;
    expect(create.parameters).toContainEqual({ name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' } });
    expect(create.responses['201'].schema).toEqual({ $ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' });
    // client-go asks for protobuf only (gnostic's openapi.v2.Document): swagger (1), definitions (9).
    const protobuf = await fetch(`${fx.cluster.url}/openapi/v2`, { headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' } });
    expect(protobuf.status).toBe(200);
    // Answered in the spelling Go's mime package parses, as the real server answers.
    expect(protobuf.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const document = readWireFields(Buffer.from(await protobuf.arrayBuffer()));
    const bytesOf = (fields: WireField[], number: number): Buffer => {
      const field = fields.find((candidate) => candidate.number === number);
      if (field?.wireType !== 2) throw new Error(`no length-delimited field ${number}`);
      return field.value;
    };
    expect(bytesOf(document, 1).toString()).toBe('2.0');
    const names = readWireFields(bytesOf(document, 9)).map((named) => bytesOf(readWireFields(named.value as Buffer), 1).toString());
    expect(names.sort()).toEqual(Object.keys(definitions).sort());
  });
});
