import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { realClusterMissing } from '../../support/kube-assets.js';
import { deferredCsrClient, KUBE_CONFIG_REQUEST_LABEL } from '../../../src/management/index.js';
import { KubectlEnv } from '../../support/kubectl.js';
import { ManagementFixture, type Answer } from '../../support/management-fixture.js';
import type { RealControlPlane } from '../../support/real-control-plane.js';
import { startTokenWebhookPlane, type TokenWebhookPlane } from '../../support/token-webhook-plane.js';
import { waitFor } from '../../support/wait-for.js';

const missing = realClusterMissing('VirtualClusterInstanceKubeConfig against the real kube-apiserver');
const KUBECONFIG_PATH = '/apis/management.loft.sh/v1/namespaces/vcluster-vc1/virtualclusterinstances/vc1/kubeconfig';

/**
 * Kube configs of the virtual cluster with the real kube-apiserver as the virtual cluster: token kube configs are
 * accepted through vcsync's TokenReview webhook, certificate kube configs are signed by
 * kube-controller-manager's kube-apiserver-client signer.
 */
describe.skipIf(missing)('VirtualClusterInstanceKubeConfig against the real kube-apiserver', () => {
  let management: ManagementFixture;
  let webhookPlane: TokenWebhookPlane;
  let plane: RealControlPlane;
  const late: { plane?: RealControlPlane } = {};
  const envs: KubectlEnv[] = [];

  beforeAll(async () => {
    management = await ManagementFixture.start({
      virtualCluster: {
        name: 'vc1',
        namespace: 'vcluster-vc1',
        ingressHost: () => 'vc1.example.test',
        get caCertPem(): string {
          return late.plane?.tls.caCertPem ?? '';
        },
        client: deferredCsrClient(() => (late.plane as RealControlPlane).adminClient),
        signingTimeoutMs: 60_000,
      },
    });
    webhookPlane = await startTokenWebhookPlane(management, { controllers: true, cacheTtlSeconds: 2 });
    plane = webhookPlane.plane;
    late.plane = plane;
    const admin = await KubectlEnv.forKubeconfig(plane.kubeconfigYaml, { prefix: 'kubeconfig-real-admin-', binary: plane.assets.kubectl });
    envs.push(admin);
    await admin.ok(['create', 'clusterrole', 'endpoints-reader', '--verb=get,list', '--resource=endpoints']);
    await admin.ok(['create', 'clusterrolebinding', 'endpoints-readers', '--clusterrole=endpoints-reader', '--group=management:admins', '--group=viewers']);
    // The real control plane has no Endpoints of its own (it advertises 127.0.0.1): one to list.
    await admin.ok(['create', '-f', '-'], toYaml({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'probe', namespace: 'default' }, subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 80 }] }] }));
  }, 240_000);
  afterAll(async () => {
    for (const env of envs) await env.remove();
    await webhookPlane?.close();
    await management?.stop();
  });

  const request = (key: string, spec: Record<string, unknown>): Promise<Answer> =>
    management.call('POST', KUBECONFIG_PATH, { key, contentType: 'application/yaml', body: toYaml({ apiVersion: 'management.loft.sh/v1', kind: 'VirtualClusterInstanceKubeConfig', spec }) });

  async function kubectlWith(answer: Answer): Promise<KubectlEnv> {
    expect(answer.status, answer.text).toBe(201);
    const env = await KubectlEnv.forKubeconfig(String(answer.body.status.kubeConfig), { prefix: 'kubeconfig-real-returned-', binary: plane.assets.kubectl });
    envs.push(env);
    return env;
  }

  it('clientCert false: the token in the kube config is accepted through the webhook; get endpoints -A works', async () => {
    const env = await kubectlWith(await request(management.adminKey, { server: plane.url }));
    expect(JSON.parse(await env.ok(['auth', 'whoami', '-o', 'json'])).status.userInfo.username).toBe('admin');
    expect(await env.ok(['get', 'endpoints', '-A', '-o', 'name'])).toContain('endpoints/probe');
  });

  it('clientCert true: kube-controller-manager signs the certificate vcsync asked for; get endpoints -A works as the caller\'s user and groups', async () => {
    const key = await management.newKey('dana-key', { user: 'dana', groups: ['viewers'] });
    const answer = await request(key, { clientCert: true, certificateTTL: 3600, server: plane.url });
    const env = await kubectlWith(answer);
    const user = (parseYaml(String(answer.body.status.kubeConfig)) as { users: { user: Record<string, string> }[] }).users[0]?.user ?? {};
    const certificate = new X509Certificate(Buffer.from(user['client-certificate-data'] ?? '', 'base64'));
    expect(certificate.subject).toContain('CN=dana');
    expect(Date.parse(certificate.validTo) - Date.parse(certificate.validFrom)).toBeLessThanOrEqual(3600_000 + 10 * 60_000);
    expect(JSON.parse(await env.ok(['auth', 'whoami', '-o', 'json'])).status.userInfo).toMatchObject({ username: 'dana', groups: expect.arrayContaining(['viewers']) });
    expect(await env.ok(['get', 'endpoints', '-A', '-o', 'name'])).toContain('endpoints/probe');
    // vcsync deletes the requests it made (its batch as a collection, by its label).
    await waitFor('vcsync\'s certificate signing requests to be deleted', async () => {
      const csrs = await plane.adminClient.list('/apis/certificates.k8s.io/v1/certificatesigningrequests', { labelSelector: KUBE_CONFIG_REQUEST_LABEL });
      return csrs.items.length === 0;
    }, { timeoutMs: 30_000 });
  });
});
