import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import {
  createCertificateAuthority,
  issueCertificate,
  type CertificateAndKey,
} from './certificate-issuer.js';

export { issueClientCertificate, type CertificateAndKey, type ClientSubject } from './certificate-issuer.js';

/** A server's TLS material, as PEM text and as the files it was written to. */
export interface TlsAssets {
  caCertPem: string;
  caKeyPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  adminCertPem: string;
  adminKeyPem: string;
  caCertPath: string;
  serverCertPath: string;
  serverKeyPath: string;
  adminCertPath: string;
  adminKeyPath: string;
}

/** Options of {@link ensureTlsAssets}. */
export interface TlsAssetsOptions {
  /**
   * Extra DNS names or IP addresses the serving certificate must be valid for, besides
   * 127.0.0.1, ::1 and localhost. Default: none.
   */
  hosts?: string[];
  /**
   * Common name of the serving certificate; the CA is named `<serverName>-ca`. Only used when a
   * certificate is (re)generated. Default `vcsync-apiserver`.
   */
  serverName?: string;
}

/** Lifetime of a generated CA: ten years. */
export const CA_VALIDITY_MS = 10 * 365 * 24 * 60 * 60 * 1000;
/** Lifetime of generated serving and admin certificates: one year. */
export const LEAF_VALIDITY_MS = 365 * 24 * 60 * 60 * 1000;
/** A certificate that expires sooner than this is replaced instead of reused: one day. */
export const RENEW_BEFORE_MS = 24 * 60 * 60 * 1000;
/** Subject of the admin client certificate: Kubernetes' built-in superuser group. */
export const ADMIN_SUBJECT = { commonName: 'admin', organizations: ['system:masters'] } as const;

const DEFAULT_HOSTS = ['127.0.0.1', '::1', 'localhost'] as const;

const FILES = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  serverCert: 'server.crt',
  serverKey: 'server.key',
  adminCert: 'admin.crt',
  adminKey: 'admin.key',
} as const;

/**
 * Returns the TLS material in `dir`, creating what is missing or unusable: a CA (ECDSA P-256,
 * ten years), a serving certificate for 127.0.0.1, ::1, localhost and `options.hosts`
 * (serverAuth), and an admin client certificate CN=admin O=system:masters (clientAuth).
 *
 * Existing files are reused when they parse, each key matches its certificate, the leaves were
 * issued by the CA, and none expires within a day; so a restart keeps issued kubeconfigs valid.
 * A serving certificate that lacks a requested host is reissued by the same CA. Only an unusable
 * CA causes everything to be regenerated. Keys are written with mode 0600, certificates 0644, each
 * through a temporary file and a rename.
 */
export async function ensureTlsAssets(dir: string, options: TlsAssetsOptions = {}): Promise<TlsAssets> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = (name: string): string => join(dir, name);
  const hosts = [...new Set([...DEFAULT_HOSTS, ...(options.hosts ?? [])])];
  const serverName = options.serverName ?? 'vcsync-apiserver';

  let ca = await readUsablePair(path(FILES.caCert), path(FILES.caKey));
  const caIsNew = ca === undefined;
  if (ca === undefined) {
    ca = await createCertificateAuthority(`${serverName}-ca`, CA_VALIDITY_MS);
    await writePair(ca, path(FILES.caCert), path(FILES.caKey));
  }

  let server = caIsNew ? undefined : await readUsablePair(path(FILES.serverCert), path(FILES.serverKey), ca);
  if (server !== undefined && !coversHosts(server.certPem, hosts)) {
    server = undefined;
  }
  if (server === undefined) {
    server = await issueCertificate(ca, {
      commonName: serverName,
      hosts,
      usage: 'server',
      validityMs: LEAF_VALIDITY_MS,
    });
    await writePair(server, path(FILES.serverCert), path(FILES.serverKey));
  }

  let admin = caIsNew ? undefined : await readUsablePair(path(FILES.adminCert), path(FILES.adminKey), ca);
  if (admin === undefined) {
    admin = await issueCertificate(ca, {
      commonName: ADMIN_SUBJECT.commonName,
      organizations: ADMIN_SUBJECT.organizations,
      usage: 'client',
      validityMs: LEAF_VALIDITY_MS,
    });
    await writePair(admin, path(FILES.adminCert), path(FILES.adminKey));
  }

  return {
    caCertPem: ca.certPem,
    caKeyPem: ca.keyPem,
    serverCertPem: server.certPem,
    serverKeyPem: server.keyPem,
    adminCertPem: admin.certPem,
    adminKeyPem: admin.keyPem,
    caCertPath: path(FILES.caCert),
    serverCertPath: path(FILES.serverCert),
    serverKeyPath: path(FILES.serverKey),
    adminCertPath: path(FILES.adminCert),
    adminKeyPath: path(FILES.adminKey),
  };
}

/**
 * Reads a certificate and key; undefined when either is missing, does not parse, does not match,
 * expires within {@link RENEW_BEFORE_MS}, or (with `issuer`) was not signed by `issuer`.
 */
async function readUsablePair(certPath: string, keyPath: string, issuer?: CertificateAndKey): Promise<CertificateAndKey | undefined> {
  let certPem: string;
  let keyPem: string;
  try {
    [certPem, keyPem] = await Promise.all([readFile(certPath, 'utf8'), readFile(keyPath, 'utf8')]);
  } catch {
    return undefined; // missing or unreadable: generate a new pair
  }
  try {
    const certificate = new X509Certificate(certPem);
    if (!certificate.checkPrivateKey(createPrivateKey(keyPem))) {
      return undefined;
    }
    if (Date.parse(certificate.validTo) - Date.now() < RENEW_BEFORE_MS) {
      return undefined;
    }
    if (issuer !== undefined && !certificate.verify(new X509Certificate(issuer.certPem).publicKey)) {
      return undefined;
    }
  } catch {
    return undefined; // does not parse: replace it
  }
  return { certPem, keyPem };
}

function coversHosts(certPem: string, hosts: readonly string[]): boolean {
  const certificate = new X509Certificate(certPem);
  return hosts.every((host) =>
    isIP(host) === 0
      ? certificate.checkHost(host, { subject: 'never' }) !== undefined
      : certificate.checkIP(host) !== undefined,
  );
}

async function writePair(pair: CertificateAndKey, certPath: string, keyPath: string): Promise<void> {
  // Key first: a crash between the two leaves a mismatched pair, which the next start replaces.
  await writeAtomically(keyPath, pair.keyPem, 0o600);
  await writeAtomically(certPath, pair.certPem, 0o644);
}

async function writeAtomically(path: string, content: string, mode: number): Promise<void> {
  const staging = `${path}.tmp`;
  await rm(staging, { force: true }); // a leftover from a crash may carry another mode
  await writeFile(staging, content, { mode, flush: true });
  await rename(staging, path);
}
