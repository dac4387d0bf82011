import { KeyObject, webcrypto, X509Certificate } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKubeConfig } from '../../../src/devcluster/kube-config.js';
import { loadX509 } from '../../../src/apiserver/security/load-x509.js';
import { isNotFound } from '../../../src/apimachinery/index.js';
import { loadClusterConfig } from '../../../src/kube/kube-config.js';
import { RestClient } from '../../../src/kube/rest-client.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { freePorts } from '../../../testbed/free-ports.js';
import { certificateSigningRequest, createClientRequest } from '../../support/certificate-requests.js';
import { realClusterMissing } from '../../support/kube-assets.js';
import { KubectlEnv, kubectlMissing } from '../../support/kubectl.js';
import { startRealControlPlane, type RealControlPlane } from '../../support/real-control-plane.js';
import { waitFor } from '../../support/wait-for.js';

const missing = realClusterMissing('the real control plane tests');

/** Resolves true once GET `path` answers 404: the object is gone. */
async function gone(plane: RealControlPlane, path: string): Promise<boolean> {
  try {
    await plane.adminClient.get(path);
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

describe.skipIf(missing)('the real control plane (etcd, kube-apiserver, kube-controller-manager from kube-assets)', () => {
  let plane: RealControlPlane;
  beforeAll(async () => {
    plane = await startRealControlPlane({ controllers: true });
    const { etcdMs, apiserverMs, controllerManagerMs, totalMs } = plane.startup;
    console.info(
      `real control plane ${plane.assets.versions.kubernetes} (etcd ${plane.assets.versions.etcd}) ready in ${totalMs} ms: ` +
        `etcd ${etcdMs} ms, kube-apiserver ${apiserverMs} ms, kube-controller-manager ${controllerManagerMs ?? 0} ms`,
    );
  }, 240_000);
  afterAll(async () => {
    await plane?.close();
  });

  it('reports the version it was built from on /version, not the v0.0.0 of an unstamped build', async () => {
    const version = await plane.adminClient.get<{ gitVersion: string; major: string; minor: string }>('/version');
    const expected = plane.assets.versions.kubernetes;
    expect(version.gitVersion).toBe(expected);
    expect(`v${version.major}.${version.minor}.`).toBe(expected.replace(/\.\d+$/, '.'));
  });

  it('lets the admin create and list a namespace, a Service without selector and its Endpoints', async () => {
    const client = plane.adminClient;
    await client.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'admin-writes' } });
    await client.create('/api/v1/namespaces/admin-writes/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { ports: [{ name: 'http', port: 80 }] },
    });
    await client.create('/api/v1/namespaces/admin-writes/endpoints', {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'web' },
      subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ name: 'http', port: 80 }] }],
    });

    const namespaces = await client.list('/api/v1/namespaces');
    expect(namespaces.items.map((n) => n.metadata?.name)).toEqual(expect.arrayContaining(['admin-writes', 'default', 'kube-system']));
    const services = await client.list<KubeObject & { spec: { clusterIP: string } }>('/api/v1/namespaces/admin-writes/services');
    expect(services.items.map((s) => s.metadata?.name)).toEqual(['web']);
    expect(services.items[0]?.spec.clusterIP).toMatch(/^10\.0\.0\.\d+$/);
    const endpoints = await client.list<KubeObject & { subsets: { addresses: { ip: string }[] }[] }>('/api/v1/namespaces/admin-writes/endpoints');
    expect(endpoints.items.map((e) => [e.metadata?.name, e.subsets[0]?.addresses[0]?.ip])).toEqual([['web', '10.1.2.3']]);
  });

  it('serves kubectl from kube-assets with the written kubeconfig', async () => {
    await plane.adminClient.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'seen-by-kubectl' } });
    const env = await KubectlEnv.forKubeconfig(plane.kubeconfigYaml, { binary: plane.assets.kubectl });
    try {
      const version = JSON.parse(await env.ok(['version', '-o', 'json'])) as { clientVersion: { gitVersion: string }; serverVersion: { gitVersion: string } };
      expect(version.clientVersion.gitVersion).toBe(plane.assets.versions.kubernetes);
      expect(version.serverVersion.gitVersion).toBe(plane.assets.versions.kubernetes);
      expect(await env.ok(['get', 'namespaces', '-o', 'name'])).toContain('namespace/seen-by-kubectl\n');
    } finally {
      await env.remove();
    }
  });

  it.skipIf(kubectlMissing('the system kubectl against the real control plane'))('serves the system kubectl with the written kubeconfig', async () => {
    await plane.adminClient.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'seen-by-system-kubectl' } });
    const env = await KubectlEnv.forKubeconfig(plane.kubeconfigYaml);
    try {
      expect(await env.ok(['get', 'namespaces'])).toMatch(/\nseen-by-system-kubectl\s+Active\s/);
    } finally {
      await env.remove();
    }
  });

  it('removes a deleted namespace and its contents (kube-controller-manager: namespace controller)', async () => {
    const client = plane.adminClient;
    await client.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'doomed' } });
    await client.create('/api/v1/namespaces/doomed/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inside' }, data: { a: '1' } });
    await client.delete('/api/v1/namespaces/doomed');

    await waitFor('namespace doomed to be removed by the namespace controller', () => gone(plane, '/api/v1/namespaces/doomed'), { timeoutMs: 90_000, intervalMs: 200 });
    const leftovers = await client.list('/api/v1/configmaps', { fieldSelector: 'metadata.namespace=doomed' });
    expect(leftovers.items).toEqual([]);
  }, 120_000);

  it('garbage-collects a ConfigMap whose owner was deleted (kube-controller-manager: garbage collector)', async () => {
    const client = plane.adminClient;
    await client.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'gc' } });
    const owner = await client.create<KubeObject>('/api/v1/namespaces/gc/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } });
    await client.create('/api/v1/namespaces/gc/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'dependent', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata?.uid }] },
    });
    await client.create('/api/v1/namespaces/gc/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bystander' } });
    await client.delete('/api/v1/namespaces/gc/configmaps/owner');

    await waitFor('the dependent ConfigMap to be garbage-collected', () => gone(plane, '/api/v1/namespaces/gc/configmaps/dependent'), { timeoutMs: 90_000, intervalMs: 200 });
    const remaining = (await client.list<KubeObject>('/api/v1/namespaces/gc/configmaps')).items.map((c) => c.metadata?.name);
    expect(remaining).toContain('bystander');
    expect(remaining).not.toContain('owner');
  }, 120_000);

  it('signs an approved CertificateSigningRequest with the cluster CA, and its certificate authenticates (kube-controller-manager: CSR signer)', async () => {
    const client = plane.adminClient;
    const x509 = await loadX509();
    const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
    const request = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=jane, O=devs', keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } }, webcrypto);
    const path = '/apis/certificates.k8s.io/v1/certificatesigningrequests/jane';
    await client.create('/apis/certificates.k8s.io/v1/certificatesigningrequests', {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'jane' },
      spec: { request: Buffer.from(request.toString('pem')).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], expirationSeconds: 600 },
    });
    const csr = await client.get<KubeObject & { status?: object }>(path);
    await client.update(`${path}/approval`, { ...csr, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' }] } });

    const signed = await waitFor(
      'the CSR to be signed',
      async () => (await client.get<{ status?: { certificate?: string } }>(path)).status?.certificate,
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const certPem = Buffer.from(signed, 'base64').toString('utf8');
    const certificate = new X509Certificate(certPem);
    expect(certificate.verify(new X509Certificate(plane.tls.caCertPem).publicKey)).toBe(true);
    // The window devcluster's signer copies (certificate-signer.ts): notBefore five minutes back, a
    // short lifetime (under eight hours) not backdated at its end.
    expect(Date.parse(certificate.validTo) - Date.parse(certificate.validFrom)).toBe((600 + 5 * 60) * 1000);
    expect(certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    const jane = new RestClient({
      cluster: loadClusterConfig(
        {
          kind: 'object',
          config: buildKubeConfig({
            name: 'jane',
            server: plane.url,
            caCertPem: plane.tls.caCertPem,
            clientCertPem: certPem,
            clientKeyPem: KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString(),
          }),
        },
        { name: 'real-cluster-jane' },
      ),
    });
    try {
      const review = await jane.create<{ apiVersion: string; kind: string; status?: { userInfo: { username: string; groups: string[] } } }>(
        '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      );
      expect(review.status?.userInfo.username).toBe('jane');
      expect(review.status?.userInfo.groups).toEqual(expect.arrayContaining(['devs', 'system:authenticated']));
    } finally {
      jane.close();
    }
  }, 90_000);

  it('marks an approved kube-apiserver-client request with server usages Failed, as devcluster does (kube-controller-manager: CSR signer)', async () => {
    const client = plane.adminClient;
    const { csrPem } = await createClientRequest('server');
    const path = '/apis/certificates.k8s.io/v1/certificatesigningrequests/server-usage';
    const csr = await client.create<KubeObject>('/apis/certificates.k8s.io/v1/certificatesigningrequests', certificateSigningRequest('server-usage', csrPem, { usages: ['client auth', 'server auth'] }));
    await client.update(`${path}/approval`, { ...csr, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by the test' }] } });
    const failed = await waitFor(
      'the Failed condition',
      async () => (await client.get<{ status?: { conditions?: { type: string }[] } }>(path)).status?.conditions?.find((condition) => condition.type === 'Failed'),
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(failed).toMatchObject({ status: 'True', reason: 'SignerValidationFailure', message: 'invalid usage for client certificate: server auth' });
  }, 90_000);
});

describe.skipIf(missing)('a real control plane whose port was taken between choosing it and binding it', () => {
  // The CI failure this answers: kube-apiserver "bind: address already in use" on a port that
  // had been free a moment before.
  it.each([
    ['etcd', 0],
    ['kube-apiserver', 2],
  ])('starts again on fresh ports when %s cannot bind its own', async (_name, index) => {
    // Whatever holds the port: the first attempt's health probes reach it, and are cut off.
    const holder = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const address = holder.address();
    if (address === null || typeof address === 'string') throw new Error('a listening TCP server has no port');
    const attempts: number[][] = [];
    let plane: RealControlPlane | undefined;
    try {
      plane = await startRealControlPlane({
        ports: async (count) => {
          const ports = await freePorts(count);
          if (attempts.length === 0) ports[index] = address.port;
          attempts.push(ports);
          return ports;
        },
      });
      expect(attempts).toHaveLength(2);
      expect(plane.startup.portRetries).toBe(1);
      expect(plane.url).toBe(`https://127.0.0.1:${attempts[1]?.[2]}`);
      const version = await plane.adminClient.get<{ gitVersion: string }>('/version');
      expect(version.gitVersion).toBe(plane.assets.versions.kubernetes);
    } finally {
      await plane?.close();
      await new Promise((resolve) => holder.close(resolve));
    }
  }, 240_000);
});
