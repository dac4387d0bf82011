/**
 * The kind strategies of the devcluster, as kube-apiserver v1.36 answers the same requests:
 * generation per kind, immutable ConfigMaps and Secrets, Secret stringData, EndpointSlice and Pod
 * defaults, Service and Endpoints validation. Each expectation was read off the real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture } from './devcluster-fixture.js';

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => {
  await fx.cluster.close();
});

const NS = '/api/v1/namespaces/default';
const SLICES = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
const MERGE = 'application/merge-patch+json';

function post(path: string, body: unknown) {
  return fx.request(path, { method: 'POST', body });
}

function mergePatch(path: string, body: unknown) {
  return fx.request(path, { method: 'PATCH', body, contentType: MERGE });
}

describe('metadata.generation per kind', () => {
  it('is left to the client on kinds whose strategy keeps none (ConfigMap, Service, Endpoints, Secret)', async () => {
    const plain = await post(`${NS}/configmaps`, { metadata: { name: 'gen-plain' }, data: { a: '1' } });
    expect(plain.body.metadata.generation).toBeUndefined();
    const sent = await post(`${NS}/configmaps`, { metadata: { name: 'gen-sent', generation: 5 } });
    expect(sent.body.metadata.generation).toBe(5);
    const updated = await mergePatch(`${NS}/configmaps/gen-sent`, { metadata: { generation: 9, labels: { x: 'y' } }, data: { b: '2' } });
    expect(updated.body.metadata.generation).toBe(5);
    const service = await post(`${NS}/services`, { metadata: { name: 'gen-svc' }, spec: { ports: [{ port: 80 }] } });
    expect(service.body.metadata.generation).toBeUndefined();
    const respec = await mergePatch(`${NS}/services/gen-svc`, { spec: { ports: [{ port: 81 }] } });
    expect(respec.body.metadata.generation).toBeUndefined();
    const secret = await post(`${NS}/secrets`, { metadata: { name: 'gen-secret' } });
    expect(secret.body.metadata.generation).toBeUndefined();
  });

  it('starts a Pod at 1 whatever the client sends, and counts spec changes only', async () => {
    const pod = await post(`${NS}/pods`, { metadata: { name: 'gen-pod', generation: 5 }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    expect(pod.body.metadata.generation).toBe(1);
    expect((await mergePatch(`${NS}/pods/gen-pod`, { metadata: { labels: { a: 'b' } } })).body.metadata.generation).toBe(1);
    expect((await mergePatch(`${NS}/pods/gen-pod`, { spec: { activeDeadlineSeconds: 5 } })).body.metadata.generation).toBe(2);
    expect((await mergePatch(`${NS}/pods/gen-pod/status`, { status: { message: 'hi' } })).body.metadata.generation).toBe(2);
  });

  it('counts EndpointSlice label changes too, not annotation changes', async () => {
    const slice = await post(SLICES, { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'gen-slice', generation: 5 }, addressType: 'IPv4', endpoints: [] });
    expect(slice.body.metadata.generation).toBe(1);
    expect((await mergePatch(`${SLICES}/gen-slice`, { metadata: { labels: { a: 'b' } } })).body.metadata.generation).toBe(2);
    expect((await mergePatch(`${SLICES}/gen-slice`, { endpoints: [{ addresses: ['10.1.1.1'] }] })).body.metadata.generation).toBe(3);
    expect((await mergePatch(`${SLICES}/gen-slice`, { metadata: { annotations: { a: 'b' } } })).body.metadata.generation).toBe(3);
  });
});

describe('immutable ConfigMaps and Secrets', () => {
  it('refuses changes to an immutable ConfigMap data, binaryData and flag, and allows metadata changes', async () => {
    await post(`${NS}/configmaps`, { metadata: { name: 'frozen' }, data: { a: '1' }, binaryData: { b: 'AA==' }, immutable: true });
    const data = await mergePatch(`${NS}/configmaps/frozen`, { data: { a: '2' } });
    expect(data.status).toBe(422);
    expect(data.body).toMatchObject({
      reason: 'Invalid',
      message: 'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set',
      details: { kind: 'ConfigMap', name: 'frozen', causes: [{ reason: 'FieldValueForbidden', field: 'data' }] },
    });
    const all = await mergePatch(`${NS}/configmaps/frozen`, { data: { a: '2' }, binaryData: { b: 'AQ==' }, immutable: false });
    expect(all.body.details.causes.map((cause: { field: string }) => cause.field)).toEqual(['immutable', 'data', 'binaryData']);
    const relabel = await mergePatch(`${NS}/configmaps/frozen`, { metadata: { labels: { a: 'b' } } });
    expect(relabel.status).toBe(200);
    const thaw = await mergePatch(`${NS}/configmaps/frozen`, { immutable: null });
    expect(thaw.body.details.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'immutable', message: 'Forbidden: field is immutable when `immutable` is set' }]);
  });

  it('lets a mutable ConfigMap become immutable in the same write that changes its data', async () => {
    await post(`${NS}/configmaps`, { metadata: { name: 'freezing' }, data: { a: '1' } });
    const frozen = await mergePatch(`${NS}/configmaps/freezing`, { immutable: true, data: { a: '3' } });
    expect(frozen.status).toBe(200);
    expect(frozen.body).toMatchObject({ immutable: true, data: { a: '3' } });
  });

  it('refuses changes to an immutable Secret data (stringData included) and to any Secret type', async () => {
    await post(`${NS}/secrets`, { metadata: { name: 'frozen' }, data: { a: 'MQ==' }, immutable: true });
    const both = await mergePatch(`${NS}/secrets/frozen`, { data: { a: 'Mg==' }, immutable: false });
    expect(both.body.details.causes.map((cause: { field: string }) => cause.field)).toEqual(['immutable', 'data']);
    const viaStringData = await mergePatch(`${NS}/secrets/frozen`, { stringData: { a: '2' } });
    expect(viaStringData.body.details.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'data', message: 'Forbidden: field is immutable when `immutable` is set' }]);
    const retyped = await mergePatch(`${NS}/secrets/frozen`, { type: 'Other' });
    expect(retyped.body.message).toBe('Secret "frozen" is invalid: type: Invalid value: "Other": field is immutable');
  });
});

describe('Secret stringData', () => {
  it('is merged base64-encoded into data (winning over the same key) and never stored', async () => {
    const created = await post(`${NS}/secrets`, { metadata: { name: 'string-data' }, data: { k: 'eA==', j: 'eQ==' }, stringData: { k: 'v' } });
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ j: 'eQ==', k: 'dg==' });
    expect(created.body.stringData).toBeUndefined();
    const patched = await mergePatch(`${NS}/secrets/string-data`, { stringData: { z: 'w' } });
    expect(patched.body.data).toEqual({ j: 'eQ==', k: 'dg==', z: 'dw==' });
    expect(patched.body.stringData).toBeUndefined();
    expect((await fx.request(`${NS}/secrets/string-data`)).body.stringData).toBeUndefined();
  });
});
