import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import type * as X509 from '@peculiar/x509';
import type { ClientSubject } from './certificate-request-builder.js';
import { loadX509 } from './load-x509.js';

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;
const crypto = webcrypto;
type X509Module = Awaited<ReturnType<typeof loadX509>>;

/** ECDSA P-256 with SHA-256: fast to generate and accepted by Go (kubectl) and Node clients. */
const KEY_ALGORITHM: webcrypto.EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
const SIGNING_ALGORITHM: webcrypto.EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };
/** Backdating of notBefore, so a client whose clock is slightly behind accepts a fresh cert. */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/** A certificate and its private key, both PEM (the key as PKCS#8 `PRIVATE KEY`). */
export interface CertificateAndKey {
  certPem: string;
  keyPem: string;
}

export type { ClientSubject } from './certificate-request-builder.js';

/** What {@link issueCertificate} puts into a leaf certificate. */
export interface LeafCertificateSpec {
  commonName: string;
  organizations?: readonly string[];
  /** DNS names and IP addresses for the subjectAltName extension (serving certificates). */
  hosts?: readonly string[];
  /** Extended key usage: `server` for serverAuth, `client` for clientAuth. */
  usage: 'server' | 'client';
  /** Lifetime from now, in milliseconds. */
  validityMs: number;
}

/** Creates a self-signed ECDSA P-256 certificate authority valid for `validityMs` from now. */
export async function createCertificateAuthority(commonName: string, validityMs: number): Promise<CertificateAndKey> {
  const x509 = await loadX509();
  const keys = await generateKeyPair();
  const { notBefore, notAfter } = validityWindow(validityMs);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomSerialNumber(),
      name: distinguishedName(x509, commonName, []),
      notBefore,
      notAfter,
      keys,
      signingAlgorithm: SIGNING_ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
          true,
        ),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
      ],
    },
    crypto,
  );
  return { certPem: certificate.toString('pem'), keyPem: await exportPrivateKeyPem(keys.privateKey) };
}

/** Issues a leaf certificate with a new ECDSA P-256 key, signed by `ca`. */
export async function issueCertificate(ca: CertificateAndKey, spec: LeafCertificateSpec): Promise<CertificateAndKey> {
  const x509 = await loadX509();
  const caCertificate = new x509.X509Certificate(ca.certPem);
  const caKey = await importPrivateKeyPem(ca.keyPem);
  const keys = await generateKeyPair();
  const { notBefore, notAfter } = validityWindow(spec.validityMs);
  const extensions: X509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension(
      [spec.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth],
      false,
    ),
    await x509.AuthorityKeyIdentifierExtension.create(caCertificate, false, crypto),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
  ];
  if (spec.hosts !== undefined && spec.hosts.length > 0) {
    extensions.push(
      new x509.SubjectAlternativeNameExtension(
        spec.hosts.map((host): X509.JsonGeneralName => ({ type: isIP(host) === 0 ? 'dns' : 'ip', value: host })),
        false,
      ),
    );
  }
  const certificate = await x509.X509CertificateGenerator.create(
    {
      serialNumber: randomSerialNumber(),
      subject: distinguishedName(x509, spec.commonName, spec.organizations ?? []),
      issuer: caCertificate.subjectName,
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: caKey,
      signingAlgorithm: SIGNING_ALGORITHM,
      extensions,
    },
    crypto,
  );
  return { certPem: certificate.toString('pem'), keyPem: await exportPrivateKeyPem(keys.privateKey) };
}

/**
 * Mints a client certificate (clientAuth) for `subject`, signed by `ca`, valid for `validityMs`
 * from now (backdated five minutes for clock skew). Kubernetes authenticates its holder as user
 * `subject.commonName` in groups `subject.organizations`. Rejects when the CA key is not an
 * ECDSA P-256 or P-384 key or the validity is not positive.
 */
export async function issueClientCertificate(
  ca: CertificateAndKey,
  subject: ClientSubject,
  validityMs: number,
): Promise<CertificateAndKey> {
  if (subject.commonName === '') {
    throw new RangeError('a client certificate needs a non-empty commonName');
  }
  return issueCertificate(ca, {
    commonName: subject.commonName,
    organizations: subject.organizations ?? [],
    usage: 'client',
    validityMs,
  });
}

/**
 * A subject of CN and O attributes as UTF8Strings. Built from attribute objects, not from plain
 * strings: @peculiar/x509 reparses plain-string values as RFC 4514 text, which mangles values
 * containing quotes (CN `jane "dev"` became `dev`).
 */
function distinguishedName(x509: X509Module, commonName: string, organizations: readonly string[]): X509.Name {
  return new x509.Name([
    { CN: [{ utf8String: commonName }] },
    ...organizations.map((organization) => ({ O: [{ utf8String: organization }] })),
  ]);
}

async function generateKeyPair(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
}

async function exportPrivateKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await crypto.subtle.exportKey('pkcs8', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

/** Imports a PEM private key (PKCS#8 or SEC1 `EC PRIVATE KEY`) for signing. */
async function importPrivateKeyPem(pem: string): Promise<CryptoKey> {
  const key = createPrivateKey(pem);
  const curve = key.asymmetricKeyDetails?.namedCurve;
  const namedCurve = curve === 'prime256v1' ? 'P-256' : curve === 'secp384r1' ? 'P-384' : undefined;
  if (key.asymmetricKeyType !== 'ec' || namedCurve === undefined) {
    throw new TypeError(`the CA key must be an ECDSA P-256 or P-384 key, got ${key.asymmetricKeyType ?? 'unknown'} ${curve ?? ''}`);
  }
  const der = key.export({ type: 'pkcs8', format: 'der' });
  return crypto.subtle.importKey('pkcs8', der, { name: 'ECDSA', namedCurve }, false, ['sign']);
}

function validityWindow(validityMs: number): { notBefore: Date; notAfter: Date } {
  if (!Number.isFinite(validityMs) || validityMs <= 0) {
    throw new RangeError(`certificate validity must be a positive number of milliseconds, got ${validityMs}`);
  }
  const now = Date.now();
  return { notBefore: new Date(now - CLOCK_SKEW_MS), notAfter: new Date(now + validityMs) };
}

/** 16 random bytes with the top bit cleared: a positive DER integer, as RFC 5280 requires. */
function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f | 0x01;
  return bytes.toString('hex');
}
