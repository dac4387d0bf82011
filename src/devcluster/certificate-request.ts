/**
 * A minimal reader of PEM PKCS#10 certificate requests (RFC 2986), enough for the
 * CertificateSigningRequest rules: find the request, check its structure and verify its signature,
 * synchronously. Kind strategies run synchronously inside a write, and node:crypto (which verifies
 * synchronously) has no CSR parser; @peculiar/x509 has one but loads in about 200 ms and verifies
 * through the asynchronous WebCrypto. The DER is read with the apiserver's minimal reader, as the
 * signer reads it (`ClientCertificateAuthority`). Errors are worded as Go's crypto/x509 words them.
 */
import { createPublicKey, verify } from 'node:crypto';
import { certificateRequestParts, childrenOf, type DerElement, DerTag, expectTag, MalformedDerError, objectIdentifierOf, pemBlock, readElement } from '../apiserver/index.js';

/** `attributes [0] IMPLICIT SET OF Attribute` of the CertificationRequestInfo. */
const ATTRIBUTES = 0xa0;

/** Signature algorithms by OID: the digest node:crypto verifies with (null for Ed25519). */
const SIGNATURE_DIGESTS: Readonly<Record<string, string | null>> = {
  '1.2.840.10045.4.3.2': 'sha256', // ecdsa-with-SHA256
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.2.840.113549.1.1.11': 'sha256', // sha256WithRSAEncryption
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.3.101.112': null, // Ed25519
};

/**
 * Why the PEM certificate request in `pem` is refused, as the real server refuses it (no PEM block
 * of type `CERTIFICATE REQUEST`, a structure that is not a PKCS#10 request, attributes and
 * requested extensions included; an unsupported signature algorithm; a self-signature that does
 * not verify), or undefined when it is valid.
 */
export function certificateRequestError(pem: string): string | undefined {
  const der = pemBlock(pem, 'CERTIFICATE REQUEST');
  if (der === undefined) return 'PEM block type must be CERTIFICATE REQUEST';
  let info: DerElement;
  let algorithm: string;
  let signature: Buffer;
  let publicKeyDer: Buffer;
  try {
    const outer = expectTag(readElement(der, 0), DerTag.SEQUENCE, 'certificationRequest');
    if (outer.end !== der.length) throw new MalformedDerError('trailing data');
    const [infoElement, algorithmElement, signatureElement, ...extra] = childrenOf(der, outer);
    if (extra.length > 0) throw new MalformedDerError('extra elements');
    info = expectTag(infoElement, DerTag.SEQUENCE, 'certificationRequestInfo');
    const [version, subject, publicKeyInfo, attributes] = childrenOf(der, info);
    expectTag(version, DerTag.INTEGER, 'version');
    expectTag(subject, DerTag.SEQUENCE, 'subject');
    publicKeyDer = der.subarray(expectTag(publicKeyInfo, DerTag.SEQUENCE, 'subjectPKInfo').start, publicKeyInfo?.end);
    expectTag(attributes, ATTRIBUTES, 'attributes');
    const algorithmId = childrenOf(der, expectTag(algorithmElement, DerTag.SEQUENCE, 'signatureAlgorithm'))[0];
    algorithm = objectIdentifierOf(der, expectTag(algorithmId, DerTag.OBJECT_IDENTIFIER, 'algorithm'));
    const bits = expectTag(signatureElement, DerTag.BIT_STRING, 'signature');
    if (der[bits.contentStart] !== 0) throw new MalformedDerError('signature with unused bits');
    signature = der.subarray(bits.contentStart + 1, bits.end);
    // Every attribute and requested extension, as the signer reads them: a request stored here never fails at signing.
    certificateRequestParts(der);
  } catch (error: unknown) {
    if (error instanceof MalformedDerError) return 'x509: malformed certificate request';
    throw error;
  }
  const digest = SIGNATURE_DIGESTS[algorithm];
  if (digest === undefined) return `x509: cannot verify signature: algorithm unimplemented (OID ${algorithm})`;
  let publicKey;
  try {
    publicKey = createPublicKey({ key: publicKeyDer, format: 'der', type: 'spki' });
  } catch {
    return 'x509: unsupported or malformed public key in certificate request';
  }
  let valid: boolean;
  try {
    valid = verify(digest, der.subarray(info.start, info.end), publicKey, signature);
  } catch {
    valid = false; // a signature of the wrong shape for the key: refused like a wrong one
  }
  return valid ? undefined : 'x509: signature verification failure';
}
