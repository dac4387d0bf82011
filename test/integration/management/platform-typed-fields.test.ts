import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deferredCsrClient } from '../../../src/management/index.js';
import { KEYS_PATH, ManagementFixture, type Answer } from '../../support/management-fixture.js';

/**
 * What the Platform's typed clients (client-go on loft-sh/api's types) send and must
 * be able to decode. Each case failed before: a field the real types put elsewhere was dropped
 * (with only a warning a typed client never sees), or a value their Go types cannot hold was
 * stored and echoed.
 */
const TOKENS_PATH = '/apis/management.loft.sh/v1/directclusterendpointtokens';
const KUBECONFIG_PATH = '/apis/management.loft.sh/v1/namespaces/vcluster-vc1/virtualclusterinstances/vc1/kubeconfig';
const MERGE = 'application/merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

/** The causes of a 422 answer as `field reason` lines. */
function causes(answer: Answer): string[] {
  return ((answer.body?.details?.causes ?? []) as { field: string; reason: string }[]).map((cause) => `${cause.field} ${cause.reason}`);
}

describe('management fields as the Platform typed clients write them', () => {
  let fixture: ManagementFixture;
  let counter = 0;
  const fresh = (): string => `typed-${(counter += 1)}`;

  beforeAll(async () => {
    fixture = await ManagementFixture.start({
      virtualCluster: {
        name: 'vc1',
        namespace: 'vcluster-vc1',
        ingressHost: () => 'vc1.example.test',
        caCertPem: '',
        // These tests ask for token kube configs only: no certificate is ever signed.
        client: deferredCsrClient(() => {
          throw new Error('no CertificateSigningRequest in these tests');
        }),
      },
    });
  });
  afterAll(async () => {
    await fixture?.stop();
  });

  /** Whether the key `name` is stored. */
  async function stored(name: string): Promise<boolean> {
    return (await fixture.call('GET', `${KEYS_PATH}/${name}`, { key: fixture.adminKey })).status === 200;
  }

  it('spec.scope.allowLoftCli is the CLI allowance: kept, and a key with only it reads but cannot create or delete keys', async () => {
    const created = await fixture.createKey({ user: 'admin', groups: ['management:admins'], scope: { allowLoftCli: true } }, { name: 'cli-only' });
    expect(created.status, created.text).toBe(201);
    expect(created.headers['warning']).toBeUndefined();
    expect(created.body.spec.scope).toEqual({ allowLoftCli: true });
    const key = created.body.spec.key as string;
    expect((await fixture.call('GET', KEYS_PATH, { key })).status).toBe(200);
    expect((await fixture.call('GET', '/version', { key })).status).toBe(200);
    const create = await fixture.createKey({ user: 'admin' }, { key, name: fresh() });
    expect(create.status, create.text).toBe(403);
    expect((await fixture.call('DELETE', `${KEYS_PATH}/cli-only`, { key })).status).toBe(403);
    expect(await stored('cli-only')).toBe(true);
  });

  it('a caller without the CLI allowance cannot write a key with allowLoftCli (it would reach further)', async () => {
    const narrow = await fixture.newKey('project-only', { user: 'admin', groups: ['management:admins'], scope: { projects: [{ project: 'p1' }], rules: [{ resources: [{ group: 'management.loft.sh' }] }] } });
    const name = fresh();
    const answer = await fixture.createKey({ user: 'admin', scope: { projects: [{ project: 'p1' }], allowLoftCli: true } }, { key: narrow, name });
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body.message).toContain('spec.scope.allowLoftCli');
    expect(await stored(name)).toBe(false);
  });

  it.each([
    ['at scope level', { allowAll: true }, 'spec.scope.allowAll'],
    ['in a roles entry', { roles: [{ role: 'platformCLI', clusters: ['c1'] }] }, 'spec.scope.roles[0].clusters'],
    ['in a rule', { rules: [{ verbs: ['get'], notVerbs: ['delete'] }] }, 'spec.scope.rules[0].notVerbs'],
    ['in a rule resources entry', { rules: [{ resources: [{ group: '', resources: ['pods'], except: ['secrets'] }] }] }, 'spec.scope.rules[0].resources[0].except'],
    ['in a projects entry', { projects: [{ project: 'p1', readOnly: true }] }, 'spec.scope.projects[0].readOnly'],
  ])('an unknown field %s of spec.scope is refused (422) whatever fieldValidation says; nothing is stored', async (_where, scope, field) => {
    for (const mode of ['', '?fieldValidation=Ignore', '?fieldValidation=Warn', '?fieldValidation=Strict']) {
      const name = fresh();
      const answer = await fixture.call('POST', `${KEYS_PATH}${mode}`, { key: fixture.adminKey, body: { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name }, spec: { user: 'bob', scope } } });
      expect({ mode, status: answer.status, causes: causes(answer) }).toEqual({ mode, status: 422, causes: [`${field} FieldValueForbidden`] });
      expect(answer.body.message).toContain('unknown field');
      expect(await stored(name)).toBe(false);
    }
  });

  it('an unknown scope field is refused by merge patch, apply and on DirectClusterEndpointToken too; the key keeps its scope', async () => {
    const name = fresh();
    expect((await fixture.createKey({ user: 'bob', scope: { projects: [{ project: 'p1' }] } }, { name })).status).toBe(201);
    const patched = await fixture.call('PATCH', `${KEYS_PATH}/${name}?fieldValidation=Ignore`, { key: fixture.adminKey, contentType: MERGE, body: { spec: { scope: { projects: [{ project: 'p1', everything: true }] } } } });
    expect(causes(patched)).toEqual(['spec.scope.projects[0].everything FieldValueForbidden']);
    const applied = await fixture.call('PATCH', `${KEYS_PATH}/${name}?fieldManager=t&force=true`, {
      key: fixture.adminKey,
      contentType: APPLY,
      body: JSON.stringify({ apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name }, spec: { user: 'bob', scope: { unrestricted: true } } }),
    });
    expect(causes(applied)).toEqual(['spec.scope.unrestricted FieldValueForbidden']);
    const read = await fixture.call('GET', `${KEYS_PATH}/${name}`, { key: fixture.adminKey });
    expect(read.body.spec.scope).toEqual({ projects: [{ project: 'p1' }] });
    const token = await fixture.call('POST', `${TOKENS_PATH}?fieldValidation=Ignore`, { key: fixture.adminKey, body: { apiVersion: 'management.loft.sh/v1', kind: 'DirectClusterEndpointToken', spec: { scope: { rules: [{ bogus: 1 }] } } } });
    expect(causes(token)).toEqual(['spec.scope.rules[0].bogus FieldValueForbidden']);
  });

  it.each([
    ['spec.oidcLogin.idToken', { oidcLogin: { idToken: 'not base64!' } }],
    ['spec.oidcLogin.accessToken', { oidcLogin: { accessToken: 'abc' } }],
    ['spec.oidcLogin.refreshToken', { oidcLogin: { refreshToken: 'a-b_c===' } }],
    ['spec.identity.connectorData', { identity: { connectorData: 'upstream-refresh-token' } }],
  ])('%s is a Go []byte: a value that is not base64 is refused (422 naming it, without repeating it)', async (field, spec) => {
    const name = fresh();
    const answer = await fixture.createKey({ user: 'bob', ...spec }, { name });
    expect({ status: answer.status, causes: causes(answer) }).toEqual({ status: 422, causes: [`${field} FieldValueInvalid`] });
    expect(answer.body.message).toContain('base64');
    expect(answer.text).not.toContain(Object.values(Object.values(spec)[0] as Record<string, string>)[0]);
    expect(await stored(name)).toBe(false);
  });

  it('base64 []byte fields, spec.identityRefresh at spec level and the real requestTargets are accepted and echoed', async () => {
    const spec = {
      user: 'bob',
      identityRefresh: '2026-01-02T03:04:05Z',
      oidcLogin: { idToken: Buffer.from('id-token').toString('base64'), accessToken: 'YQ==', refreshToken: 'YWI=', lastRefresh: '2026-01-01T00:00:00Z' },
      identity: { connectorData: Buffer.from('upstream').toString('base64'), identityRefresh: '2026-01-01T00:00:00Z' },
      scope: { rules: [{ requestTargets: ['Management', 'Cluster', 'ProjectSpace', 'ProjectVirtualCluster'] }] },
    };
    const answer = await fixture.createKey(spec, { name: 'accepted' });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.headers['warning']).toBeUndefined();
    const read = await fixture.call('GET', `${KEYS_PATH}/accepted`, { key: fixture.adminKey });
    expect(read.body.spec).toMatchObject({ identityRefresh: spec.identityRefresh, oidcLogin: spec.oidcLogin, scope: spec.scope, identity: { identityRefresh: '2026-01-01T00:00:00Z' } });
  });

  it('spec.type is one of the real values; anything else is refused, listing them', async () => {
    for (const type of ['', 'Login', 'User', 'Other', 'Reset', 'OIDCRefreshToken', 'NetworkPeer', 'Workspace']) {
      expect((await fixture.createKey({ user: 'bob', type }, { name: fresh() })).status).toBe(201);
    }
    const answer = await fixture.createKey({ user: 'bob', type: 'Bogus' }, { name: fresh() });
    expect(causes(answer)).toEqual(['spec.type FieldValueNotSupported']);
    expect(answer.body.message).toContain('supported values: "", "Login", "User", "Other", "Reset", "OIDCRefreshToken", "NetworkPeer", "Workspace"');
  });

  it('integers fit their Go types: spec.ttl (int64) and certificateTTL (*int32)', async () => {
    const ttl = await fixture.createKey({ user: 'bob', ttl: 2 ** 63 }, { name: fresh() });
    expect(causes(ttl)).toEqual(['spec.ttl FieldValueInvalid']);
    expect((await fixture.createKey({ user: 'bob', ttl: Number.MAX_SAFE_INTEGER }, { name: fresh() })).status).toBe(201);
    const body = (certificateTTL: number): unknown => ({ apiVersion: 'management.loft.sh/v1', kind: 'VirtualClusterInstanceKubeConfig', metadata: { name: 'vc1', namespace: 'vcluster-vc1' }, spec: { certificateTTL } });
    const tooLong = await fixture.call('POST', KUBECONFIG_PATH, { key: fixture.adminKey, body: body(3_000_000_000) });
    expect({ status: tooLong.status, causes: causes(tooLong) }).toEqual({ status: 422, causes: ['spec.certificateTTL FieldValueInvalid'] });
    expect(tooLong.body.message).toContain('2147483647');
    const longest = await fixture.call('POST', KUBECONFIG_PATH, { key: fixture.adminKey, body: body(2 ** 31 - 1) });
    expect(longest.status, longest.text).toBe(201);
    expect(longest.body.spec.certificateTTL).toBe(2 ** 31 - 1);
  });

  it('a namespace sent on a cluster-scoped object is cleared, as kube-apiserver does (create, update, patch, apply, token)', async () => {
    const name = fresh();
    const created = await fixture.call('POST', KEYS_PATH, { key: fixture.adminKey, body: { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name, namespace: 'default' }, spec: { user: 'bob' } } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.metadata.namespace).toBeUndefined();
    const read = await fixture.call('GET', `${KEYS_PATH}/${name}`, { key: fixture.adminKey });
    const updated = await fixture.call('PUT', `${KEYS_PATH}/${name}`, { key: fixture.adminKey, body: { ...read.body, metadata: { ...read.body.metadata, namespace: 'team-a' }, spec: { ...read.body.spec, displayName: 'x' } } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.metadata.namespace).toBeUndefined();
    const patched = await fixture.call('PATCH', `${KEYS_PATH}/${name}`, { key: fixture.adminKey, contentType: MERGE, body: { metadata: { namespace: 'team-a' } } });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.metadata.namespace).toBeUndefined();
    const applyName = fresh();
    const applied = await fixture.call('PATCH', `${KEYS_PATH}/${applyName}?fieldManager=t`, {
      key: fixture.adminKey,
      contentType: APPLY,
      body: JSON.stringify({ apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name: applyName, namespace: 'default' }, spec: { user: 'bob' } }),
    });
    expect(applied.status, applied.text).toBe(201);
    expect(applied.body.metadata.namespace).toBeUndefined();
    const token = await fixture.call('POST', TOKENS_PATH, { key: fixture.adminKey, body: { apiVersion: 'management.loft.sh/v1', kind: 'DirectClusterEndpointToken', metadata: { namespace: 'default' }, spec: {} } });
    expect(token.status, token.text).toBe(201);
    expect(token.body.metadata.namespace).toBeUndefined();
  });
});
