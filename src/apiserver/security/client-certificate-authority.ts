/**
 * A CA that signs client certificates from PKCS#10 requests, as kube-controller-manager's
 * `kubernetes.io/kube-apiserver-client` signer does. The CA certificate and key are parsed once;
 * each signature takes the request's encoded subject, public key and subjectAltName as they are,
 * writes the TBSCertificate in DER and signs it with node:crypto, synchronously.
 */
import { createHash, createPrivateKey, type KeyObject, randomBytes, sign } from 'node:crypto';
import { childrenOf, contentsOf, type DerElement, encodingOf, expectTag, MalformedDerError, objectIdentifierOf, pemBlock, readElement } from './der-reader.js';
import {
  derBitString,
  derBoolean,
  derContext,
  derNamedBits,
  derObjectIdentifier,
  derOctetString,
  DerTag,
  derSequence,
  derSmallInteger,
  derTime,
  derUnsignedInteger,
  pemOf,
} from './der-writer.js';
import type { CertificateAndKey } from './certificate-issuer.js';
import { ECDSA_WITH_SHA256 } from './certificate-request-builder.js';


/** A key usage a client certificate may carry, by its RFC 5280 name. */
export type ClientKeyUsage = 'digitalSignature' | 'keyEncipherment';

/** What {@link ClientCertificateAuthority.sign} puts into the certificate besides the request's subject, key and names. */
export interface ClientRequestSigning {
  /** The PEM PKCS#10 request (`CERTIFICATE REQUEST`); its self-signature is the caller's to have checked. */
  csrPem: string;
  /** The key usages to set (none: no KeyUsage extension, as Go leaves it out). */
  keyUsages: readonly ClientKeyUsage[];
  notBefore: Date;
  /** Cut to the CA's own notAfter when later. */
  notAfter: Date;
}

const SUBJECT_KEY_IDENTIFIER_OID = '2.5.29.14';
const SUBJECT_ALT_NAME_OID = '2.5.29.17';
const EXTENSION_REQUEST_OID = '1.2.840.113549.1.9.14';
/** The bit of each key usage in the KeyUsage BIT STRING (RFC 5280 4.2.1.3). */
const KEY_USAGE_BITS: Readonly<Record<ClientKeyUsage, number>> = { digitalSignature: 0, keyEncipherment: 2 };

/** An extension: OID, criticality (written only when true, DER omits the default), the encoded value. */
function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return derSequence(derObjectIdentifier(oid), ...(critical ? [derBoolean(true)] : []), derOctetString(value));
}

/** basicConstraints, critical, not a CA (cA FALSE is the default, so the sequence is empty). */
const NOT_A_CA = extension('2.5.29.19', true, derSequence());
/** extKeyUsage clientAuth, not critical. */
const CLIENT_AUTH = extension('2.5.29.37', false, derSequence(derObjectIdentifier('1.3.6.1.5.5.7.3.2')));

/** The parts of the CA certificate a signature needs, decoded once. */
interface CaParts {
  subject: Buffer;
  notAfter: Date;
  keyIdentifier: Buffer;
}

function timeOf(der: Buffer, item: DerElement): Date {
  const text = contentsOf(der, item).toString('latin1');
  const match = item.tag === DerTag.UTC_TIME ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text) : /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  if (match === null || (item.tag !== DerTag.UTC_TIME && item.tag !== DerTag.GENERALIZED_TIME)) throw new MalformedDerError(`not an X.509 time: ${text}`);
  const [, year, month, day, hour, minute, second] = match.map(Number) as [number, number, number, number, number, number, number];
  const fullYear = item.tag === DerTag.UTC_TIME ? (year < 50 ? 2000 + year : 1900 + year) : year;
  return new Date(Date.UTC(fullYear, month - 1, day, hour, minute, second));
}

