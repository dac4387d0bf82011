import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signClientCertificateRequest } from '../../src/apiserver/security/client-certificate-authority.js';
import { ensureTlsAssets } from '../../src/apiserver/security/tls-assets.js';
import { startDevCluster, type DevCluster } from '../../src/devcluster/index.js';
import { buildKubeConfig, kubeConfigYaml } from '../../src/devcluster/kube-config.js';
import { certificateSigningRequest, createClientRequest, type ClientRequest } from '../support/certificate-requests.js';
import { KubectlEnv, kubectlMissing } from '../support/kubectl.js';
import { waitFor } from '../support/wait-for.js';

const missing = kubectlMissing('the devcluster certificate signing e2e tests');

/** The devcluster's longest certificate in these tests: ten hours. */
const MAX_DURATION_MS = 10 * 60 * 60 * 1000;
const MINUTE_MS = 60_000;

describe.skipIf(missing)('devcluster signs approved CSRs for kubernetes.io/kube-apiserver-client with its client CA (kubectl over HTTPS)', () => {
  let tlsDir: string;
  let cluster: DevCluster;
  let admin: KubectlEnv;
  const envs: KubectlEnv[] = [];
  beforeAll(async () => {
    tlsDir = await mkdtemp(join(tmpdir(), 'devcluster-csr-tls-'));
    cluster = await startDevCluster({ tls: { dir: tlsDir }, clusterSigningDurationMs: MAX_DURATION_MS });
    admin = await KubectlEnv.create(cluster);
    envs.push(admin);
  });
  afterAll(async () => {
    await cluster?.close();
    for (const env of envs) await env.remove();
    if (tlsDir !== undefined) await rm(tlsDir, { recursive: true, force: true });
  });

  /** Creates the CSR with `kubectl create -f`, approves it with `kubectl certificate approve`. */
  async function requestApproved(name: string, client: ClientRequest, spec: Record<string, unknown> = {}): Promise<void> {
    const file = await admin.file(`${name}.json`, JSON.stringify(certificateSigningRequest(name, client.csrPem, spec)));
    expect(await admin.ok(['create', '-f', file])).toBe(`certificatesigningrequest.certificates.k8s.io/${name} created\n`);
    expect(await admin.ok(['certificate', 'approve', name])).toBe(`certificatesigningrequest.certificates.k8s.io/${name} approved\n`);
  }

  async function issuedCertificate(name: string): Promise<string> {
    const encoded = await waitFor(`the certificate of ${name}`, async () => (await admin.ok(['get', 'csr', name, '-o', 'jsonpath={.status.certificate}'])) || undefined);
    return Buffer.from(encoded, 'base64').toString();
  }

  /** The HTTP status of `GET /api/v1/endpoints` with this client certificate. */
  function statusWith(certPem: string, keyPem: string): Promise<number> {
    const ca = Buffer.from(cluster.kubeConfig.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString();
    return new Promise<number>((resolve, reject) => {
      const request = httpsRequest(`${cluster.url}/api/v1/endpoints`, { ca, cert: certPem, key: keyPem }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end();
    });
  }

  it('issues a certificate kubectl then uses: CN/O from the request, clientAuth, expirationSeconds honoured', async () => {
    const client = await createClientRequest('jane', ['dev', 'ops']);
    const before = Date.now();
    await requestApproved('jane', client, { expirationSeconds: 3600 });
    const certificatePem = await issuedCertificate('jane');
    const certificate = new X509Certificate(certificatePem);
    expect(certificate.subject).toBe('CN=jane\nO=dev\nO=ops');
    expect(certificate.checkIssued(new X509Certificate(cluster.kubeConfig.clusters[0] ? Buffer.from(cluster.kubeConfig.clusters[0].cluster['certificate-authority-data'] ?? '', 'base64') : ''))).toBe(true);
    expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    // A short lifetime: notAfter = signing time + 3600 s, not backdated; notBefore five minutes back.
    expect(Date.parse(certificate.validTo) - Date.parse(certificate.validFrom)).toBe((3600 + 5 * 60) * 1000);
    const notAfter = Date.parse(certificate.validTo);
    expect(notAfter).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(notAfter).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);
    // The requester is the admin who created it.
    expect(await admin.ok(['get', 'csr', 'jane', '-o', 'jsonpath={.spec.username} {.spec.groups}'])).toBe('admin ["system:masters","system:authenticated"]');
    expect(await admin.ok(['get', 'csr', 'jane', '--no-headers', '-o', 'custom-columns=C:.status.conditions[*].type'])).toBe('Approved\n');
    expect(await admin.ok(['get', 'csr', 'jane', '--no-headers'])).toMatch(/^jane\s+\S+\s+kubernetes\.io\/kube-apiserver-client\s+admin\s+60m\s+Approved,Issued\n$/);

    const user = await KubectlEnv.forKubeconfig(kubeConfigYaml(buildKubeConfig({ name: 'jane', server: cluster.url, caCertPem: Buffer.from(cluster.kubeConfig.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString(), clientCertPem: certificatePem, clientKeyPem: client.keyPem })));
    envs.push(user);
    expect(await user.ok(['get', 'endpoints', '-A', '-o', 'name'])).toContain('endpoints/kubernetes');
    expect(await user.ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}'])).toBe('jane ["dev","ops","system:authenticated"]');
  });

  it('gives the signer maximum when expirationSeconds is absent or longer, backdated five minutes', async () => {
    const client = await createClientRequest('long');
    const before = Date.now();
    await requestApproved('absent', client);
    await requestApproved('longer', client, { expirationSeconds: 86_400 });
    for (const name of ['absent', 'longer']) {
      const notAfter = Date.parse(new X509Certificate(await issuedCertificate(name)).validTo);
      expect(notAfter, name).toBeGreaterThanOrEqual(before + MAX_DURATION_MS - 5 * MINUTE_MS - 1000);
      expect(notAfter, name).toBeLessThanOrEqual(Date.now() + MAX_DURATION_MS - 5 * MINUTE_MS + 1000);
    }
  });

  it('marks a request Failed when its usages are not those of a client certificate', async () => {
    await requestApproved('server-usage', await createClientRequest('server'), { usages: ['client auth', 'server auth'] });
    const failed = await waitFor('the Failed condition', async () => {
      const conditions = JSON.parse(await admin.ok(['get', 'csr', 'server-usage', '-o', 'jsonpath={.status.conditions}'])) as { type: string; reason?: string; message?: string }[];
      return conditions.find((condition) => condition.type === 'Failed');
    });
    expect(failed).toMatchObject({ reason: 'SignerValidationFailure', message: 'invalid usage for client certificate: server auth' });
    expect(await admin.ok(['get', 'csr', 'server-usage', '-o', 'jsonpath={.status.certificate}'])).toBe('');
  });

  it('leaves requests for other signers pending', async () => {
    await requestApproved('elsewhere', await createClientRequest('elsewhere'), { signerName: 'example.com/other' });
    await cluster.settled();
    expect(await admin.ok(['get', 'csr', 'elsewhere', '-o', 'jsonpath={.status}'])).toMatch(/^\{"conditions":\[\{[^\]]*"type":"Approved"\}\]\}$/);
  });

  it('refuses a certificate of its own CA once it has expired', async () => {
    const client = await createClientRequest('expired');
    const tls = await ensureTlsAssets(tlsDir);
    const ca = { certPem: tls.caCertPem, keyPem: tls.caKeyPem };
    const now = Date.now();
    const valid = signClientCertificateRequest(ca, { csrPem: client.csrPem, keyUsages: ['digitalSignature'], notBefore: new Date(now - 60 * MINUTE_MS), notAfter: new Date(now + 60 * MINUTE_MS) });
    const expired = signClientCertificateRequest(ca, { csrPem: client.csrPem, keyUsages: ['digitalSignature'], notBefore: new Date(now - 120 * MINUTE_MS), notAfter: new Date(now - 60 * MINUTE_MS) });
    expect(await statusWith(valid, client.keyPem)).toBe(200);
    expect(await statusWith(expired, client.keyPem)).toBe(401);
  });
});
