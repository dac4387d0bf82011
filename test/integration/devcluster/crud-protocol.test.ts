import { describe, expect, it } from 'vitest';
import { endpoints, useDevclusterFixture } from '../../support/devcluster-fixture.js';

const fx = useDevclusterFixture();

const EP = '/api/v1/namespaces/default/endpoints';

describe('create and get', () => {
  it('creates with server-owned metadata and reads it back', async () => {
    const created = await fx.request(EP, { method: 'POST', body: endpoints('web', ['10.0.0.1']) });
    expect(created.status).toBe(201);
    const meta = created.body.metadata;
    expect(meta.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta.resourceVersion).toMatch(/^\d+$/);
    // The Endpoints strategy keeps no generation (nor does the real one).
    expect(meta.generation).toBeUndefined();
    expect(meta.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(meta.namespace).toBe('default');
    expect(created.body.subsets[0].ports[0].protocol).toBe('TCP');
    const got = await fx.request(`${EP}/web`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
  });

  it('answers 409 AlreadyExists for a taken name', async () => {
    await fx.request(EP, { method: 'POST', body: endpoints('dup', ['10.0.0.1']) });
    const again = await fx.request(EP, { method: 'POST', body: endpoints('dup', ['10.0.0.1']) });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'AlreadyExists', code: 409, message: 'endpoints "dup" already exists' });
    expect(again.body.details).toEqual({ name: 'dup', kind: 'endpoints' });
  });

  it('generates names from generateName, truncating long prefixes', async () => {
    const short = await fx.request(EP, { method: 'POST', body: { ...endpoints('', ['10.0.0.1']), metadata: { generateName: 'gen-' } } });
    expect(short.status).toBe(201);
    expect(short.body.metadata.name).toMatch(/^gen-[a-z0-9]{5}$/);
    const prefix = `${'a'.repeat(70)}-`;
    const long = await fx.request(EP, { method: 'POST', body: { ...endpoints('', ['10.0.0.1']), metadata: { generateName: prefix } } });
    expect(long.status).toBe(201);
    expect(long.body.metadata.name).toHaveLength(63);
    expect(long.body.metadata.name.startsWith('a'.repeat(58))).toBe(true);
  });

  it('answers 404 for a missing object and for a missing namespace', async () => {
    const missing = await fx.request(`${EP}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ reason: 'NotFound', code: 404, message: 'endpoints "nope" not found', details: { name: 'nope', kind: 'endpoints' } });
    const noNamespace = await fx.request('/api/v1/namespaces/ghost/endpoints', { method: 'POST', body: endpoints('x', ['10.0.0.1']) });
    expect(noNamespace.status).toBe(404);
    expect(noNamespace.body.message).toBe('namespaces "ghost" not found');
  });

  it('has the initial namespaces and the kubernetes service', async () => {
    const namespaces = await fx.request('/api/v1/namespaces');
    const names = namespaces.body.items.map((item: { metadata: { name: string } }) => item.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['default', 'kube-system', 'kube-public']));
    const service = await fx.request('/api/v1/namespaces/default/services/kubernetes');
    expect(service.body.spec.clusterIP).toBe('10.96.0.1');
  });

  it('accepts YAML bodies', async () => {
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: "1"\n';
    const created = await fx.request('/api/v1/namespaces/default/configmaps', { method: 'POST', rawBody: yaml, contentType: 'application/yaml' });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ a: '1' });
  });

  it('stores nothing on dryRun=All', async () => {
    const dry = await fx.request(`${EP}?dryRun=All`, { method: 'POST', body: endpoints('dry', ['10.0.0.1']) });
    expect(dry.status).toBe(201);
    expect(dry.body.metadata.name).toBe('dry');
    expect((await fx.request(`${EP}/dry`)).status).toBe(404);
    const bad = await fx.request(`${EP}?dryRun=Some`, { method: 'POST', body: endpoints('dry', ['10.0.0.1']) });
    expect(bad.status).toBe(400);
  });
});

describe('validation', () => {
  it('rejects invalid names with 422 and a FieldValueInvalid cause', async () => {
    const response = await fx.request(EP, { method: 'POST', body: endpoints('Bad_Name', ['10.0.0.1']) });
    expect(response.status).toBe(422);
    expect(response.body.reason).toBe('Invalid');
    expect(response.body.details.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'metadata.name' });
    expect(response.body.message).toContain('Endpoints "Bad_Name" is invalid');
  });

  it('rejects bad label keys and values, and annotations over 256 KiB', async () => {
    const labels = await fx.request(EP, { method: 'POST', body: endpoints('lbl', ['10.0.0.1'], { labels: { 'bad key': 'x', ok: 'not ok!' } }) });
    expect(labels.status).toBe(422);
    expect(labels.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['metadata.labels', 'metadata.labels']);
    const big = await fx.request(EP, { method: 'POST', body: endpoints('big', ['10.0.0.1'], { annotations: { a: 'x'.repeat(256 * 1024) } }) });
    expect(big.status).toBe(422);
    expect(big.body.details.causes[0]).toMatchObject({ reason: 'FieldValueTooLong', field: 'metadata.annotations' });
  });

  it('validates Endpoints addresses and ports', async () => {
    const body = { ...endpoints('badep', []), subsets: [{ addresses: [{ ip: 'not-an-ip' }], ports: [{ port: 70000 }] }] };
    const response = await fx.request(EP, { method: 'POST', body });
    expect(response.status).toBe(422);
    const fields = response.body.details.causes.map((c: { field: string }) => c.field);
    // Twice, as on the real server: not an IP, and not an IP an endpoint may have.
    expect(fields).toEqual(['subsets[0].addresses[0].ip', 'subsets[0].addresses[0].ip', 'subsets[0].ports[0].port']);
  });

  it('rejects more than one controller owner reference', async () => {
    const owner = (uid: string) => ({ apiVersion: 'v1', kind: 'Service', name: `s${uid}`, uid, controller: true });
    const response = await fx.request(EP, { method: 'POST', body: endpoints('owned', ['10.0.0.1'], { ownerReferences: [owner('1'), owner('2')] }) });
    expect(response.status).toBe(422);
    expect(response.body.details.causes[0].field).toBe('metadata.ownerReferences');
    const one = await fx.request(EP, { method: 'POST', body: endpoints('owned', ['10.0.0.1'], { ownerReferences: [owner('1'), { ...owner('2'), controller: false }] }) });
    expect(one.status).toBe(201);
    expect(one.body.metadata.ownerReferences).toEqual([owner('1'), { ...owner('2'), controller: false }]);
  });

  it('answers 400 when kind, apiVersion, name or namespace do not match the URL', async () => {
    expect((await fx.request(EP, { method: 'POST', body: { ...endpoints('k', ['10.0.0.1']), kind: 'Service' } })).status).toBe(400);
    expect((await fx.request(EP, { method: 'POST', body: { ...endpoints('k', ['10.0.0.1']), apiVersion: 'v2' } })).status).toBe(400);
    const ns = await fx.request(EP, { method: 'POST', body: endpoints('k', ['10.0.0.1'], { namespace: 'kube-system' }) });
    expect(ns.status).toBe(400);
    expect(ns.body.reason).toBe('BadRequest');
    await fx.request(EP, { method: 'POST', body: endpoints('named', ['10.0.0.1']) });
    const name = await fx.request(`${EP}/named`, { method: 'PUT', body: endpoints('other', ['10.0.0.1']) });
    expect(name.status).toBe(400);
  });

  it('defaults Services and allocates a cluster IP from 10.96.0.0/12', async () => {
    const response = await fx.request('/api/v1/namespaces/default/services', { method: 'POST', body: { metadata: { name: 'svc1' }, spec: { ports: [{ port: 80 }] } } });
    expect(response.status).toBe(201);
    const spec = response.body.spec;
    expect(spec.type).toBe('ClusterIP');
    expect(spec.ports[0]).toEqual({ port: 80, protocol: 'TCP', targetPort: 80 });
    const [a, b] = spec.clusterIP.split('.').map(Number);
    expect(a).toBe(10);
    expect(b).toBeGreaterThanOrEqual(96);
    expect(b).toBeLessThanOrEqual(111);
    const headless = await fx.request('/api/v1/namespaces/default/services', { method: 'POST', body: { metadata: { name: 'svc2' }, spec: { clusterIP: 'None', ports: [{ port: 80 }] } } });
    expect(headless.body.spec.clusterIP).toBe('None');
    const taken = await fx.request('/api/v1/namespaces/default/services', { method: 'POST', body: { metadata: { name: 'svc3' }, spec: { clusterIP: spec.clusterIP, ports: [{ port: 80 }] } } });
    expect(taken.status).toBe(422);
  });
});

describe('update', () => {
  it('bumps a Pod generation only for changes outside metadata and status, and keeps uid and creationTimestamp', async () => {
    const PODS = '/api/v1/namespaces/default/pods';
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'gen' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    const created = (await fx.request(PODS, { method: 'POST', body: pod })).body;
    expect(created.metadata.generation).toBe(1);
    const relabel = await fx.request(`${PODS}/gen`, { method: 'PUT', body: { ...created, metadata: { ...created.metadata, labels: { a: 'b' }, uid: undefined, creationTimestamp: '2000-01-01T00:00:00Z' } } });
    expect(relabel.status).toBe(200);
    expect(relabel.body.metadata.generation).toBe(1);
    expect(relabel.body.metadata.uid).toBe(created.metadata.uid);
    expect(relabel.body.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);
    expect(Number(relabel.body.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    const respec = await fx.request(`${PODS}/gen`, { method: 'PUT', body: { ...relabel.body, spec: { ...relabel.body.spec, activeDeadlineSeconds: 5 } } });
    expect(respec.body.metadata.generation).toBe(2);
  });

  it('answers 409 Conflict for a stale resourceVersion and updates unconditionally without one', async () => {
    const created = (await fx.request(EP, { method: 'POST', body: endpoints('occ', ['10.0.0.1']) })).body;
    const first = await fx.request(`${EP}/occ`, { method: 'PUT', body: { ...created, subsets: endpoints('occ', ['10.0.0.2']).subsets } });
    expect(first.status).toBe(200);
    const stale = await fx.request(`${EP}/occ`, { method: 'PUT', body: { ...created, subsets: endpoints('occ', ['10.0.0.3']).subsets } });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    expect(stale.body.message).toBe('Operation cannot be fulfilled on endpoints "occ": the object has been modified; please apply your changes to the latest version and try again');
    const metadata = { ...created.metadata, resourceVersion: undefined };
    const unconditional = await fx.request(`${EP}/occ`, { method: 'PUT', body: { ...created, metadata, subsets: endpoints('occ', ['10.0.0.4']).subsets } });
    expect(unconditional.status).toBe(200);
    expect(unconditional.body.subsets[0].addresses[0].ip).toBe('10.0.0.4');
  });

  it('does not write a no-op update', async () => {
    const created = (await fx.request(EP, { method: 'POST', body: endpoints('noop', ['10.0.0.1']) })).body;
    const same = await fx.request(`${EP}/noop`, { method: 'PUT', body: created });
    expect(same.body.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('creates on PUT for Endpoints but not for ConfigMaps', async () => {
    const created = await fx.request(`${EP}/put-created`, { method: 'PUT', body: endpoints('put-created', ['10.0.0.1']) });
    expect(created.status).toBe(201);
    const cm = await fx.request('/api/v1/namespaces/default/configmaps/absent', { method: 'PUT', body: { metadata: { name: 'absent' } } });
    expect(cm.status).toBe(404);
  });

  it('updates status only through the status subresource', async () => {
    const created = (await fx.request('/api/v1/namespaces/default/services', { method: 'POST', body: { metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } } })).body;
    const ingress = { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } };
    const viaMain = await fx.request('/api/v1/namespaces/default/services/lb', { method: 'PUT', body: { ...created, status: ingress } });
    expect(viaMain.body.status).toEqual({ loadBalancer: {} });
    const viaStatus = await fx.request('/api/v1/namespaces/default/services/lb/status', { method: 'PUT', body: { ...viaMain.body, spec: { ...viaMain.body.spec, type: 'NodePort' }, status: ingress } });
    expect(viaStatus.status).toBe(200);
    expect(viaStatus.body.status).toEqual(ingress);
    expect(viaStatus.body.spec.type).toBe('LoadBalancer');
  });
});

describe('delete', () => {
  it('deletes and answers a Success Status (or the object for Services)', async () => {
    await fx.request(EP, { method: 'POST', body: endpoints('gone', ['10.0.0.1']) });
    const deleted = await fx.request(`${EP}/gone`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'gone', kind: 'endpoints' } });
    expect((await fx.request(`${EP}/gone`)).status).toBe(404);
    expect((await fx.request(`${EP}/gone`, { method: 'DELETE' })).status).toBe(404);
    await fx.request('/api/v1/namespaces/default/services', { method: 'POST', body: { metadata: { name: 'delsvc' }, spec: { ports: [{ port: 80 }] } } });
    const service = await fx.request('/api/v1/namespaces/default/services/delsvc', { method: 'DELETE', body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } });
    expect(service.body.kind).toBe('Service');
  });

  it('honours DeleteOptions preconditions and dryRun', async () => {
    const created = (await fx.request(EP, { method: 'POST', body: endpoints('pre', ['10.0.0.1']) })).body;
    const wrong = await fx.request(`${EP}/pre`, { method: 'DELETE', body: { preconditions: { uid: 'other' } } });
    expect(wrong.status).toBe(409);
    const dry = await fx.request(`${EP}/pre?dryRun=All&gracePeriodSeconds=0`, { method: 'DELETE' });
    expect(dry.status).toBe(200);
    expect((await fx.request(`${EP}/pre`)).status).toBe(200);
    const right = await fx.request(`${EP}/pre`, { method: 'DELETE', body: { preconditions: { uid: created.metadata.uid } } });
    expect(right.status).toBe(200);
  });

  it('keeps an object with finalizers until they are removed', async () => {
    await fx.request(EP, { method: 'POST', body: endpoints('fin', ['10.0.0.1'], { finalizers: ['example.com/hold'] }) });
    const marked = await fx.request(`${EP}/fin`, { method: 'DELETE' });
    expect(marked.status).toBe(200);
    expect(marked.body.metadata.deletionTimestamp).toBeDefined();
    expect(marked.body.metadata.deletionGracePeriodSeconds).toBe(0);
    const still = await fx.request(`${EP}/fin`);
    expect(still.status).toBe(200);
    const added = await fx.request(`${EP}/fin`, { method: 'PUT', body: { ...still.body, metadata: { ...still.body.metadata, finalizers: ['example.com/hold', 'example.com/more'] } } });
    expect(added.status).toBe(422);
    const released = await fx.request(`${EP}/fin`, { method: 'PUT', body: { ...still.body, metadata: { ...still.body.metadata, finalizers: [] } } });
    expect(released.status).toBe(200);
    expect((await fx.request(`${EP}/fin`)).status).toBe(404);
  });

  it('deletes a collection by label selector', async () => {
    for (const name of ['c1', 'c2', 'c3']) await fx.request(EP, { method: 'POST', body: endpoints(name, ['10.0.0.1'], { labels: { batch: name === 'c3' ? 'keep' : 'drop' } }) });
    const deleted = await fx.request(`${EP}?labelSelector=batch%3Ddrop`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(deleted.body.kind).toBe('EndpointsList');
    expect(deleted.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['c1', 'c2']);
    expect((await fx.request(`${EP}/c3`)).status).toBe(200);
  });
});

describe('protocol errors', () => {
  it('answers 400 for malformed JSON and YAML', async () => {
    const json = await fx.request(EP, { method: 'POST', rawBody: '{"metadata": ', contentType: 'application/json' });
    expect(json.status).toBe(400);
    expect(json.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    const yaml = await fx.request(EP, { method: 'POST', rawBody: 'metadata: [unclosed', contentType: 'application/yaml' });
    expect(yaml.status).toBe(400);
  });

  it('answers 413 for bodies over 3 MiB', async () => {
    const response = await fx.request('/api/v1/namespaces/default/configmaps', { method: 'POST', body: { metadata: { name: 'huge' }, data: { a: 'x'.repeat(3 * 1024 * 1024 + 10) } } });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
  });

  it('answers 415 for unsupported body media types', async () => {
    await fx.request(EP, { method: 'POST', body: endpoints('media', ['10.0.0.1']) });
    const patchAsJson = await fx.request(`${EP}/media`, { method: 'PATCH', body: { metadata: { labels: { a: 'b' } } }, contentType: 'application/json' });
    expect(patchAsJson.status).toBe(415);
    expect(patchAsJson.body.reason).toBe('UnsupportedMediaType');
    const unknown = await fx.request(EP, { method: 'POST', rawBody: 'x', contentType: 'text/plain' });
    expect(unknown.status).toBe(415);
  });

  it('answers 406 for protobuf-only Accept', async () => {
    const response = await fx.request(`${EP}/media`, { accept: 'application/vnd.kubernetes.protobuf' });
    expect(response.status).toBe(406);
    expect(response.body).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
  });

  it('answers 404 for unknown paths and resources, 405 for unsupported methods', async () => {
    const unknown = await fx.request('/nothing/here');
    expect(unknown.status).toBe(404);
    expect(unknown.body.kind).toBe('Status');
    expect((await fx.request('/api/v1/namespaces/default/widgets')).status).toBe(404);
    const post = await fx.request(`${EP}/media`, { method: 'POST', body: endpoints('media', ['10.0.0.1']) });
    expect(post.status).toBe(405);
    expect(post.body.reason).toBe('MethodNotAllowed');
    expect((await fx.request('/api/v1/namespaces', { method: 'DELETE' })).status).toBe(405);
  });
});
