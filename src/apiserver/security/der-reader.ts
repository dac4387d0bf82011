/**
 * A minimal DER reader: enough to take a certificate request or a certificate apart into the
 * encoded pieces a signer copies (subject, public key, extensions) without decoding what it does
 * not need. Elements are positions in the caller's buffer, never copies. Pure.
 */

/** One DER element: its tag and where its header and contents lie in the buffer. */
export interface DerElement {
  readonly tag: number;
  /** Offset of the tag octet. */
  readonly start: number;
  /** Offset of the first contents octet. */
  readonly contentStart: number;
  /** Offset just past the contents. */
  readonly end: number;
}

/** A structure that is not the DER expected; the message says where it went wrong. */
export class MalformedDerError extends Error {
  override readonly name = 'MalformedDerError';
}

/**
 * The element at `offset`, which must end by `limit`. Throws {@link MalformedDerError} for a
 * truncated element, an indefinite or over-long (more than 4 octets) length, and a length not in
 * its shortest form, which DER forbids (as Go's encoding/asn1, which a real API server parses
 * with, does).
 */
export function readElement(der: Buffer, offset: number, limit = der.length): DerElement {
  if (offset + 2 > limit) throw new MalformedDerError('truncated');
  const tag = der[offset] ?? 0;
  let length = der[offset + 1] ?? 0;
  let contentStart = offset + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4 || contentStart + octets > limit) throw new MalformedDerError('bad length');
    if (der[contentStart] === 0) throw new MalformedDerError('non-minimal length: a leading zero octet');
    length = 0;
    for (let index = 0; index < octets; index += 1) length = length * 256 + (der[contentStart + index] ?? 0);
    if (length < 0x80) throw new MalformedDerError('non-minimal length: a long form for a short length');
    contentStart += octets;
  }
  const end = contentStart + length;
  if (end > limit) throw new MalformedDerError('truncated');
  return { tag, start: offset, contentStart, end };
}

/** The elements directly inside `parent`, which must fill it exactly. */
export function childrenOf(der: Buffer, parent: DerElement): DerElement[] {
  const items: DerElement[] = [];
  for (let offset = parent.contentStart; offset < parent.end; ) {
    const item = readElement(der, offset, parent.end);
    items.push(item);
    offset = item.end;
  }
  return items;
}

/** `item` when it has tag `tag`; throws {@link MalformedDerError} otherwise (or when absent). */
export function expectTag(item: DerElement | undefined, tag: number, what: string): DerElement {
  if (item?.tag !== tag) throw new MalformedDerError(`${what}: expected tag 0x${tag.toString(16)}, got ${item === undefined ? 'nothing' : `0x${item.tag.toString(16)}`}`);
  return item;
}

/** The whole encoding of `item` (header and contents). */
export function encodingOf(der: Buffer, item: DerElement): Buffer {
  return der.subarray(item.start, item.end);
}

/** The contents of `item`. */
export function contentsOf(der: Buffer, item: DerElement): Buffer {
  return der.subarray(item.contentStart, item.end);
}

/** The largest subidentifier an OBJECT IDENTIFIER may hold here (Go's encoding/asn1 limit: an int32). */
const MAX_SUBIDENTIFIER = 0x7fff_ffff;

/**
 * The dotted form of an OBJECT IDENTIFIER element. Throws {@link MalformedDerError} for an empty
 * identifier, a subidentifier cut off (its last octet has the continuation bit), one with a leading
 * 0x80 octet (not minimal) or one beyond {@link MAX_SUBIDENTIFIER}.
 */
export function objectIdentifierOf(der: Buffer, item: DerElement): string {
  const bytes = contentsOf(der, item);
  if (bytes.length === 0) throw new MalformedDerError('empty object identifier');
  const subidentifiers: number[] = [];
  let value = 0;
  let octets = 0;
  for (const byte of bytes) {
    if (octets === 0 && byte === 0x80) throw new MalformedDerError('object identifier: a subidentifier not minimally encoded');
    value = value * 128 + (byte & 0x7f);
    octets += 1;
    if (value > MAX_SUBIDENTIFIER) throw new MalformedDerError('object identifier: a subidentifier too large');
    if ((byte & 0x80) === 0) {
      subidentifiers.push(value);
      value = 0;
      octets = 0;
    }
  }
  if (octets > 0) throw new MalformedDerError('object identifier: the last subidentifier is cut off');
  const first = subidentifiers[0] ?? 0;
  const top = Math.min(Math.floor(first / 40), 2);
  return [top, first - top * 40, ...subidentifiers.slice(1)].join('.');
}

/** The DER of the first PEM block of `pem` when its label is `label`, else undefined. */
export function pemBlock(pem: string, label: string): Buffer | undefined {
  const match = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(pem);
  if (match?.[1] !== label) return undefined;
  return Buffer.from((match[2] ?? '').replace(/\s+/g, ''), 'base64');
}
