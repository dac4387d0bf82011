import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { TOKEN_REVIEW_PATH } from '../../../src/management/index.js';
import { ManagementFixture, type Answer } from '../../support/management-fixture.js';

const TOKENS_PATH = '/apis/management.loft.sh/v1/directclusterendpointtokens';
const KEYS_PATH = '/apis/management.loft.sh/v1/ownedaccesskeys';
const AUDIENCE = 'vcsync-direct-cluster-endpoint';
const HOUR = 3600_000;

function tokenRequest(spec: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'management.loft.sh/v1', kind: 'DirectClusterEndpointToken', metadata: {}, spec };
}

async function issue(fixture: ManagementFixture, key: string, spec: Record<string, unknown> = {}): Promise<Answer> {
  return fixture.call('POST', TOKENS_PATH, { key, body: tokenRequest(spec) });
}

/** Verifies `token` offline as a proxy would: discovery → jwks_uri → the key set, nothing else of the server. */
async function verifyOffline(fixture: ManagementFixture, token: string): Promise<Record<string, unknown>> {
  const discovery = await fixture.call('GET', '//.well-known/openid-configuration');
  expect(discovery.status).toBe(200);
  const jwksPath = new URL(String(discovery.body.jwks_uri)).pathname;
  const keySet = await fixture.call('GET', `/${jwksPath}`);
  expect(keySet.status).toBe(200);
  const { payload } = await jwtVerify(token, createLocalJWKSet(keySet.body as JSONWebKeySet), {
    issuer: String(discovery.body.issuer),
    audience: AUDIENCE,
    currentDate: new Date(fixture.nowMs),
  });
  return payload as Record<string, unknown>;
}

async function createKey(fixture: ManagementFixture, name: string, spec: Record<string, unknown>): Promise<string> {
  const created = await fixture.createKey(spec, { name });
  expect(created.status, created.text).toBe(201);
  return String(created.body.spec.key);
}

