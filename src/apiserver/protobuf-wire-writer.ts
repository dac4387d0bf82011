/**
 * The protobuf wire format, write side: one function per field kind, each returning the field's
 * bytes (tag and value), so a message is the concatenation of its fields. Values equal to proto3's
 * defaults (empty string, false, 0) are written as given: leaving them out is the caller's choice.
 */

function varintBytes(value: number | bigint): Buffer {
  let rest = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  do {
    let byte = Number(rest & 0x7fn);
    rest >>= 7n;
    if (rest !== 0n) byte |= 0x80;
    bytes.push(byte);
  } while (rest !== 0n);
  return Buffer.from(bytes);
}

/** The key of a field: its number and wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32). */
export function fieldTag(number: number, wireType: number): Buffer {
  return varintBytes((number << 3) | wireType);
}

/** A varint field: int32, int64 (negative numbers take ten bytes, as Go writes them), bool. */
export function varintField(number: number, value: number | bigint | boolean): Buffer {
  return Buffer.concat([fieldTag(number, 0), varintBytes(typeof value === 'boolean' ? (value ? 1 : 0) : value)]);
}

/** A `double` field: 64-bit little-endian IEEE 754 (wire type 1). */
export function doubleField(number: number, value: number): Buffer {
  const body = Buffer.alloc(8);
  body.writeDoubleLE(value);
  return Buffer.concat([fieldTag(number, 1), body]);
}

/** A length-delimited field: bytes, or an embedded message given as its encoded fields. */
export function bytesField(number: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([fieldTag(number, 2), varintBytes(body.length), body]);
}

/** A `string` field, UTF-8. */
export function stringField(number: number, value: string): Buffer {
  return bytesField(number, Buffer.from(value, 'utf8'));
}
