import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevCluster, type DevCluster } from '../../src/devcluster/index.js';
import { buildKubeConfig, kubeConfigYaml } from '../../src/devcluster/kube-config.js';
import { KUBE_ASSETS_ENV, readKubeAssets } from '../support/kube-assets.js';
import { KubectlEnv, kubectlMissing } from '../support/kubectl.js';
import { ManagementFixture } from '../support/management-fixture.js';

const TOKENS = '/kubernetes/management/apis/management.loft.sh/v1/directclusterendpointtokens';

/** The smallest DirectClusterEndpointToken request: empty metadata and spec. */
const TOKEN_REQUEST = 'apiVersion: management.loft.sh/v1\nkind: DirectClusterEndpointToken\nmetadata: {}\nspec: {}\n';

/** kubectl 1.32 on PATH, and the kube-assets kubectl when it is built. */
const KUBECTLS: Array<[string, string]> = [['kubectl on PATH', 'kubectl']];
if (process.env[KUBE_ASSETS_ENV] !== undefined) KUBECTLS.push(['the kube-assets kubectl', readKubeAssets().kubectl]);

describe.skipIf(kubectlMissing('kubectl as users type it')).each(KUBECTLS)('kubectl as users type it, %s', (_label, binary) => {
  let fixture: ManagementFixture;
  let management: KubectlEnv;
  let cluster: DevCluster;
  let devcluster: KubectlEnv;
  let tlsDir: string | undefined;
  beforeAll(async () => {
    fixture = await ManagementFixture.start();
    management = await KubectlEnv.forKubeconfig(kubeConfigYaml(buildKubeConfig({ name: 'management', server: fixture.server.url, caCertPem: fixture.tls.caCertPem, token: fixture.adminKey })), {
      prefix: 'kubectl-as-typed-management-',
      binary,
    });
    // A devcluster that authenticates access keys through the management API's TokenReview webhook
    // (over TLS: kubectl sends no bearer token to a plain-http server).
    tlsDir = await mkdtemp(join(tmpdir(), 'kubectl-as-typed-tls-'));
    cluster = await startDevCluster({ port: 0, tls: { dir: tlsDir }, tokenReviewUrl: fixture.server.tokenReviewUrl, tokenReviewCaPem: fixture.tls.caCertPem });
    const caPem = Buffer.from(cluster.kubeConfig.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString('utf8');
    devcluster = await KubectlEnv.forKubeconfig(kubeConfigYaml(buildKubeConfig({ name: 'devcluster', server: cluster.url, caCertPem: caPem, token: fixture.adminKey })), {
      prefix: 'kubectl-as-typed-devcluster-',
      binary,
    });
  });
  afterAll(async () => {
    await devcluster?.remove();
    await cluster?.close();
    if (tlsDir !== undefined) await rm(tlsDir, { recursive: true, force: true });
    await management?.remove();
    await fixture?.stop();
  });

  /**
   * The listener's root URL, for `create --raw` with the full path: kubectl 1.32 sends a raw path
   * as given, later ones below the server URL's own path (the management base path).
   */
  const listenerRoot = (): string => new URL(fixture.server.url).origin;

  describe('the management API', () => {
    it('kubectl create -f of a DirectClusterEndpointToken passes kubectl’s default (strict) validation and prints the token', async () => {
      const file = await management.file('token.yaml', TOKEN_REQUEST);
      const token = await management.ok(['create', '-f', file, '-o', 'jsonpath={.status.token}']);
      expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    });

    it('the validation is real: kubectl refuses an unknown field of a DirectClusterEndpointToken from the OpenAPI v2 schema, before sending it', async () => {
      const file = await management.file('bogus-token.yaml', `${TOKEN_REQUEST.replace('spec: {}', 'spec:\n  ttl: 60\n  bogus: 1')}`);
      const result = await management.run(['create', '-f', file, '-v=6']);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/unknown field "bogus"/);
      expect(result.stderr).not.toMatch(/POST .*directclusterendpointtokens/);
    });

    it('kubectl create --raw -f body.json (no Content-Type) creates a token', async () => {
      const body = await management.file('token.json', JSON.stringify({ apiVersion: 'management.loft.sh/v1', kind: 'DirectClusterEndpointToken', metadata: {}, spec: {} }));
      const answer = JSON.parse(await management.ok(['--server', listenerRoot(), 'create', '--raw', TOKENS, '-f', body])) as { kind: string; status: { token: string } };
      expect(answer.kind).toBe('DirectClusterEndpointToken');
      expect(answer.status.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    });

    it('kubectl auth can-i --list: an admin key may do everything, a platformCLI key reads management objects and discovery', async () => {
      const all = await management.ok(['auth', 'can-i', '--list']);
      expect(all).toMatch(/^ownedaccesskeys\.management\.loft\.sh\s+\[\]\s+\[\]\s+\[create delete deletecollection get list patch update watch\]$/m);
      expect(all).toMatch(/^\s+\[\*\]\s+\[\]\s+\[\*\]$/m);
      const narrow = await fixture.newKey('cli-lister', { user: 'lister', scope: { roles: [{ role: 'platformCLI' }] } });
      const listed = await management.ok(['--token', narrow, 'auth', 'can-i', '--list']);
      expect(listed).toMatch(/^ownedaccesskeys\.management\.loft\.sh\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
      expect(listed).not.toMatch(/create/);
      expect(listed).toMatch(/^\s+\[\/apis\/\*\]\s+\[\]\s+\[get\]$/m);
      expect(listed).toMatch(/^\s+\[\/version\]\s+\[\]\s+\[head\]$/m);
    });

    it('a key scoped to one virtual cluster runs kubectl api-resources and explain (discovery is every key’s), and can-i --list says its rules are incomplete', async () => {
      const scoped = await fixture.newKey('one-vcluster', { user: 'vc-user', scope: { virtualClusters: [{ project: 'team', virtualCluster: 'vc1' }] } });
      const resources = await management.ok(['--token', scoped, 'api-resources']);
      expect(resources).toMatch(/^ownedaccesskeys\s+management\.loft\.sh\/v1\s+false\s+OwnedAccessKey$/m);
      expect(await management.ok(['--token', scoped, 'explain', 'directclusterendpointtokens.spec.ttl'])).toContain('ttl');
      const review = JSON.parse(
        await management.ok(['--token', scoped, '--server', listenerRoot(), 'create', '--raw', '/kubernetes/management/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', '-f', await management.file('rules.json', JSON.stringify({ spec: { namespace: 'default' } }))]),
      ) as { status: { incomplete: boolean; nonResourceRules: Array<{ nonResourceURLs: string[] }> } };
      expect(review.status.incomplete).toBe(true);
      expect(review.status.nonResourceRules[0]?.nonResourceURLs).toContain('/apis/*');
      // Discovery is all it gained: the objects stay out of reach.
      const listed = await management.run(['--token', scoped, 'get', 'ownedaccesskeys']);
      expect(listed.stderr).toMatch(/Forbidden/);
    });
  });

  describe('a devcluster', () => {
    it('kubectl create --raw -f body.json (no Content-Type) creates a ConfigMap', async () => {
      const body = await devcluster.file('cm.json', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'raw' }, data: { a: '1' } }));
      const created = JSON.parse(await devcluster.ok(['create', '--raw', '/api/v1/namespaces/default/configmaps', '-f', body])) as { metadata: { name: string } };
      expect(created.metadata.name).toBe('raw');
      expect(await devcluster.ok(['get', 'configmap', 'raw', '-o', 'jsonpath={.data.a}'])).toBe('1');
    });

    it('kubectl auth can-i --list answers that everything is allowed (the devcluster has no authorization)', async () => {
      const listed = await devcluster.ok(['auth', 'can-i', '--list']);
      expect(listed).toMatch(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
      expect(listed).toMatch(/^\s+\[\*\]\s+\[\]\s+\[\*\]$/m);
    });

    it('kubectl auth whoami shows the extra attributes the TokenReview webhook answered for an access key', async () => {
      const whoami = JSON.parse(await devcluster.ok(['auth', 'whoami', '-o', 'json'])) as { status: { userInfo: { username: string; extra?: Record<string, string[]> } } };
      expect(whoami.status.userInfo.username).toBe('admin');
      expect(whoami.status.userInfo.extra?.['vcsync.dev/access-key']).toEqual(['vcsync-bootstrap-admin']);
      const table = await devcluster.ok(['auth', 'whoami']);
      expect(table).toMatch(/Extra: vcsync\.dev\/access-key\s+\[vcsync-bootstrap-admin\]/);
    });

    it('kubectl create -f falls back to the OpenAPI v2 document as protobuf for a group the v3 index lacks, and gets it', async () => {
      const file = await devcluster.file('review.yaml', 'apiVersion: authorization.k8s.io/v1\nkind: SelfSubjectAccessReview\nspec:\n  resourceAttributes:\n    verb: list\n    resource: pods\n');
      const result = await devcluster.run(['create', '-f', file, '-v=6']);
      // kubectl 1.32 logs `GET <url> 200 OK`, later ones `verb="GET" url="<url>" status="200 OK"`.
      expect(result.stderr).toMatch(/\/openapi\/v2\?\S*\s+(?:status=")?200 OK/);
      expect(result.stderr).not.toMatch(/failed to download openapi/);
    });
  });
});
