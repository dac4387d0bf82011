import { describe, expect, it } from 'vitest';
import { useDevclusterFixture } from '../../support/devcluster-fixture.js';

const fx = useDevclusterFixture();

describe('self reviews (no authorization in the devcluster)', () => {
  it('answers SelfSubjectAccessReview with allowed and SelfSubjectReview with the anonymous user', async () => {
    const access = await fetch(`${fx.cluster.url}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'endpoints' } } }),
    });
    expect(access.status).toBe(201);
    expect(await access.json()).toMatchObject({ kind: 'SelfSubjectAccessReview', status: { allowed: true } });

    const who = await fetch(`${fx.cluster.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(who.status).toBe(201);
    expect(await who.json()).toMatchObject({ kind: 'SelfSubjectReview', status: { userInfo: { username: 'system:anonymous', groups: ['system:unauthenticated'] } } });

    expect((await fetch(`${fx.cluster.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`)).status).toBe(405);
  });
});
