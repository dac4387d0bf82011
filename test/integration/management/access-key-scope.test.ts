import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS_PATH, ManagementFixture, type Answer } from '../../support/management-fixture.js';

/** A 403 Forbidden Status whose message says the scope refused the request. */
function expectScopeRefusal(answer: Answer): void {
  expect(answer.status).toBe(403);
  expect(answer.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403 });
  expect(answer.body.message).toContain("access key's scope does not allow");
}

/** Creates a key for alice as the admin; returns its name and secret. */
async function aliceKey(fixture: ManagementFixture, name: string, scope?: Record<string, unknown>): Promise<{ name: string; key: string }> {
  const created = await fixture.createKey({ user: 'alice', ...(scope !== undefined ? { scope } : {}) }, { name });
  expect(created.status).toBe(201);
  return { name, key: created.body.spec.key as string };
}

const KEY_RULES = (verbs: string[]): Record<string, unknown> => ({ rules: [{ verbs, resources: [{ group: 'management.loft.sh', resources: ['ownedaccesskeys'] }] }] });

describe('access-key scope enforced on every management request over HTTPS', () => {
  let fixture: ManagementFixture;
  beforeAll(async () => {
    fixture = await ManagementFixture.start();
  });
  afterAll(async () => {
    await fixture.stop();
  });

  it('platformCLI: get, list, watch keys and discovery/OpenAPI/version are allowed; create and delete answer 403 Status', async () => {
    const cli = await aliceKey(fixture, 'cli', { roles: [{ role: 'platformCLI' }] });
    expect((await fixture.call('GET', KEYS_PATH, { key: cli.key })).status).toBe(200);
    expect((await fixture.call('GET', `${KEYS_PATH}/cli`, { key: cli.key })).status).toBe(200);
    expect((await fixture.call('GET', `${KEYS_PATH}?watch=true&timeoutSeconds=1`, { key: cli.key })).status).toBe(200);
    for (const path of ['/version', '/api', '/apis', '/apis/management.loft.sh/v1', '/openapi/v2']) {
      expect((await fixture.call('GET', path, { key: cli.key })).status, path).toBe(200);
    }
    const create = await fixture.createKey({ user: 'alice' }, { key: cli.key });
    expectScopeRefusal(create);
    expect(create.body.message).toContain('create ownedaccesskeys.management.loft.sh');
    expect(create.body.details).toMatchObject({ group: 'management.loft.sh', kind: 'ownedaccesskeys' });
    const remove = await fixture.call('DELETE', `${KEYS_PATH}/cli`, { key: cli.key });
    expectScopeRefusal(remove);
    expect(remove.body.details).toMatchObject({ name: 'cli', kind: 'ownedaccesskeys' });
    expect((await fixture.call('GET', `${KEYS_PATH}/cli`, { key: fixture.adminKey })).status).toBe(200);
  });

  it('a rules entry allowing only get on ownedaccesskeys: get is allowed, list and /metrics answer 403 Status; discovery and /version are every key’s', async () => {
    const getter = await aliceKey(fixture, 'getter', KEY_RULES(['get']));
    expect((await fixture.call('GET', `${KEYS_PATH}/getter`, { key: getter.key })).status).toBe(200);
    expectScopeRefusal(await fixture.call('GET', KEYS_PATH, { key: getter.key }));
    const metrics = await fixture.call('GET', '/metrics', { key: getter.key });
    expectScopeRefusal(metrics);
    expect(metrics.body.message).toContain('get /metrics');
    for (const path of ['/version', '/api', '/apis', '/apis/management.loft.sh/v1', '/openapi/v3']) {
      expect((await fixture.call('GET', path, { key: getter.key })).status, path).toBe(200);
    }
    expectScopeRefusal(await fixture.call('POST', '/version', { key: getter.key, body: {} }));
  });

  it('an unscoped key is not restricted by scope (only by ownership)', async () => {
    const free = await aliceKey(fixture, 'free');
    expect((await fixture.call('GET', '/version', { key: free.key })).status).toBe(200);
    expect((await fixture.call('GET', KEYS_PATH, { key: free.key })).status).toBe(200);
    const created = await fixture.createKey({ user: 'alice', scope: { roles: [{ role: 'platformCLI' }] } }, { key: free.key, name: 'made-by-free' });
    expect(created.status).toBe(201);
    expect((await fixture.call('DELETE', `${KEYS_PATH}/made-by-free`, { key: free.key })).status).toBe(200);
  });

  it('escalation: a key cannot create a key whose scope exceeds its own (403); within its scope it can (201)', async () => {
    const scope = { ...KEY_RULES(['get', 'list', 'create']), projects: [{ project: 'p1' }] };
    const maker = await aliceKey(fixture, 'maker', scope);
    const broader = await fixture.createKey({ user: 'alice', scope: { ...scope, projects: [{ project: '*' }] } }, { key: maker.key });
    expect(broader.status).toBe(403);
    expect(broader.body).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    expect(broader.body.message).toContain('spec.scope.projects');
    const unscoped = await fixture.createKey({ user: 'alice' }, { key: maker.key });
    expect(unscoped.status).toBe(403);
    expect(unscoped.body.message).toContain('spec.scope: an unrestricted scope exceeds');
    expect((await fixture.createKey({ user: 'alice', scope }, { key: maker.key })).status).toBe(201);
  });

  it('widening: a write that does not widen a key, or leaves one the caller could have created, is allowed; an admin may widen', async () => {
    const narrow = await aliceKey(fixture, 'widening-narrow', KEY_RULES(['*']));
    const patch = (name: string, spec: Record<string, unknown>, key = narrow.key): Promise<Answer> =>
      fixture.call('PATCH', `${KEYS_PATH}/${name}`, { key, contentType: 'application/merge-patch+json', body: { spec } });
    await fixture.newKey('widening-wide', { user: 'alice', groups: ['ops'], disabled: true });
    expect((await patch('widening-wide', { displayName: 'renamed', groups: [] })).status).toBe(200);
    await fixture.newKey('widening-own', { user: 'alice', scope: KEY_RULES(['get']), disabled: true, ttl: 60 });
    const chosen = 'Chosen-own-0123456789abcdefghijklmnopqrstuvwxyz';
    const enabled = await patch('widening-own', { key: chosen, disabled: false, ttl: 0 });
    expect(enabled.status, enabled.text).toBe(200);
    expect((await fixture.call('GET', `${KEYS_PATH}/widening-own`, { key: chosen })).status).toBe(200);
    await fixture.newKey('widening-admin', { user: 'alice', groups: ['ops'], disabled: true });
    expect((await patch('widening-admin', { disabled: false }, fixture.adminKey)).status).toBe(200);
  });

  it('an invalid spec.scope answers 422 Invalid with the field paths of its causes, on create and on update', async () => {
    const invalid = await fixture.createKey({ user: 'alice', scope: { roles: [{ role: 'nope' }], rules: [{ verbs: ['get'], nonResourceURLs: ['no-slash'] }] } }, { name: 'invalid' });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ kind: 'Status', reason: 'Invalid' });
    const fields = (invalid.body.details.causes as { field: string }[]).map((cause) => cause.field);
    expect(fields).toContain('spec.scope.roles[0].role');
    expect(fields.some((field) => field.startsWith('spec.scope.rules[0].nonResourceURLs'))).toBe(true);
    await aliceKey(fixture, 'to-break');
    const update = await fixture.call('PATCH', `${KEYS_PATH}/to-break`, {
      key: fixture.adminKey,
      contentType: 'application/merge-patch+json',
      body: { spec: { scope: { clusters: [{}] } } },
    });
    expect(update.status).toBe(422);
    expect((update.body.details.causes as { field: string }[]).map((cause) => cause.field)).toContain('spec.scope.clusters[0].cluster');
  });

  it('a SelfSubjectAccessReview in JSON echoes its spec and answers the scope’s decision: allowed, or denied with the reason', async () => {
    const cli = await aliceKey(fixture, 'reviewer', { roles: [{ role: 'platformCLI' }] });
    const review = (spec: Record<string, unknown>): Promise<Answer> =>
      fixture.call('POST', '//kubernetes/management/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', { key: cli.key, body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec } });
    const listing = { resourceAttributes: { verb: 'list', group: 'management.loft.sh', resource: 'ownedaccesskeys' } };
    const listed = await review(listing);
    expect(listed.status).toBe(201);
    expect(listed.body).toMatchObject({ kind: 'SelfSubjectAccessReview', spec: listing, status: { allowed: true } });
    const creating = { resourceAttributes: { verb: 'create', group: 'management.loft.sh', version: 'v1', resource: 'ownedaccesskeys' } };
    const created = await review(creating);
    expect(created.body).toMatchObject({ spec: creating, status: { allowed: false, denied: true } });
    expect(created.body.status.reason).toContain("access key's scope does not allow create ownedaccesskeys.management.loft.sh");
    expect((await review({ nonResourceAttributes: { verb: 'get', path: '/version' } })).body.status).toEqual({ allowed: true });
    expect((await review({})).status).toBe(400);
  });
});
