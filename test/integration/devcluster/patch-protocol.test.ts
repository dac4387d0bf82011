import { describe, expect, it } from 'vitest';
import { endpoints, useDevclusterFixture } from '../../support/devcluster-fixture.js';

const fx = useDevclusterFixture();

const EP = '/api/v1/namespaces/default/endpoints';
const PODS = '/api/v1/namespaces/default/pods';

function patch(path: string, type: string, body: unknown) {
  return fx.request(path, { method: 'PATCH', body, contentType: `application/${type}` });
}

describe('PATCH', () => {
  it('applies JSON patches and answers 422 when one cannot apply', async () => {
    await fx.request(EP, { method: 'POST', body: endpoints('jp', ['10.0.0.1'], { labels: { a: '1' } }) });
    const ok = await patch(`${EP}/jp`, 'json-patch+json', [
      { op: 'test', path: '/metadata/labels/a', value: '1' },
      { op: 'replace', path: '/subsets/0/addresses/0/ip', value: '10.0.0.9' },
      { op: 'add', path: '/metadata/labels/b', value: '2' },
    ]);
    expect(ok.status).toBe(200);
    expect(ok.body.subsets[0].addresses[0].ip).toBe('10.0.0.9');
    expect(ok.body.metadata.labels).toEqual({ a: '1', b: '2' });
    expect(ok.body.metadata.generation).toBeUndefined();
    const failed = await patch(`${EP}/jp`, 'json-patch+json', [{ op: 'test', path: '/metadata/labels/a', value: 'nope' }]);
    expect(failed.status).toBe(422);
    const malformed = await patch(`${EP}/jp`, 'json-patch+json', { op: 'add' });
    expect(malformed.status).toBe(400);
  });

  it('applies merge patches (null deletes, lists replace)', async () => {
    await fx.request(EP, { method: 'POST', body: endpoints('mp', ['10.0.0.1', '10.0.0.2'], { labels: { a: '1', b: '2' } }) });
    const patched = await patch(`${EP}/mp`, 'merge-patch+json', { metadata: { labels: { a: null, c: '3' } }, subsets: [{ addresses: [{ ip: '10.1.1.1' }], ports: [{ port: 81 }] }] });
    expect(patched.status).toBe(200);
    expect(patched.body.metadata.labels).toEqual({ b: '2', c: '3' });
    expect(patched.body.subsets).toEqual([{ addresses: [{ ip: '10.1.1.1' }], ports: [{ port: 81, protocol: 'TCP' }] }]);
  });

  it('applies strategic merge patches with merge keys and directives', async () => {
    const pod = {
      metadata: { name: 'smp', finalizers: ['example.com/a'] },
      spec: { containers: [{ name: 'a', image: 'nginx', env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }], ports: [{ containerPort: 80 }] }, { name: 'b', image: 'busybox' }] },
    };
    expect((await fx.request(PODS, { method: 'POST', body: pod })).status).toBe(201);
    const merged = await patch(`${PODS}/smp`, 'strategic-merge-patch+json', {
      metadata: { finalizers: ['example.com/b'] },
      spec: { containers: [{ name: 'a', env: [{ name: 'Y', value: '3' }, { name: 'Z', value: '4' }] }, { name: 'c', image: 'alpine' }] },
    });
    expect(merged.status).toBe(200);
    // The real server's order: what the patch names first (new items included), then the rest.
    expect(merged.body.metadata.finalizers).toEqual(['example.com/b', 'example.com/a']);
    const containers = merged.body.spec.containers;
    expect(containers.map((c: { name: string }) => c.name)).toEqual(['a', 'c', 'b']);
    expect(containers[0].env).toEqual([{ name: 'X', value: '1' }, { name: 'Y', value: '3' }, { name: 'Z', value: '4' }]);
    expect(containers[0].image).toBe('nginx');
    const deleted = await patch(`${PODS}/smp`, 'strategic-merge-patch+json', {
      metadata: { $deleteFromPrimitiveList: undefined, '$deleteFromPrimitiveList/finalizers': ['example.com/a'] },
      spec: { containers: [{ name: 'b', $patch: 'delete' }, { name: 'a', env: [{ name: 'X', $patch: 'delete' }] }] },
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body.metadata.finalizers).toEqual(['example.com/b']);
    expect(deleted.body.spec.containers.map((c: { name: string }) => c.name)).toEqual(['a', 'c']);
    expect(deleted.body.spec.containers[0].env.map((e: { name: string }) => e.name)).toEqual(['Y', 'Z']);
    const replaced = await patch(`${PODS}/smp`, 'strategic-merge-patch+json', { spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'x' }] } });
    // The replaced list is the patch's alone (plus the Pod defaults of each container).
    expect(replaced.body.spec.containers).toHaveLength(1);
    expect(replaced.body.spec.containers[0]).toMatchObject({ name: 'only', image: 'x' });
    expect(replaced.body.spec.containers[0].env).toBeUndefined();
    const reordered = await patch(`${PODS}/smp`, 'strategic-merge-patch+json', {
      spec: { '$setElementOrder/containers': [{ name: 'z' }, { name: 'only' }], containers: [{ name: 'z', image: 'y' }] },
    });
    expect(reordered.body.spec.containers.map((c: { name: string }) => c.name)).toEqual(['z', 'only']);
  });

  it('merges Service ports by port', async () => {
    await fx.request('/api/v1/namespaces/default/services', { method: 'POST', body: { metadata: { name: 'ports' }, spec: { ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] } } });
    const patched = await patch('/api/v1/namespaces/default/services/ports', 'strategic-merge-patch+json', { spec: { ports: [{ port: 443, targetPort: 8443 }] } });
    expect(patched.body.spec.ports).toEqual([
      { name: 'http', port: 80, protocol: 'TCP', targetPort: 80 },
      { name: 'https', port: 443, protocol: 'TCP', targetPort: 8443 },
    ]);
  });

  it('treats a resourceVersion in the patch as a precondition, and 404s a missing object', async () => {
    const created = (await fx.request(EP, { method: 'POST', body: endpoints('rvp', ['10.0.0.1']) })).body;
    await patch(`${EP}/rvp`, 'merge-patch+json', { metadata: { labels: { x: 'y' } } });
    const stale = await patch(`${EP}/rvp`, 'merge-patch+json', { metadata: { resourceVersion: created.metadata.resourceVersion, labels: { x: 'z' } } });
    expect(stale.status).toBe(409);
    expect((await patch(`${EP}/missing`, 'merge-patch+json', { metadata: { labels: { x: 'y' } } })).status).toBe(404);
    const renamed = await patch(`${EP}/rvp`, 'merge-patch+json', { metadata: { name: 'other' } });
    expect(renamed.status).toBe(400);
  });

  it('patches the status subresource without touching spec, and honours dryRun', async () => {
    await fx.request('/api/v1/namespaces/default/services', { method: 'POST', body: { metadata: { name: 'st' }, spec: { ports: [{ port: 80 }] } } });
    const status = await patch('/api/v1/namespaces/default/services/st/status', 'merge-patch+json', { spec: { type: 'NodePort' }, status: { loadBalancer: { ingress: [{ ip: '5.6.7.8' }] } } });
    expect(status.body.status.loadBalancer.ingress[0].ip).toBe('5.6.7.8');
    expect(status.body.spec.type).toBe('ClusterIP');
    const dry = await patch('/api/v1/namespaces/default/services/st?dryRun=All', 'merge-patch+json', { metadata: { labels: { dry: 'yes' } } });
    expect(dry.body.metadata.labels).toEqual({ dry: 'yes' });
    expect((await fx.request('/api/v1/namespaces/default/services/st')).body.metadata.labels).toBeUndefined();
  });
});