/** Subject, notAfter and the key identifier (its SKI extension, else RFC 5280's SHA-1 of the public key) of a CA certificate. */
function caParts(certPem: string): CaParts {
  const der = pemBlock(certPem, 'CERTIFICATE');
  if (der === undefined) throw new TypeError('the CA certificate is not a PEM CERTIFICATE');
  const certificate = expectTag(readElement(der, 0), DerTag.SEQUENCE, 'certificate');
  const tbs = expectTag(childrenOf(der, certificate)[0], DerTag.SEQUENCE, 'tbsCertificate');
  const fields = childrenOf(der, tbs);
  const shift = fields[0]?.tag === 0xa0 ? 1 : 0; // [0] version is optional (v1 certificates)
  const validity = childrenOf(der, expectTag(fields[3 + shift], DerTag.SEQUENCE, 'validity'));
  const subject = expectTag(fields[4 + shift], DerTag.SEQUENCE, 'subject');
  const spki = childrenOf(der, expectTag(fields[5 + shift], DerTag.SEQUENCE, 'subjectPublicKeyInfo'));
  const publicKeyBits = contentsOf(der, expectTag(spki[1], DerTag.BIT_STRING, 'subjectPublicKey')).subarray(1);
  let keyIdentifier = createHash('sha1').update(publicKeyBits).digest();
  const extensions = fields.find((field) => field.tag === 0xa3);
  if (extensions !== undefined) {
    for (const item of childrenOf(der, expectTag(childrenOf(der, extensions)[0], DerTag.SEQUENCE, 'extensions'))) {
      const parts = childrenOf(der, item);
      if (objectIdentifierOf(der, expectTag(parts[0], DerTag.OBJECT_IDENTIFIER, 'extnID')) !== SUBJECT_KEY_IDENTIFIER_OID) continue;
      const value = contentsOf(der, expectTag(parts[parts.length - 1], DerTag.OCTET_STRING, 'extnValue'));
      keyIdentifier = Buffer.from(contentsOf(value, expectTag(readElement(value, 0), DerTag.OCTET_STRING, 'keyIdentifier')));
    }
  }
  const notAfter = validity[1];
  if (notAfter === undefined) throw new MalformedDerError('validity: no notAfter');
  return { subject: Buffer.from(encodingOf(der, subject)), notAfter: timeOf(der, notAfter), keyIdentifier };
}

/** The parts of a PKCS#10 request a signer copies into the certificate. */
export interface CertificateRequestParts {
  /** The encoded subject Name. */
  readonly subject: Buffer;
  /** The encoded subjectPublicKeyInfo. */
  readonly publicKeyInfo: Buffer;
  /** The encoded subjectAltName extension, when the request asks for one. */
  readonly subjectAltName: Buffer | undefined;
}

/**
 * The encoded subject, subjectPublicKeyInfo and subjectAltName extension (if requested) of the
 * DER of a PKCS#10 request, reading every attribute and requested extension as a signer must.
 * Throws {@link MalformedDerError}: a server that accepts a request runs this first, so that no
 * request it stores fails at signing.
 */
export function certificateRequestParts(der: Buffer): CertificateRequestParts {
  const request = expectTag(readElement(der, 0), DerTag.SEQUENCE, 'certificationRequest');
  const info = childrenOf(der, expectTag(childrenOf(der, request)[0], DerTag.SEQUENCE, 'certificationRequestInfo'));
  const subject = encodingOf(der, expectTag(info[1], DerTag.SEQUENCE, 'subject'));
  const publicKeyInfo = encodingOf(der, expectTag(info[2], DerTag.SEQUENCE, 'subjectPKInfo'));
  let subjectAltName: Buffer | undefined;
  for (const attribute of childrenOf(der, expectTag(info[3], 0xa0, 'attributes'))) {
    const parsed = attributeOf(der, attribute);
    if (parsed?.type !== EXTENSION_REQUEST_OID) continue;
    const extensions = expectTag(parsed.values[0], DerTag.SEQUENCE, 'extensions');
    for (const item of childrenOf(der, extensions)) {
      const [idElement, ...rest] = childrenOf(der, expectTag(item, DerTag.SEQUENCE, 'extension'));
      const id = objectIdentifierOf(der, expectTag(idElement, DerTag.OBJECT_IDENTIFIER, 'extnID'));
      if (rest.length === 2) expectTag(rest[0], DerTag.BOOLEAN, 'critical');
      else if (rest.length !== 1) throw new MalformedDerError(`extension ${id}: expected [critical] extnValue, got ${rest.length} elements`);
      expectTag(rest.at(-1), DerTag.OCTET_STRING, 'extnValue');
      if (id === SUBJECT_ALT_NAME_OID) subjectAltName = encodingOf(der, item);
    }
  }
  return { subject, publicKeyInfo, subjectAltName };
}

/**
 * An attribute's type and values, or undefined when it is not `SEQUENCE { OID, SET (non-empty) }`:
 * such an attribute is passed over, as Go's crypto/x509 passes over attributes that do not parse
 * (a malformed extension request is still refused by the caller).
 */
function attributeOf(der: Buffer, attribute: DerElement): { type: string; values: DerElement[] } | undefined {
  try {
    if (attribute.tag !== DerTag.SEQUENCE) return undefined;
    const [type, values, ...extra] = childrenOf(der, attribute);
    if (extra.length > 0 || type?.tag !== DerTag.OBJECT_IDENTIFIER || values?.tag !== DerTag.SET) return undefined;
    const items = childrenOf(der, values);
    return items.length === 0 ? undefined : { type: objectIdentifierOf(der, type), values: items };
  } catch (error: unknown) {
    if (error instanceof MalformedDerError) return undefined;
    throw error;
  }
}

