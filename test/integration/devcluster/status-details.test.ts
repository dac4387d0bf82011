import { describe, expect, it } from 'vitest';
import { useDevclusterFixture } from '../../support/devcluster-fixture.js';

const fx = useDevclusterFixture();

const CM = '/api/v1/namespaces/default/configmaps';

describe('Status details as the real kube-apiserver sends them', () => {
  it('leaves out an empty group of a core resource', async () => {
    const missing = await fx.request(`${CM}/missing`);
    expect(missing.status).toBe(404);
    expect(missing.body.details).toEqual({ name: 'missing', kind: 'configmaps' });
  });

  it('leaves out the empty name of an object created without one', async () => {
    const nameless = await fx.request(CM, { method: 'POST', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} } });
    expect(nameless.status).toBe(422);
    expect(Object.keys(nameless.body.details).sort()).toEqual(['causes', 'kind']);
  });

  it('answers an unknown resource of a served group with empty details', async () => {
    for (const path of [`/api/v1/namespaces/default/widgets`, '/apis/discovery.k8s.io/v1/widgets', `${CM}/x/nothing`]) {
      const unknown = await fx.request(path);
      expect(unknown.status, path).toBe(404);
      expect(unknown.body, path).toMatchObject({ kind: 'Status', reason: 'NotFound', message: 'the server could not find the requested resource', details: {} });
      expect(unknown.body.details, path).toEqual({});
    }
  });

  it('keeps the UnexpectedServerResponse cause outside every served group, where the real server answers a plain 404', async () => {
    const outside = await fx.request('/apis/nothing.example.com/v1/things');
    expect(outside.status).toBe(404);
    expect(outside.body.details.causes).toEqual([{ reason: 'UnexpectedServerResponse', message: '404 page not found: /apis/nothing.example.com/v1/things' }]);
  });

  it('answers a verb the resource does not support with MethodNotAllowed and empty details', async () => {
    const patched = await fx.request(CM, { method: 'PATCH', body: {}, contentType: 'application/merge-patch+json' });
    expect(patched.status).toBe(405);
    expect(patched.body).toMatchObject({ reason: 'MethodNotAllowed', code: 405 });
    expect(patched.body.details).toEqual({});
  });

  it('leaves out the empty group in the Success Status of a delete', async () => {
    await fx.request(CM, { method: 'POST', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'gone' } } });
    const deleted = await fx.request(`${CM}/gone`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(Object.keys(deleted.body.details).sort()).toEqual(['kind', 'name', 'uid']);
  });
});

describe('/version', () => {
  it('has the fields of the real server: emulation and minimum compatibility versions', async () => {
    const version = await fx.request('/version');
    expect(Object.keys(version.body)).toEqual([
      'major', 'minor', 'emulationMajor', 'emulationMinor', 'minCompatibilityMajor', 'minCompatibilityMinor',
      'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform',
    ]);
    expect(version.body).toMatchObject({ emulationMajor: version.body.major, emulationMinor: version.body.minor, minCompatibilityMajor: version.body.major });
    expect(Number(version.body.minCompatibilityMinor)).toBe(Number(version.body.minor) - 1);
  });
});
