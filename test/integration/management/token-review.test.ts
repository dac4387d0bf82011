import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_REVIEW_PATH } from '../../../src/management/index.js';
import { KEYS_PATH, ManagementFixture, type Answer } from '../../support/management-fixture.js';
import { waitFor } from '../../support/wait-for.js';

const STORED = { resource: 'management.loft.sh/v1/ownedaccesskeys', namespace: '' };
/** A token the extra verifier of these tests owns (standing in for the DirectClusterEndpointTokens). */
const ENDPOINT_TOKEN = 'endpoint.token.for-tests';

describe('TokenReview webhook on the management listener', () => {
  let fixture: ManagementFixture;
  beforeAll(async () => {
    fixture = await ManagementFixture.start({
      lastActivityWriteIntervalMs: 0,
      tokenVerifiers: [
        {
          kind: 'endpoint token',
          verifier: {
            verifyToken: async ({ token, audiences }) =>
              token === ENDPOINT_TOKEN ? { outcome: 'authenticated', user: { username: 'pipeline', groups: ['ci'] }, audiences: audiences.filter((audience) => audience === 'bound') } : { outcome: 'unrecognized' },
          },
        },
      ],
    });
  });
  afterAll(async () => {
    await fixture.stop();
  });

  /** POSTs a TokenReview without any credential, as a kube-apiserver configured without one does. */
  const review = (spec: Record<string, unknown>, apiVersion = 'authentication.k8s.io/v1'): Promise<Answer> =>
    fixture.call('POST', TOKEN_REVIEW_PATH, { body: { apiVersion, kind: 'TokenReview', spec } });

  it('a valid key: authenticated, the owner as user with spec.groups, extra with the key name and scope; no credential needed to ask', async () => {
    const scope = { roles: [{ role: 'platformCLI' }] };
    const key = (await fixture.createKey({ user: 'alice', groups: ['developers'], scope }, { name: 'alice-key' })).body.spec.key as string;
    const answer = await review({ token: key });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenReview',
      metadata: { creationTimestamp: null },
      spec: {},
      status: {
        authenticated: true,
        user: {
          username: 'alice',
          groups: ['developers', 'system:authenticated'],
          extra: {
            'vcsync.dev/owner-kind': ['user'],
            'vcsync.dev/owner-name': ['alice'],
            'vcsync.dev/access-key': ['alice-key'],
            'vcsync.dev/access-key-uid': [expect.any(String)],
            'vcsync.dev/key-owners': ['user=alice'],
            'vcsync.dev/key-scope': [JSON.stringify(scope)],
          },
        },
      },
    });
    expect(answer.text).not.toContain(key);
  });

  it('audiences asked for: an access key is valid for any, so status.audiences echoes them; v1beta1 is answered in v1beta1', async () => {
    const key = (await fixture.createKey({ team: 'ops' }, { name: 'ops-key' })).body.spec.key as string;
    const answer = await review({ token: key, audiences: ['https://kubernetes.default.svc', 'other'] });
    expect(answer.body.status).toMatchObject({ authenticated: true, user: { username: 'team:ops' }, audiences: ['https://kubernetes.default.svc', 'other'] });
    expect(answer.body.spec).toEqual({ audiences: ['https://kubernetes.default.svc', 'other'] });
    const beta = await review({ token: key }, 'authentication.k8s.io/v1beta1');
    expect(beta.body).toMatchObject({ apiVersion: 'authentication.k8s.io/v1beta1', kind: 'TokenReview', status: { authenticated: true } });
  });

  it.each([
    ['unknown', async (): Promise<string> => 'Unknown_Key_0123456789abcdefghijklmnopqrstu', 'the token is not a valid access key or direct cluster endpoint token or endpoint token (unknown, or deleted)'],
    ['disabled', async (): Promise<string> => (await fixture.createKey({ user: 'bob', disabled: true }, { name: 'bob-off' })).body.spec.key as string, 'the access key "bob-off" is disabled'],
    [
      'expired',
      async (): Promise<string> => {
        const key = (await fixture.createKey({ user: 'carol', ttl: 60 }, { name: 'carol-short' })).body.spec.key as string;
        fixture.nowMs += 61_000;
        return key;
      },
      'the access key "carol-short" expired at',
    ],
  ])('%s key → authenticated false with an error that does not echo the token', async (_case, makeKey, error) => {
    const key = await makeKey();
    const answer = await review({ token: key });
    expect(answer.status).toBe(200);
    expect(answer.body.status.authenticated).toBe(false);
    expect(answer.body.status.user).toBeUndefined();
    expect(answer.body.status.error).toContain(error);
    expect(answer.text).not.toContain(key);
  });

  it('a deleted key stops being accepted (the authenticator cache is invalidated through the watch)', async () => {
    const key = (await fixture.createKey({ user: 'dave' }, { name: 'dave-key' })).body.spec.key as string;
    expect((await review({ token: key })).body.status.authenticated).toBe(true);
    expect((await review({ token: key })).body.status.authenticated).toBe(true);
    await fixture.storage.delete({ ...STORED, name: 'dave-key' });
    await waitFor('the deleted key to be refused', async () => (await review({ token: key })).body.status.authenticated === false, {
      // The cache has no time to live: only the watch can tell; generous for a loaded machine.
      timeoutMs: 15_000,
    });
  });

  it('a review counts as a use of the key: status.lastActivity is written', async () => {
    const key = (await fixture.createKey({ user: 'erin' }, { name: 'erin-key' })).body.spec.key as string;
    const reviewedAt = fixture.nowMs;
    expect((await review({ token: key })).body.status.authenticated).toBe(true);
    await waitFor('lastActivity to be written', async () => {
      const stored = await fixture.storage.get({ ...STORED, name: 'erin-key' });
      return Date.parse(String((stored?.['status'] as { lastActivity?: string } | undefined)?.lastActivity)) === reviewedAt;
    });
  });

  it('a token the access keys do not know goes to the next verifier, which decides its audiences', async () => {
    const answer = await review({ token: ENDPOINT_TOKEN, audiences: ['bound', 'unbound'] });
    expect(answer.body.status).toEqual({ authenticated: true, user: { username: 'pipeline', groups: ['ci'] }, audiences: ['bound'] });
  });

  it.each([
    ['a body of another kind', { apiVersion: 'v1', kind: 'Pod' }, 'application/json', 400, 'must be a TokenReview'],
    ['no spec.token', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: {} }, 'application/json', 400, 'spec.token is required'],
    ['spec.audiences not a list', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'x', audiences: 'a' } }, 'application/json', 400, 'spec.audiences'],
    ['a body in another media type', 'token', 'text/plain', 415, 'unknown format'],
  ])('%s → %s Status', async (_case, body, contentType, code, message) => {
    const answer = await fixture.call('POST', TOKEN_REVIEW_PATH, { body, contentType });
    expect(answer.status).toBe(code);
    expect(answer.body).toMatchObject({ kind: 'Status', code });
    expect(answer.body.message).toContain(message);
  });

  it('GET → 405; the rest of the API still wants a key', async () => {
    expect((await fixture.call('GET', TOKEN_REVIEW_PATH)).status).toBe(405);
    expect((await fixture.call('GET', KEYS_PATH)).status).toBe(401);
  });
});
