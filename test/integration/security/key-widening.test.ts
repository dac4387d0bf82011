/**
 * No management write yields a key with more reach than the caller's. Each test is
 * one way a narrow key could widen a key it owns (a chosen key value, enabling, a longer life),
 * through every write path; each was answered 200 before the rule, and the widened key then worked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS_PATH, ManagementFixture, type Answer } from '../../support/management-fixture.js';

/** What alice's and frank's narrow keys may do: every verb on keys and their status, nothing else. */
const KEYS_ONLY = { rules: [{ verbs: ['*'], resources: [{ group: 'management.loft.sh', resources: ['ownedaccesskeys', 'ownedaccesskeys/status'] }] }] };
const ADMINS = 'management:admins';
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

/** A key value a caller chose (base64url, long enough), distinct per `label`. */
function chosenKey(label: string): string {
  return `Chosen-${label}-0123456789abcdefghijklmnopqrstuvwxyz`.replace(/[^A-Za-z0-9_-]/g, '-');
}

/** A 403 Forbidden Status whose message names `field` as what widens the key. */
function expectWideningRefused(answer: Answer, field: string): void {
  expect(answer.status, answer.text).toBe(403);
  expect(answer.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Forbidden', code: 403 });
  expect(answer.body.message).toContain(`${field}: `);
  expect(answer.body.message).toContain('could have created the resulting key itself');
}

describe('a write never yields a key with more reach than the caller’s', () => {
  let fixture: ManagementFixture;
  let alice: string;
  beforeAll(async () => {
    fixture = await ManagementFixture.start();
    alice = await fixture.newKey('alice-narrow', { user: 'alice', scope: KEYS_ONLY });
  });
  afterAll(async () => {
    await fixture.stop();
  });

  const patch = (name: string, contentType: string, body: unknown, key = alice, query = ''): Promise<Answer> => fixture.call('PATCH', `${KEYS_PATH}/${name}${query}`, { key, contentType, body });
  const stored = async (name: string): Promise<Record<string, unknown>> =>
    (await fixture.storage.get({ resource: 'management.loft.sh/v1/ownedaccesskeys', namespace: '', name })) as unknown as Record<string, unknown>;
  const works = async (key: string): Promise<number> => (await fixture.call('GET', KEYS_PATH, { key })).status;

  it('merge patch: a chosen key value and enabling alice-wide (no scope, groups [ops], disabled) is refused, and the chosen key does not work', async () => {
    await fixture.newKey('alice-wide', { user: 'alice', groups: ['ops'], disabled: true });
    const before = await stored('alice-wide');
    const chosen = chosenKey('wide');
    const answer = await patch('alice-wide', MERGE, { spec: { key: chosen, disabled: false } });
    expectWideningRefused(answer, 'spec.key');
    expect(answer.body.message).toContain('spec.disabled: ');
    expect(answer.body.message).toContain('spec.groups: "ops" not among the caller\'s groups');
    expect(await stored('alice-wide')).toEqual(before);
    expect(await works(chosen)).toBe(401);
  });

  it('JSON patch: add /spec/key on ci-bot-as-alice (groups [management:admins]) is refused; the chosen key is no admin key', async () => {
    await fixture.newKey('ci-bot-as-alice', { user: 'alice', groups: [ADMINS] });
    const chosen = chosenKey('bot');
    expectWideningRefused(await patch('ci-bot-as-alice', JSON_PATCH, [{ op: 'add', path: '/spec/key', value: chosen }]), 'spec.key');
    expect(await works(chosen)).toBe(401);
    expect((await fixture.call('GET', `${KEYS_PATH}/vcsync-bootstrap-admin`, { key: chosen })).status).toBe(401);
  });

  it('merge patch: frank’s key sets ttl 0 on frank’s expired unrestricted key: refused, and the expired key stays expired', async () => {
    const frank = await fixture.newKey('frank-narrow', { user: 'frank', scope: KEYS_ONLY });
    const old = await fixture.newKey('frank-old', { user: 'frank', ttl: 60 });
    fixture.nowMs += 120_000;
    expect(await works(old)).toBe(401);
    expectWideningRefused(await patch('frank-old', MERGE, { spec: { ttl: 0 } }, frank), 'spec.ttl');
    expectWideningRefused(await patch('frank-old', MERGE, { spec: { ttl: 86_400 } }, frank), 'spec.ttl');
    expect(await works(old)).toBe(401);
  });

  it('strategic merge patch: enabling a disabled key with groups the caller lacks is refused', async () => {
    await fixture.newKey('alice-dormant-smp', { user: 'alice', groups: ['ops'], disabled: true });
    expectWideningRefused(await patch('alice-dormant-smp', STRATEGIC, { spec: { disabled: false } }), 'spec.disabled');
    expect((await stored('alice-dormant-smp'))['spec']).toMatchObject({ disabled: true });
  });

  it('PUT: the key read back with disabled: false is refused', async () => {
    await fixture.newKey('alice-dormant-put', { user: 'alice', groups: ['ops'], disabled: true });
    const read = await fixture.call('GET', `${KEYS_PATH}/alice-dormant-put`, { key: alice });
    expect(read.status, read.text).toBe(200);
    const body = { ...read.body, spec: { ...read.body.spec, disabled: false } };
    expectWideningRefused(await fixture.call('PUT', `${KEYS_PATH}/alice-dormant-put`, { key: alice, body }), 'spec.disabled');
    expect((await stored('alice-dormant-put'))['spec']).toMatchObject({ disabled: true });
  });

  it('server-side apply (forced): a chosen key on an unrestricted key of alice is refused', async () => {
    await fixture.newKey('alice-unscoped', { user: 'alice', disabled: true });
    const chosen = chosenKey('apply');
    const config = { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name: 'alice-unscoped' }, spec: { user: 'alice', key: chosen, disabled: false } };
    const answer = await patch('alice-unscoped', APPLY, JSON.stringify(config), alice, '?fieldManager=alice&force=true');
    expectWideningRefused(answer, 'spec.key');
    expect(answer.body.message).toContain('spec.scope: an unrestricted scope exceeds the caller\'s own scope');
    expect(await works(chosen)).toBe(401);
  });

  it('status: moving lastActivity forward on an expired ttlAfterLastActivity key is refused', async () => {
    await fixture.newKey('alice-idle', { user: 'alice', ttl: 60, ttlAfterLastActivity: true });
    fixture.nowMs += 120_000;
    const lastActivity = new Date(fixture.nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
    expectWideningRefused(await fixture.call('PATCH', `${KEYS_PATH}/alice-idle/status`, { key: alice, contentType: MERGE, body: { status: { lastActivity } } }), 'status.lastActivity');
  });

  it('a SelfSubjectAccessReview answers alike for another owner’s key and for a key that does not exist', async () => {
    await fixture.newKey('bobs-key', { user: 'bob' });
    const review = async (name: string): Promise<unknown> => {
      const answer = await fixture.call('POST', '//kubernetes/management/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        key: alice,
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', group: 'management.loft.sh', resource: 'ownedaccesskeys', name } } },
      });
      expect(answer.status, answer.text).toBe(201);
      return JSON.parse(JSON.stringify(answer.body.status).replaceAll(JSON.stringify(name).slice(1, -1), '<name>'));
    };
    const others = await review('bobs-key');
    expect(others).toMatchObject({ allowed: false, denied: true });
    expect(await review('no-such-key')).toEqual(others);
    expect(await review('alice-narrow')).toEqual({ allowed: true });
  });
});
