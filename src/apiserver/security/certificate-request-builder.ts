/**
 * PKCS#10 certificate requests (RFC 2986) written directly in DER and signed with node:crypto: a
 * client asks a cluster's CertificateSigningRequest API for a certificate with one, so each
 * client-certificate kube config costs one. Node's native key generation and signing take tens of
 * microseconds, where a general ASN.1 library spends milliseconds building and re-parsing the
 * same few hundred bytes.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { derBitString, derContext, derObjectIdentifier, derSequence, derSet, derSmallInteger, derUtf8String, pemOf } from './der-writer.js';

/** The subject of a client certificate: Kubernetes reads the user from CN and groups from O. */
export interface ClientSubject {
  commonName: string;
  organizations?: readonly string[];
}

/** A PKCS#10 certificate signing request (PEM) and the private key it was made for (PKCS#8 PEM). */
export interface CertificateRequestAndKey {
  requestPem: string;
  keyPem: string;
}

/** id-at-commonName and id-at-organizationName (RFC 5280 appendix A). */
const COMMON_NAME_OID = derObjectIdentifier('2.5.4.3');
const ORGANIZATION_OID = derObjectIdentifier('2.5.4.10');
/** ecdsa-with-SHA256 (RFC 5758 3.2): no parameters. */
export const ECDSA_WITH_SHA256 = derSequence(derObjectIdentifier('1.2.840.10045.4.3.2'));

/**
 * A Name of one CN and then one O per organization, each its own relative distinguished name,
 * values as UTF8String: what Go's pkix.Name and kubectl-made requests carry for a user and its
 * groups. Values are written as given (no RFC 4514 parsing: quotes and commas stay literal).
 */
export function distinguishedNameDer(commonName: string, organizations: readonly string[]): Buffer {
  const attribute = (type: Buffer, value: string): Buffer => derSet(derSequence(type, derUtf8String(value)));
  return derSequence(attribute(COMMON_NAME_OID, commonName), ...organizations.map((organization) => attribute(ORGANIZATION_OID, organization)));
}

/**
 * Generates an ECDSA P-256 key pair and a certificate signing request for `subject` (CN the user,
 * O the groups; no attributes, no extensions), self-signed with ecdsa-with-SHA256, as
 * `kubectl certificate` and kubeadm users send to a cluster's CertificateSigningRequest API. The
 * key never leaves the caller. Throws a RangeError for an empty commonName.
 */
export function createCertificateRequest(subject: ClientSubject): CertificateRequestAndKey {
  if (subject.commonName === '') throw new RangeError('a certificate request needs a non-empty commonName');
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const info = derSequence(
    derSmallInteger(0), // version v1
    distinguishedNameDer(subject.commonName, subject.organizations ?? []),
    publicKey.export({ type: 'spki', format: 'der' }),
    derContext(0, true), // attributes: none
  );
  const signature = sign('sha256', info, privateKey); // DER Ecdsa-Sig-Value, as PKCS#10 wants
  const request = derSequence(info, ECDSA_WITH_SHA256, derBitString(signature));
  return { requestPem: pemOf('CERTIFICATE REQUEST', request), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
