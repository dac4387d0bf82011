import { describe, expect, it } from 'vitest';
import { useDevclusterFixture } from '../../support/devcluster-fixture.js';
import { entry, envelope, msg, newObjectMeta, str, varint } from './protobuf-test-encoder.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const CM = '/api/v1/namespaces/default/configmaps';

interface Answer {
  status: number;
  contentType: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test assertions read arbitrary JSON
}

function configMap(name: string, data: Record<string, string>, ...meta: Buffer[]): Buffer {
  return envelope('v1', 'ConfigMap', Buffer.concat([newObjectMeta(name, ...meta), ...Object.entries(data).map(([key, value]) => entry(2, key, value))]));
}

describe('protobuf request bodies (what kubectl generators send)', () => {
  const fx = useDevclusterFixture();

  async function send(method: string, path: string, body: Buffer, contentType = PROTOBUF): Promise<Answer> {
    const response = await fetch(`${fx.cluster.url}${path}`, { method, headers: { 'content-type': contentType, accept: `${PROTOBUF},application/json` }, body });
    return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: await response.json() };
  }


  it('creates from a protobuf POST and answers JSON, as for a JSON body', async () => {
    const created = await send('POST', `${CM}?fieldManager=kubectl-create&fieldValidation=Strict`, configMap('pb-one', { a: 'b' }, entry(11, 'app', 'web')));
    expect(created.status).toBe(201);
    expect(created.contentType).toMatch(/^application\/json/);
    expect(created.body).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb-one', namespace: 'default', labels: { app: 'web' } }, data: { a: 'b' } });
    expect(created.body.metadata.uid).toEqual(expect.any(String));
    const read = await fx.request(`${CM}/pb-one`);
    expect(read.body.data).toStrictEqual({ a: 'b' });
  });

  it('updates from a protobuf PUT', async () => {
    const current = await fx.request(`${CM}/pb-one`);
    const updated = await send('PUT', `${CM}/pb-one`, configMap('pb-one', { a: 'c' }, str(6, current.body.metadata.resourceVersion)));
    expect(updated.status).toBe(200);
    expect(updated.body.data).toStrictEqual({ a: 'c' });
    const stale = await send('PUT', `${CM}/pb-one`, configMap('pb-one', { a: 'd' }, str(6, current.body.metadata.resourceVersion)));
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ kind: 'Status', reason: 'Conflict' });
  });

  it('validates and defaults a decoded object like a JSON one', async () => {
    const invalid = await send('POST', CM, configMap('Not_A_Name', {}));
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ kind: 'Status', reason: 'Invalid' });
    const service = await send(
      'POST',
      '/api/v1/namespaces/default/services',
      envelope('v1', 'Service', Buffer.concat([newObjectMeta('pb-svc'), msg(2, msg(1, str(1, 'http'), str(2, 'TCP'), varint(3, 80), msg(4, varint(1, 0), varint(2, 8080))), str(4, 'ClusterIP'))])),
    );
    expect(service.status).toBe(201);
    expect(service.body.spec).toMatchObject({ type: 'ClusterIP', sessionAffinity: 'None', ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }] });
    expect(service.body.spec.clusterIP).toMatch(/^10\.(9[6-9]|10\d|11\d)\./);
  });

  it('honours dryRun for a protobuf create', async () => {
    const dry = await send('POST', `${CM}?dryRun=All`, configMap('pb-dry', {}));
    expect(dry.status).toBe(201);
    expect((await fx.request(`${CM}/pb-dry`)).status).toBe(404);
  });

  it('refuses a kind the body decoder does not know with 415 naming it', async () => {
    const answer = await send('POST', '/api/v1/namespaces/default/pods', envelope('v1', 'Pod', newObjectMeta('web')));
    expect(answer.status).toBe(415);
    expect(answer.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'UnsupportedMediaType', code: 415 });
    expect(answer.body.message).toMatch(/cannot decode a Pod \(v1\).*JSON or YAML/);
  });

  it('refuses a field it cannot decode with 415, never a partial object', async () => {
    const answer = await send('POST', CM, configMap('pb-partial', { a: 'b' }, str(15, 'east')));
    expect(answer.status).toBe(415);
    expect(answer.body.message).toMatch(/field 15 of ObjectMeta/);
    expect((await fx.request(`${CM}/pb-partial`)).status).toBe(404);
  });

  it('answers 400 for malformed protobuf and 404 first for resources it does not serve', async () => {
    const malformed = await send('POST', CM, Buffer.from('k8s\0\x0a\x7f', 'latin1'));
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
    const unserved = await send('POST', '/apis/apps/v1/namespaces/default/deployments', envelope('apps/v1', 'Deployment', newObjectMeta('web')));
    expect(unserved.status).toBe(404);
  });

  it('refuses protobuf PATCH and DELETE bodies with 415', async () => {
    const patch = await send('PATCH', `${CM}/pb-one`, configMap('pb-one', { a: 'e' }));
    expect(patch.status).toBe(415);
    expect(patch.body.reason).toBe('UnsupportedMediaType');
    const remove = await send('DELETE', `${CM}/pb-one`, Buffer.from('k8s\0', 'latin1'));
    expect(remove.status).toBe(415);
    expect((await fx.request(`${CM}/pb-one`)).body.data).toStrictEqual({ a: 'c' });
  });
});