/** {@link certificateRequestParts} of a PEM request. Throws a TypeError when it is not one. */
function requestParts(csrPem: string): CertificateRequestParts {
  const der = pemBlock(csrPem, 'CERTIFICATE REQUEST');
  if (der === undefined) throw new TypeError('the request is not a PEM CERTIFICATE REQUEST');
  return certificateRequestParts(der);
}

/** 16 random bytes with the top bit cleared and the next set: a positive 16-octet DER integer, as RFC 5280 wants. */
function serialNumber(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return derUnsignedInteger(bytes);
}

/**
 * Signs client certificates with one CA. {@link from} parses the CA once (throws a TypeError when
 * its key is not an ECDSA P-256 or P-384 key or its certificate does not parse); {@link sign} then
 * costs one ECDSA signature and a few hundred bytes of DER.
 */
export class ClientCertificateAuthority {
  readonly #ca: CaParts;
  readonly #key: KeyObject;
  readonly #authorityKeyIdentifier: Buffer;

  private constructor(ca: CaParts, key: KeyObject) {
    this.#ca = ca;
    this.#key = key;
    this.#authorityKeyIdentifier = extension('2.5.29.35', false, derSequence(derContext(0, false, ca.keyIdentifier)));
  }

  /** The authority of `ca`. Throws a TypeError for a key that is not ECDSA P-256/P-384 or a certificate that does not parse. */
  static from(ca: CertificateAndKey): ClientCertificateAuthority {
    const key = createPrivateKey(ca.keyPem);
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (key.asymmetricKeyType !== 'ec' || (curve !== 'prime256v1' && curve !== 'secp384r1')) {
      throw new TypeError(`the CA key must be an ECDSA P-256 or P-384 key, got ${key.asymmetricKeyType ?? 'unknown'} ${curve ?? ''}`);
    }
    let parts: CaParts;
    try {
      parts = caParts(ca.certPem);
    } catch (error: unknown) {
      if (error instanceof MalformedDerError) throw new TypeError(`the CA certificate does not parse: ${error.message}`, { cause: error });
      throw error;
    }
    return new ClientCertificateAuthority(parts, key);
  }

  /** When the CA itself expires. */
  get notAfter(): Date {
    return new Date(this.#ca.notAfter);
  }

  /**
   * Signs `signing.csrPem` as kube-controller-manager's signer does for client certificates: the
   * request's subject, public key and subjectAltName, basicConstraints not a CA (critical),
   * extKeyUsage clientAuth, the requested key usages (critical), the authority key identifier,
   * the validity asked (never beyond the CA's), ecdsa-with-SHA256. Returns the certificate as PEM.
   * Throws a RangeError when the CA has expired by `notBefore`, a TypeError when the request does
   * not parse.
   */
  sign(signing: ClientRequestSigning): string {
    const ca = this.#ca;
    if (!(signing.notBefore < ca.notAfter)) throw new RangeError(`the signer has expired: NotAfter=${ca.notAfter.toISOString()}`);
    const notAfter = signing.notAfter < ca.notAfter ? signing.notAfter : ca.notAfter;
    let request: ReturnType<typeof requestParts>;
    try {
      request = requestParts(signing.csrPem);
    } catch (error: unknown) {
      if (error instanceof MalformedDerError) throw new TypeError(`the certificate request does not parse: ${error.message}`, { cause: error });
      throw error;
    }
    const bits = [...new Set(signing.keyUsages.map((usage) => KEY_USAGE_BITS[usage]))];
    const extensions = [NOT_A_CA, CLIENT_AUTH, this.#authorityKeyIdentifier];
    if (bits.length > 0) extensions.push(extension('2.5.29.15', true, derNamedBits(bits)));
    if (request.subjectAltName !== undefined) extensions.push(request.subjectAltName);
    const tbs = derSequence(
      derContext(0, true, derSmallInteger(2)), // v3
      serialNumber(),
      ECDSA_WITH_SHA256,
      ca.subject,
      derSequence(derTime(signing.notBefore), derTime(notAfter)),
      request.subject,
      request.publicKeyInfo,
      derContext(3, true, derSequence(...extensions)),
    );
    const certificate = derSequence(tbs, ECDSA_WITH_SHA256, derBitString(sign('sha256', tbs, this.#key)));
    return pemOf('CERTIFICATE', certificate);
  }
}

/**
 * Signs one request with `ca` (see {@link ClientCertificateAuthority.sign}); a signer that signs
 * many keeps the authority instead, so the CA is parsed once.
 */
export function signClientCertificateRequest(ca: CertificateAndKey, signing: ClientRequestSigning): string {
  return ClientCertificateAuthority.from(ca).sign(signing);
}