describe('DirectClusterEndpointToken', () => {
  let fixture: ManagementFixture;
  beforeAll(async () => {
    fixture = await ManagementFixture.start();
  });
  afterAll(async () => {
    await fixture.stop();
  });

  it('a create with an empty spec, sent as YAML, answers a signed RS256 JWT with the documented claims and the default ttl', async () => {
    const answer = await fixture.call('POST', TOKENS_PATH, { key: fixture.adminKey, body: toYaml(tokenRequest()), contentType: 'application/yaml' });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toMatchObject({ apiVersion: 'management.loft.sh/v1', kind: 'DirectClusterEndpointToken', spec: { ttl: 3600 } });
    const token = String(answer.body.status.token);
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(typeof header.kid).toBe('string');
    const claims = await verifyOffline(fixture, token);
    expect(claims).toMatchObject({ iss: fixture.server.issuer, sub: 'admin', aud: AUDIENCE, groups: ['management:admins'] });
    expect(Number(claims['exp']) - Number(claims['iat'])).toBe(3600);
    expect(claims['iat']).toBe(Math.floor(fixture.nowMs / 1000));
    expect(claims['management.loft.sh']).toMatchObject({ kind: 'DirectClusterEndpointToken', accessKey: { name: 'vcsync-bootstrap-admin' } });
    expect(typeof claims['jti']).toBe('string');
  });

  it('spec.ttl sets the lifetime; more than the maximum is cut to one day; negative is 422', async () => {
    const short = await issue(fixture, fixture.adminKey, { ttl: 120 });
    expect(short.body.spec.ttl).toBe(120);
    const claims = decodeJwt(String(short.body.status.token));
    expect(Number(claims.exp) - Number(claims.iat)).toBe(120);
    const long = await issue(fixture, fixture.adminKey, { ttl: 10 * 86_400 });
    expect(long.body.spec.ttl).toBe(86_400);
    const negative = await issue(fixture, fixture.adminKey, { ttl: -1 });
    expect(negative.status).toBe(422);
    expect(negative.body).toMatchObject({ kind: 'Status', reason: 'Invalid', details: { causes: [{ field: 'spec.ttl' }] } });
  });

  it('is create-only and never stored: get and list are 405, a dry run answers without a token', async () => {
    expect((await fixture.call('GET', TOKENS_PATH, { key: fixture.adminKey })).status).toBe(405);
    expect((await fixture.call('GET', `${TOKENS_PATH}/x`, { key: fixture.adminKey })).status).toBe(405);
    const dry = await fixture.call('POST', `${TOKENS_PATH}?dryRun=All`, { key: fixture.adminKey, body: tokenRequest() });
    expect(dry.status).toBe(201);
    expect(dry.body.status).toEqual({});
    const discovery = await fixture.call('GET', '/apis/management.loft.sh/v1', { key: fixture.adminKey });
    expect(discovery.body.resources).toContainEqual(expect.objectContaining({ name: 'directclusterendpointtokens', namespaced: false, kind: 'DirectClusterEndpointToken', verbs: ['create'] }));
  });

  it('a scoped non-admin key gets a token with its own scope; asking for more is 403 naming the entry; an unauthenticated caller 401', async () => {
    // The key's scope must allow asking for tokens (a rule) and reaches the cluster `edge`.
    const mayIssue = { verbs: ['create'], resources: [{ group: 'management.loft.sh', resources: ['directclusterendpointtokens'] }] };
    const scope = { clusters: [{ cluster: 'edge' }], rules: [mayIssue] };
    const key = await createKey(fixture, 'alice-token-key', { user: 'alice', groups: [], scope });
    const answer = await issue(fixture, key);
    expect(answer.status, answer.text).toBe(201);
    const claims = decodeJwt(String(answer.body.status.token));
    expect(claims).toMatchObject({ sub: 'alice', groups: [], 'management.loft.sh': { accessKey: { name: 'alice-token-key' }, scope } });
    const narrower = await issue(fixture, key, { scope: { clusters: [{ cluster: 'edge' }] } });
    expect(narrower.status).toBe(201);
    expect(decodeJwt(String(narrower.body.status.token))['management.loft.sh']).toMatchObject({ scope: { clusters: [{ cluster: 'edge' }] } });
    const unrestricted = await issue(fixture, key, { scope: {} });
    expect(unrestricted.status).toBe(403);
    // A key whose scope does not allow the request at all is refused before anything is signed.
    const readOnly = await createKey(fixture, 'alice-cli-key', { user: 'alice', scope: { roles: [{ role: 'platformCLI' }] } });
    expect((await issue(fixture, readOnly)).status).toBe(403);
    const wider = await issue(fixture, key, { scope: { clusters: [{ cluster: '*' }] } });
    expect(wider.status).toBe(403);
    expect(wider.body.message).toContain('spec.scope.clusters[0]');
    expect((await fixture.call('POST', TOKENS_PATH, { body: tokenRequest() })).status).toBe(401);
  });

  it('token review accepts a token while its key is usable, and refuses it once the key is disabled, deleted, or the token expired', async () => {
    const key = await createKey(fixture, 'bob-token-key', { user: 'bob', groups: ['dev'] });
    const token = String((await issue(fixture, key, { ttl: 600 })).body.status.token);
    const verified = await fixture.server.directTokens.verify(token);
    expect(verified).toMatchObject({ ok: true, user: { username: 'bob', groups: ['dev', 'system:authenticated'] } });

    const disable = await fixture.call('PATCH', `${KEYS_PATH}/bob-token-key`, { key: fixture.adminKey, body: { spec: { disabled: true } }, contentType: 'application/merge-patch+json' });
    expect(disable.status).toBe(200);
    expect(await fixture.server.directTokens.verify(token)).toMatchObject({ ok: false, message: expect.stringContaining('disabled') });
    await fixture.call('PATCH', `${KEYS_PATH}/bob-token-key`, { key: fixture.adminKey, body: { spec: { disabled: false } }, contentType: 'application/merge-patch+json' });
    expect(await fixture.server.directTokens.verify(token)).toMatchObject({ ok: true });

    const before = fixture.nowMs;
    fixture.nowMs = before + 601_000;
    expect(await fixture.server.directTokens.verify(token)).toMatchObject({ ok: false, reason: 'it expired' });
    fixture.nowMs = before;

    expect((await fixture.call('DELETE', `${KEYS_PATH}/bob-token-key`, { key: fixture.adminKey })).status).toBe(200);
    expect(await fixture.server.directTokens.verify(token)).toMatchObject({ ok: false, message: expect.stringContaining('deleted') });
    // A new key of the same name does not revive the old key's tokens.
    await createKey(fixture, 'bob-token-key', { user: 'bob' });
    expect(await fixture.server.directTokens.verify(token)).toMatchObject({ ok: false });
  });

  it('the TokenReview webhook answers for direct tokens: the key\'s user while the key is usable, refused once it is disabled', async () => {
    await createKey(fixture, 'carol-token-key', { user: 'carol', groups: ['ops'] });
    const carolsKey = String((await fixture.call('POST', `${KEYS_PATH}/carol-token-key`, { key: fixture.adminKey })).status); // 405: keys are created by POST to the collection
    expect(carolsKey).toBe('405');
    const key = await createKey(fixture, 'carol-token-key-2', { user: 'carol', groups: ['ops'] });
    const token = String((await issue(fixture, key)).body.status.token);
    const review = (): Promise<Answer> => fixture.call('POST', TOKEN_REVIEW_PATH, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token, audiences: ['https://kubernetes.default.svc'] } } });
    const accepted = await review();
    expect(accepted.body.status).toMatchObject({ authenticated: true, user: { username: 'carol', groups: ['ops', 'system:authenticated'] } });
    await fixture.call('PATCH', `${KEYS_PATH}/carol-token-key-2`, { key: fixture.adminKey, body: { spec: { disabled: true } }, contentType: 'application/merge-patch+json' });
    const refused = await review();
    expect(refused.body.status.authenticated).toBe(false);
    expect(refused.body.status.error).toContain('disabled');
    expect(refused.text).not.toContain(token);
  });

  it('refuses forged and foreign tokens: another signature, another audience, garbage', async () => {
    const token = String((await issue(fixture, fixture.adminKey)).body.status.token);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...decodeJwt(token), sub: 'mallory' })).toString('base64url')}.${signature}`;
    expect(await fixture.server.directTokens.verify(tampered)).toMatchObject({ ok: false });
    expect(await fixture.server.directTokens.verify(`${header}.${payload}.${'A'.repeat(signature.length)}`)).toMatchObject({ ok: false });
    expect(await fixture.server.directTokens.verify('not-a-jwt')).toMatchObject({ ok: false, reason: 'not a JWT' });
    expect(await fixture.server.directTokens.verify(fixture.adminKey)).toMatchObject({ ok: false });
  });

  it('the discovery documents are public and only at the listener root', async () => {
    const discovery = await fixture.call('GET', '//.well-known/openid-configuration');
    expect(discovery.status).toBe(200);
    expect(discovery.body).toMatchObject({ issuer: fixture.server.issuer, jwks_uri: `${fixture.server.issuer}/openid/v1/jwks`, id_token_signing_alg_values_supported: ['RS256', 'ES256'] });
    expect(discovery.headers['cache-control']).toBe('public, max-age=300');
    const keySet = await fixture.call('GET', '//openid/v1/jwks');
    expect(keySet.body.keys.length).toBeGreaterThan(0);
    // Public parts only: the DirectClusterEndpointTokens' RSA key and the kube-config tokens' EC key.
    expect((keySet.body.keys as Record<string, unknown>[]).map((jwk) => Object.keys(jwk).sort())).toEqual([
      ['alg', 'e', 'kid', 'kty', 'n', 'use'],
      ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y'],
    ]);
    expect((await fixture.call('POST', '//openid/v1/jwks', { body: {} })).status).toBe(405);
    // Under the base path they are not served (and need a key).
    expect((await fixture.call('GET', '/.well-known/openid-configuration', { key: fixture.adminKey })).status).toBe(404);
  });
});

describe('DirectClusterEndpointToken signing keys: ES256, rotation, replicas', () => {
  const fixtures: ManagementFixture[] = [];
  afterEach(async () => {
    for (const fixture of fixtures.splice(0)) await fixture.stop();
  });

  it('signs with ES256 when configured', async () => {
    const fixture = await ManagementFixture.start({ tokens: { algorithm: 'ES256' } });
    fixtures.push(fixture);
    const token = String((await issue(fixture, fixture.adminKey)).body.status.token);
    expect(decodeProtectedHeader(token).alg).toBe('ES256');
    expect(await verifyOffline(fixture, token)).toMatchObject({ sub: 'admin' });
  });

  it('rotation: the successor is published before it signs, old tokens stay valid until they expire, then the old key is dropped', async () => {
    const tokens = { rotationIntervalMs: 24 * HOUR, prepublishMs: HOUR, maxTtlSeconds: 2 * 3600 };
    const fixture = await ManagementFixture.start({ tokens });
    fixtures.push(fixture);
    const start = fixture.nowMs;
    const old = String((await issue(fixture, fixture.adminKey, { ttl: 7200 })).body.status.token);
    const oldKid = decodeProtectedHeader(old).kid;

    fixture.nowMs = start + 23.5 * HOUR; // inside the prepublish window: two keys published, the old one still signs
    const published = await fixture.call('GET', '//openid/v1/jwks');
    // The DirectClusterEndpointTokens' RSA keys (the kube-config tokens' EC key is published beside them).
    expect(published.body.keys.filter((jwk: { kty: string }) => jwk.kty === 'RSA')).toHaveLength(2);
    expect(decodeProtectedHeader(String((await issue(fixture, fixture.adminKey, { ttl: 7200 })).body.status.token)).kid).toBe(oldKid);

    fixture.nowMs = start + 24.5 * HOUR; // the successor signs; the first token (issued at start, 2 h) is long expired
    const lastOfOld = String((await issue(fixture, fixture.adminKey)).body.status.token);
    expect(decodeProtectedHeader(lastOfOld).kid).not.toBe(oldKid);

    fixture.nowMs = start + 23.9 * HOUR; // a token the old key signed just before it retired...
    const late = String((await issue(fixture, fixture.adminKey, { ttl: 7200 })).body.status.token);
    expect(decodeProtectedHeader(late).kid).toBe(oldKid);
    fixture.nowMs = start + 25.5 * HOUR; // ...still verifies after the rotation, until it expires
    expect(await fixture.server.directTokens.verify(late)).toMatchObject({ ok: true });
    expect(await verifyOffline(fixture, late)).toMatchObject({ sub: 'admin' });

    fixture.nowMs = start + 26 * HOUR; // the old key's last token expired: the key is gone from the set
    const after = await fixture.call('GET', '//openid/v1/jwks');
    expect(after.body.keys.map((jwk: { kid: string }) => jwk.kid)).not.toContain(oldKid);
    expect(await fixture.server.directTokens.verify(late)).toMatchObject({ ok: false });
  });

  it('replicas on one storage (one configured issuer) sign with the same keys and accept each other\'s tokens; a restart keeps them', async () => {
    const tokens = { issuer: 'https://management.example.test' };
    const first = await ManagementFixture.start({ tokens });
    fixtures.push(first);
    const second = await ManagementFixture.start({ storage: first.storage, tokens });
    fixtures.push(second);
    second.nowMs = first.nowMs;
    const [a, b] = await Promise.all([issue(first, first.adminKey), issue(second, first.adminKey)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    const tokenA = String(a.body.status.token);
    const tokenB = String(b.body.status.token);
    expect(decodeProtectedHeader(tokenA).kid).toBe(decodeProtectedHeader(tokenB).kid);
    expect(await second.server.directTokens.verify(tokenA)).toMatchObject({ ok: true, user: { username: 'admin' } });
    expect(await first.server.directTokens.verify(tokenB)).toMatchObject({ ok: true, user: { username: 'admin' } });
    await first.server.close();
    const restarted = await ManagementFixture.start({ storage: first.storage });
    fixtures.push(restarted);
    const keySet = await restarted.call('GET', '//openid/v1/jwks');
    expect(keySet.body.keys.map((jwk: { kid: string }) => jwk.kid)).toContain(decodeProtectedHeader(tokenA).kid);
  });
});
