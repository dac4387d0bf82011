import { createPrivateKey, createPublicKey, generateKeyPairSync, webcrypto, X509Certificate } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority, type CertificateAndKey } from '../../../../src/apiserver/security/certificate-issuer.js';
import { createCertificateRequest } from '../../../../src/apiserver/security/certificate-request-builder.js';
import { ClientCertificateAuthority, signClientCertificateRequest } from '../../../../src/apiserver/security/client-certificate-authority.js';
import { loadX509 } from '../../../../src/apiserver/security/load-x509.js';
import { certificateRequestError } from '../../../../src/devcluster/certificate-request.js';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const HOUR_MS = 3600_000;

describe('createCertificateRequest', () => {
  it('writes a PKCS#10 request whose self-signature verifies, for a P-256 key it returns', async () => {
    const { requestPem, keyPem } = createCertificateRequest({ commonName: 'jane "dev", x', organizations: ['viewers', 'ops'] });
    expect(certificateRequestError(requestPem)).toBeUndefined();
    const x509 = await loadX509();
    const parsed = new x509.Pkcs10CertificateRequest(requestPem);
    expect(await parsed.verify()).toBe(true);
    expect(parsed.subjectName.getField('CN')).toEqual(['jane "dev", x']);
    expect(parsed.subjectName.getField('O')).toEqual(['viewers', 'ops']);
    const requestKey = createPublicKey({ key: Buffer.from(parsed.publicKey.rawData), format: 'der', type: 'spki' });
    expect(requestKey.export({ format: 'jwk' })).toEqual(createPublicKey(keyPem).export({ format: 'jwk' }));
    expect(createPublicKey(keyPem).asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  });

  it('makes a fresh key for every request', () => {
    expect(createCertificateRequest({ commonName: 'a' }).keyPem).not.toBe(createCertificateRequest({ commonName: 'a' }).keyPem);
  });

  it('refuses an empty commonName', () => {
    expect(() => createCertificateRequest({ commonName: '' })).toThrow(RangeError);
  });
});

describe('ClientCertificateAuthority', () => {
  let ca: CertificateAndKey;
  beforeAll(async () => {
    ca = await createCertificateAuthority('test-client-ca', 24 * HOUR_MS);
  });

  it('signs the request as the cluster signer does: subject and key of the request, clientAuth, not a CA, the usages asked', () => {
    const request = createCertificateRequest({ commonName: 'dana', organizations: ['viewers'] });
    const now = Date.now();
    const certificatePem = ClientCertificateAuthority.from(ca).sign({
      csrPem: request.requestPem,
      keyUsages: ['digitalSignature', 'keyEncipherment'],
      notBefore: new Date(now - 5 * 60_000),
      notAfter: new Date(now + HOUR_MS),
    });
    const certificate = new X509Certificate(certificatePem);
    const authority = new X509Certificate(ca.certPem);
    expect(certificate.verify(authority.publicKey)).toBe(true);
    expect(certificate.checkIssued(authority)).toBe(true);
    expect(certificate.subject).toBe('CN=dana\nO=viewers');
    expect(certificate.ca).toBe(false);
    expect(certificate.keyUsage).toEqual([CLIENT_AUTH]);
    expect(certificate.checkPrivateKey(createPrivateKey(request.keyPem))).toBe(true);
    expect(Math.abs(Date.parse(certificate.validTo) - (now + HOUR_MS))).toBeLessThan(1000);
    expect(Math.abs(Date.parse(certificate.validFrom) - (now - 5 * 60_000))).toBeLessThan(1000);
  });

  it('carries the extensions of the previous library: key usages critical, the authority key identifier of the CA', async () => {
    const request = createCertificateRequest({ commonName: 'dana' });
    const now = Date.now();
    const authority = ClientCertificateAuthority.from(ca);
    const x509 = await loadX509();
    const signed = (keyUsages: readonly ('digitalSignature' | 'keyEncipherment')[]) =>
      new x509.X509Certificate(authority.sign({ csrPem: request.requestPem, keyUsages, notBefore: new Date(now), notAfter: new Date(now + HOUR_MS) }));
    const withUsages = signed(['digitalSignature']);
    const usages = withUsages.getExtension(x509.KeyUsagesExtension);
    expect(usages?.critical).toBe(true);
    expect(usages?.usages).toBe(x509.KeyUsageFlags.digitalSignature);
    expect(withUsages.getExtension(x509.BasicConstraintsExtension)).toMatchObject({ ca: false, critical: true });
    const caSki = new x509.X509Certificate(ca.certPem).getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
    expect(withUsages.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId).toBe(caSki);
    expect(await withUsages.verify({ publicKey: new x509.X509Certificate(ca.certPem).publicKey })).toBe(true);
    expect(signed([]).getExtension(x509.KeyUsagesExtension)).toBeNull();
  });

  it('copies the subjectAltName a request asks for', async () => {
    const x509 = await loadX509();
    const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
    const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
    const request = await x509.Pkcs10CertificateRequestGenerator.create({
      name: 'CN=svc',
      keys,
      signingAlgorithm: algorithm,
      extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'svc.example.test' }, { type: 'ip', value: '10.1.2.3' }])],
    });
    const now = Date.now();
    const certificate = new X509Certificate(signClientCertificateRequest(ca, { csrPem: request.toString('pem'), keyUsages: [], notBefore: new Date(now), notAfter: new Date(now + HOUR_MS) }));
    expect(certificate.subjectAltName).toBe('DNS:svc.example.test, IP Address:10.1.2.3');
  });

  it('never signs beyond its own notAfter, and refuses once it has expired', () => {
    const request = createCertificateRequest({ commonName: 'x' });
    const authority = ClientCertificateAuthority.from(ca);
    const caEnd = Date.parse(new X509Certificate(ca.certPem).validTo);
    expect(authority.notAfter.getTime()).toBe(caEnd);
    const long = new X509Certificate(authority.sign({ csrPem: request.requestPem, keyUsages: [], notBefore: new Date(), notAfter: new Date(caEnd + 48 * HOUR_MS) }));
    expect(Date.parse(long.validTo)).toBe(caEnd);
    expect(() => authority.sign({ csrPem: request.requestPem, keyUsages: [], notBefore: new Date(caEnd + 1000), notAfter: new Date(caEnd + HOUR_MS) })).toThrow(/the signer has expired/);
  });

  it('refuses a CA key that is not ECDSA, and a request that does not parse', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    expect(() => ClientCertificateAuthority.from({ certPem: ca.certPem, keyPem: rsa })).toThrow(/must be an ECDSA P-256 or P-384 key/);
    const authority = ClientCertificateAuthority.from(ca);
    const broken = '-----BEGIN CERTIFICATE REQUEST-----\nMAA=\n-----END CERTIFICATE REQUEST-----\n';
    expect(() => authority.sign({ csrPem: broken, keyUsages: [], notBefore: new Date(), notAfter: new Date(Date.now() + HOUR_MS) })).toThrow(TypeError);
  });
});
