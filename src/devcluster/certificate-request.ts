/**
 * A minimal reader of PEM PKCS#10 certificate requests (RFC 2986), enough for the
 * CertificateSigningRequest rules: find the request, check its structure and verify its signature,
 * synchronously. Kind strategies run synchronously inside a write, and node:crypto (which verifies
 * synchronously) has no CSR parser; @peculiar/x509 has one but loads in about 200 ms and verifies
 * through the asynchronous WebCrypto, so the devcluster only uses it to sign (see
 * `certificate-signer.ts`). Errors are worded as Go's crypto/x509 words them.
 */
import { createPublicKey, verify } from 'node:crypto';

/** One DER element: its tag and where its header and contents are in the buffer. */
interface Element {
  readonly tag: number;
  readonly start: number;
  readonly contentStart: number;
  readonly end: number;
}

const SEQUENCE = 0x30;
const INTEGER = 0x02;
const BIT_STRING = 0x03;
const OBJECT_IDENTIFIER = 0x06;
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

class MalformedRequest extends Error {}

function element(der: Buffer, offset: number, limit: number): Element {
  if (offset + 2 > limit) throw new MalformedRequest('truncated');
  const tag = der[offset] ?? 0;
  let length = der[offset + 1] ?? 0;
  let contentStart = offset + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4 || contentStart + octets > limit) throw new MalformedRequest('bad length');
    length = 0;
    for (let index = 0; index < octets; index += 1) length = length * 256 + (der[contentStart + index] ?? 0);
    contentStart += octets;
  }
  const end = contentStart + length;
  if (end > limit) throw new MalformedRequest('truncated');
  return { tag, start: offset, contentStart, end };
}

/** The elements directly inside `parent`, which must fill it exactly. */
function children(der: Buffer, parent: Element): Element[] {
  const items: Element[] = [];
  for (let offset = parent.contentStart; offset < parent.end; ) {
    const item = element(der, offset, parent.end);
    items.push(item);
    offset = item.end;
  }
  return items;
}

function expect(item: Element | undefined, tag: number): Element {
  if (item?.tag !== tag) throw new MalformedRequest('unexpected element');
  return item;
}

function objectIdentifier(der: Buffer, item: Element): string {
  const bytes = der.subarray(item.contentStart, item.end);
  if (bytes.length === 0) throw new MalformedRequest('empty object identifier');
  const first = bytes[0] ?? 0;
  const arcs = [Math.min(Math.floor(first / 40), 2), first - Math.min(Math.floor(first / 40), 2) * 40];
  let value = 0;
  for (const byte of bytes.subarray(1)) {
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      arcs.push(value);
      value = 0;
    }
  }
  return arcs.join('.');
}

/** The DER of the first PEM block of `pem` if it is a `CERTIFICATE REQUEST`. */
function requestDer(pem: string): Buffer | undefined {
  const match = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(pem);
  if (match?.[1] !== 'CERTIFICATE REQUEST') return undefined;
  return Buffer.from((match[2] ?? '').replace(/\s+/g, ''), 'base64');
}

/**
 * Why the PEM certificate request in `pem` is refused, as the real server refuses it (no PEM block
 * of type `CERTIFICATE REQUEST`, a structure that is not a PKCS#10 request, an unsupported
 * signature algorithm, a self-signature that does not verify), or undefined when it is valid.
 */
export function certificateRequestError(pem: string): string | undefined {
  const der = requestDer(pem);
  if (der === undefined) return 'PEM block type must be CERTIFICATE REQUEST';
  let info: Element;
  let algorithm: string;
  let signature: Buffer;
  let publicKeyDer: Buffer;
  try {
    const outer = expect(element(der, 0, der.length), SEQUENCE);
    if (outer.end !== der.length) throw new MalformedRequest('trailing data');
    const [infoElement, algorithmElement, signatureElement, ...extra] = children(der, outer);
    if (extra.length > 0) throw new MalformedRequest('extra elements');
    info = expect(infoElement, SEQUENCE);
    const [version, subject, publicKeyInfo, attributes] = children(der, info);
    expect(version, INTEGER);
    expect(subject, SEQUENCE);
    publicKeyDer = der.subarray(expect(publicKeyInfo, SEQUENCE).start, publicKeyInfo?.end);
    expect(attributes, ATTRIBUTES);
    algorithm = objectIdentifier(der, expect(children(der, expect(algorithmElement, SEQUENCE))[0], OBJECT_IDENTIFIER));
    const bits = expect(signatureElement, BIT_STRING);
    if (der[bits.contentStart] !== 0) throw new MalformedRequest('signature with unused bits');
    signature = der.subarray(bits.contentStart + 1, bits.end);
  } catch (error: unknown) {
    if (error instanceof MalformedRequest) return 'x509: malformed certificate request';
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
