import { webcrypto } from 'node:crypto';
import { loadX509 } from '../../src/apiserver/security/load-x509.js';

export { extensionRequest, requestWithAttributes } from '../../testbed/fuzz/hand-written-requests.js';

/** A PKCS#10 request and the private key it was made with, both PEM. */
export interface ClientRequest {
  csrPem: string;
  keyPem: string;
}

function pem(label: string, der: ArrayBuffer): string {
  const lines = Buffer.from(der).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/**
 * A new ECDSA P-256 key and a certificate request for it with subject CN=`commonName`,
 * O=`organizations` (what a client does before `kubectl create -f csr.yaml`).
 */
export async function createClientRequest(commonName: string, organizations: readonly string[] = []): Promise<ClientRequest> {
  const x509 = await loadX509();
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const name = new x509.Name([{ CN: [{ utf8String: commonName }] }, ...organizations.map((organization) => ({ O: [{ utf8String: organization }] }))]);
  const request = await x509.Pkcs10CertificateRequestGenerator.create({ name, keys, signingAlgorithm: algorithm }, webcrypto);
  return { csrPem: request.toString('pem'), keyPem: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)) };
}

/** A CertificateSigningRequest object for `csrPem`, spec fields overridable. */
export function certificateSigningRequest(name: string, csrPem: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name },
    spec: { request: Buffer.from(csrPem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'], ...spec },
  };
}

