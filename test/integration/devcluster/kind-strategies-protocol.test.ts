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
