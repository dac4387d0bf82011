import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { startDevCluster, type DevCluster } from '../../../src/devcluster/index.js';
import type { RestClient } from '../../../src/kube/rest-client.js';
import { deferredCsrClient } from '../../../src/management/index.js';
import { KubectlEnv, kubectlMissing } from '../../support/kubectl.js';
import { KEYS_PATH, ManagementFixture, type Answer } from '../../support/management-fixture.js';
import { clientFor } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';

const missing = kubectlMissing('VirtualClusterInstanceKubeConfig with kubectl');
const KUBECONFIG_PATH = '/apis/management.loft.sh/v1/namespaces/vcluster-vc1/virtualclusterinstances/vc1/kubeconfig';

interface KubeConfigDocument {
  clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { name: string; user: Record<string, string> }[];
  contexts: { name: string; context: { cluster: string; user: string } }[];
  'current-context': string;
}

/**
 * Kube configs of the virtual cluster against a TLS devcluster as the virtual cluster: it signs client certificates
 * through its CSR API and authenticates tokens through the management API's token review.
 */
describe.skipIf(missing)('VirtualClusterInstanceKubeConfig against a TLS devcluster', () => {
  let management: ManagementFixture;
  let cluster: DevCluster;
  let client: RestClient;
  let dir: string;
  let ingress: string | undefined = 'vc1.example.test';
  const envs: KubectlEnv[] = [];

  beforeAll(async () => {
    const late: { cluster?: DevCluster; client?: RestClient } = {};
    management = await ManagementFixture.start({
      virtualCluster: {
        name: 'vc1',
        namespace: 'vcluster-vc1',
        ingressHost: () => ingress,
        get caCertPem(): string {
          return Buffer.from(late.cluster?.kubeConfig.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString('utf8');
        },
        client: deferredCsrClient(() => (late.client as RestClient)),
      },
    });
    dir = await mkdtemp(join(tmpdir(), 'kubeconfig-virtual-'));
    cluster = await startDevCluster({ port: 0, tls: { dir }, tokenReviewUrl: management.server.tokenReviewUrl, tokenReviewCaPem: management.tls.caCertPem, tokenReviewCacheTtlMs: 1000 });
    late.cluster = cluster;
    client = clientFor(cluster, 'virtual-admin');
    late.client = client;
  });
  afterAll(async () => {
    for (const env of envs) await env.remove();
    client?.close();
    await cluster?.close();
    await management?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  const request = (key: string, spec: Record<string, unknown> = {}, path = KUBECONFIG_PATH): Promise<Answer> =>
    management.call('POST', path, { key, contentType: 'application/yaml', body: toYaml({ apiVersion: 'management.loft.sh/v1', kind: 'VirtualClusterInstanceKubeConfig', spec }) });

  /** The returned kube config pointed at the devcluster (the ingress host is not resolvable here: `server` overrides it). */
  async function kubectlWith(kubeConfig: string): Promise<KubectlEnv> {
    const env = await KubectlEnv.forKubeconfig(kubeConfig, { prefix: 'returned-kubeconfig-' });
    envs.push(env);
    return env;
  }

  it('the kube config has the ingress address, the CA, a user "vcluster" and a current context; clientCert false is a token the virtual cluster accepts', async () => {
    const answer = await request(management.adminKey);
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toMatchObject({ apiVersion: 'management.loft.sh/v1', kind: 'VirtualClusterInstanceKubeConfig', metadata: { namespace: 'vcluster-vc1' } });
    const config = parseYaml(String(answer.body.status.kubeConfig)) as KubeConfigDocument;
    expect(config.clusters[0]?.cluster.server).toBe('https://vc1.example.test');
    expect(Buffer.from(config.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString('utf8')).toContain('BEGIN CERTIFICATE');
    expect(config.users.map((user) => user.name)).toEqual(['vcluster']);
    expect(config['current-context']).toBe(config.contexts[0]?.name);
    expect(config.contexts[0]?.context).toEqual({ cluster: 'vc1', user: 'vcluster' });
    expect(Object.keys(config.users[0]?.user ?? {})).toEqual(['token']);
    // An ES256 JWT of its own key ring, published beside the DirectClusterEndpointTokens' keys.
    const token = config.users[0]?.user['token'] ?? '';
    expect(decodeProtectedHeader(token).alg).toBe('ES256');
    const keySet = await management.call('GET', '//openid/v1/jwks');
    const { payload } = await jwtVerify(token, createLocalJWKSet(keySet.body as JSONWebKeySet), { issuer: management.server.issuer, audience: 'vcsync-direct-cluster-endpoint' });
    expect(payload.sub).toBe('admin');

    const pointed = await request(management.adminKey, { server: cluster.url });
    const env = await kubectlWith(String(pointed.body.status.kubeConfig));
    const whoami = JSON.parse(await env.ok(['auth', 'whoami', '-o', 'json'])) as { status: { userInfo: { username: string; groups: string[] } } };
    expect(whoami.status.userInfo.username).toBe('admin');
    expect(await env.ok(['get', 'endpoints', '-A', '-o', 'name'])).toContain('endpoints/kubernetes');
  });

  it('clientCert true: a fresh key and a certificate the virtual cluster signed through its CSR API, for the caller\'s user and groups, certificateTTL honoured', async () => {
    const key = await management.newKey('dana-key', { user: 'dana', groups: ['viewers'] });
    const answer = await request(key, { clientCert: true, certificateTTL: 3600, server: cluster.url });
    expect(answer.status, answer.text).toBe(201);
    const config = parseYaml(String(answer.body.status.kubeConfig)) as KubeConfigDocument;
    const user = config.users[0]?.user ?? {};
    expect(Object.keys(user).sort()).toEqual(['client-certificate-data', 'client-key-data']);
    const certificate = new X509Certificate(Buffer.from(user['client-certificate-data'] ?? '', 'base64'));
    expect(certificate.subject).toContain('CN=dana');
    expect(certificate.subject).toContain('O=viewers');
    const lifetimeMs = Date.parse(certificate.validTo) - Date.parse(certificate.validFrom);
    expect(lifetimeMs).toBeGreaterThanOrEqual(3600_000);
    expect(lifetimeMs).toBeLessThanOrEqual(3600_000 + 10 * 60_000); // the signer backdates notBefore a few minutes
    const env = await kubectlWith(String(answer.body.status.kubeConfig));
    const whoami = JSON.parse(await env.ok(['auth', 'whoami', '-o', 'json'])) as { status: { userInfo: { username: string; groups: string[] } } };
    expect(whoami.status.userInfo).toMatchObject({ username: 'dana', groups: expect.arrayContaining(['viewers', 'system:authenticated']) });
    // vcsync cleans up the request it made (its batch is deleted within a fraction of a second).
    await waitFor('the certificate signing request to be deleted', async () => {
      const csrs = await client.get<{ items: unknown[] }>('/apis/certificates.k8s.io/v1/certificatesigningrequests');
      return csrs.items.length === 0;
    }, { timeoutMs: 15_000 });
  });

  it('certificateTTL the API refuses is 422 with the reason; 0 asks for no duration (the signer\'s default applies)', async () => {
    const short = await request(management.adminKey, { clientCert: true, certificateTTL: 300 });
    expect(short.status).toBe(422);
    expect(short.body).toMatchObject({ kind: 'Status', reason: 'Invalid', details: { causes: [{ field: 'spec.certificateTTL' }] } });
    expect(short.body.message).toContain('600');
    const signerDefault = await request(management.adminKey, { clientCert: true, certificateTTL: 0 });
    expect(signerDefault.status, signerDefault.text).toBe(201);
    const user = (parseYaml(String(signerDefault.body.status.kubeConfig)) as KubeConfigDocument).users[0]?.user ?? {};
    const certificate = new X509Certificate(Buffer.from(user['client-certificate-data'] ?? '', 'base64'));
    expect(Date.parse(certificate.validTo) - Date.now()).toBeGreaterThan(300 * 86_400_000); // one year, devcluster's signing duration
  });

  it('another instance is 404; an out-of-scope key 403; no ingress configured is a 400 that says what to set; a disabled key\'s token stops working', async () => {
    expect((await request(management.adminKey, {}, KUBECONFIG_PATH.replace('/vc1/', '/other/'))).status).toBe(404);
    expect((await request(management.adminKey, {}, KUBECONFIG_PATH.replace('vcluster-vc1', 'elsewhere'))).status).toBe(404);
    const elsewhere = await management.newKey('erin-key', { user: 'erin', scope: { virtualClusters: [{ project: 'vcluster-vc1', virtualCluster: 'vc2' }] } });
    const refused = await request(elsewhere, { server: cluster.url });
    expect(refused.status).toBe(403);
    const reaching = await management.newKey('erin-vc1-key', { user: 'erin', scope: { virtualClusters: [{ project: 'vcluster-vc1', virtualCluster: 'vc1' }] } });
    expect((await request(reaching, { server: cluster.url })).status).toBe(201);

    ingress = undefined;
    try {
      const none = await request(management.adminKey);
      expect(none.status).toBe(400);
      expect(none.body.message).toContain('controlPlane.ingress.enabled: true');
      expect(none.body.message).toContain('controlPlane.ingress.host');
    } finally {
      ingress = 'vc1.example.test';
    }

    const frank = await management.newKey('frank-key', { user: 'frank' });
    const config = String((await request(frank, { server: cluster.url })).body.status.kubeConfig);
    const env = await kubectlWith(config);
    expect(JSON.parse(await env.ok(['auth', 'whoami', '-o', 'json'])).status.userInfo.username).toBe('frank');
    const disabled = await management.call('PATCH', `${KEYS_PATH}/frank-key`, { key: management.adminKey, contentType: 'application/merge-patch+json', body: { spec: { disabled: true } } });
    expect(disabled.status).toBe(200);
    // The devcluster caches webhook answers for 1 s.
    const result = await waitFor('the disabled key\'s kube config to be refused', async () => {
      const run = await env.run(['auth', 'whoami']);
      return run.code !== 0 ? run : undefined;
    }, { timeoutMs: 15_000, intervalMs: 200 });
    expect(result.stderr).toMatch(/Unauthorized|must be logged in/);
  });
});
