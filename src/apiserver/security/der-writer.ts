/**
 * The few DER (X.690 distinguished encoding) constructs a certificate request and a client
 * certificate are made of. Each function returns one complete element (tag, length, contents);
 * constructed elements take their children already encoded, so a structure is written inside
 * out with no intermediate tree. Pure.
 */

/** Universal tags used by PKCS#10 and X.509. */
export const DerTag = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  OBJECT_IDENTIFIER: 0x06,
  UTF8_STRING: 0x0c,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

function lengthOctets(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const octets: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) octets.unshift(rest % 256);
  return Buffer.from([0x80 | octets.length, ...octets]);
}

/** One element of tag `tag` whose contents are `contents` concatenated. */
export function derElement(tag: number, ...contents: readonly Buffer[]): Buffer {
  const body = contents.length === 1 ? (contents[0] as Buffer) : Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), lengthOctets(body.length), body]);
}

/** A SEQUENCE of the encoded `items`. */
export function derSequence(...items: readonly Buffer[]): Buffer {
  return derElement(DerTag.SEQUENCE, ...items);
}

/** A SET of the encoded `items`, in the order given (callers pass one item or sorted items). */
export function derSet(...items: readonly Buffer[]): Buffer {
  return derElement(DerTag.SET, ...items);
}

/** A context-specific tag `[number]`, constructed (EXPLICIT, or IMPLICIT of a constructed type) or primitive. */
export function derContext(number: number, constructed: boolean, ...contents: readonly Buffer[]): Buffer {
  if (number < 0 || number > 30) throw new RangeError(`a context tag number must be 0-30, got ${number}`);
  return derElement(0x80 | (constructed ? 0x20 : 0) | number, ...contents);
}

/**
 * A non-negative INTEGER from its unsigned big-endian magnitude: leading zero octets dropped, one
 * zero octet put back when the top bit is set (DER integers are two's complement).
 */
export function derUnsignedInteger(magnitude: Buffer): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start += 1;
  const trimmed = magnitude.subarray(start);
  const contents = trimmed.length === 0 ? Buffer.from([0]) : ((trimmed[0] ?? 0) & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
  return derElement(DerTag.INTEGER, contents);
}

/** A small non-negative INTEGER (versions). */
export function derSmallInteger(value: number): Buffer {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`expected a non-negative integer, got ${value}`);
  const octets: number[] = [];
  for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) octets.unshift(rest % 256);
  return derUnsignedInteger(Buffer.from(octets));
}

/** An OBJECT IDENTIFIER from its dotted form (`1.2.840.10045.4.3.2`). */
export function derObjectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map((arc) => {
    if (!/^\d+$/.test(arc)) throw new RangeError(`not an object identifier: ${dotted}`);
    return Number(arc);
  });
  const [first, second, ...rest] = arcs;
  if (first === undefined || second === undefined || first > 2 || (first < 2 && second > 39)) throw new RangeError(`not an object identifier: ${dotted}`);
  const octets: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const groups = [arc % 128];
    for (let high = Math.floor(arc / 128); high > 0; high = Math.floor(high / 128)) groups.unshift(0x80 | (high % 128));
    octets.push(...groups);
  }
  return derElement(DerTag.OBJECT_IDENTIFIER, Buffer.from(octets));
}

/** A UTF8String. */
export function derUtf8String(text: string): Buffer {
  return derElement(DerTag.UTF8_STRING, Buffer.from(text, 'utf8'));
}

/** An OCTET STRING. */
export function derOctetString(bytes: Buffer): Buffer {
  return derElement(DerTag.OCTET_STRING, bytes);
}

/** A BIT STRING of whole octets (signatures, public keys). */
export function derBitString(bytes: Buffer, unusedBits = 0): Buffer {
  if (unusedBits < 0 || unusedBits > 7 || (bytes.length === 0 && unusedBits !== 0)) throw new RangeError(`bad unused bit count ${unusedBits}`);
  return derElement(DerTag.BIT_STRING, Buffer.from([unusedBits]), bytes);
}

/**
 * A named-bit BIT STRING (KeyUsage) from the numbers of the bits set, bit 0 first: trailing zero
 * bits are dropped, as DER requires.
 */
export function derNamedBits(bits: readonly number[]): Buffer {
  if (bits.length === 0) return derBitString(Buffer.alloc(0));
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)] = (bytes[Math.floor(bit / 8)] ?? 0) | (0x80 >> bit % 8);
  return derBitString(bytes, 7 - (highest % 8));
}

/** A BOOLEAN (DER: true is 0xff). */
export function derBoolean(value: boolean): Buffer {
  return derElement(DerTag.BOOLEAN, Buffer.from([value ? 0xff : 0]));
}

/**
 * An X.509 Time (RFC 5280 4.1.2.5): UTCTime `YYMMDDHHMMSSZ` for years 1950-2049, GeneralizedTime
 * `YYYYMMDDHHMMSSZ` otherwise; whole seconds (milliseconds dropped).
 */
export function derTime(date: Date): Buffer {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const year = date.getUTCFullYear();
  const digits = `${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  if (year >= 1950 && year < 2050) return derElement(DerTag.UTC_TIME, Buffer.from(`${iso.slice(2, 4)}${digits}`, 'latin1'));
  if (year < 0 || year > 9999) throw new RangeError(`a certificate time must lie in years 0-9999, got ${iso}`);
  return derElement(DerTag.GENERALIZED_TIME, Buffer.from(`${String(year).padStart(4, '0')}${digits}`, 'latin1'));
}

/** PEM armour of `der` with the label given (`CERTIFICATE`, `CERTIFICATE REQUEST`), 64 columns. */
export function pemOf(label: string, der: Buffer): string {
  const base64 = der.toString('base64');
  let body = '';
  for (let offset = 0; offset < base64.length; offset += 64) body += `${base64.slice(offset, offset + 64)}\n`;
  return `-----BEGIN ${label}-----\n${body}-----END ${label}-----\n`;
}
