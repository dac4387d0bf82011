/**
 * The protobuf wire format, read only: splits a message into its fields (varint, 64-bit,
 * length-delimited and 32-bit values) without any schema. What the fields mean is the business of
 * {@link decodeKubernetesProtobuf}; this file only knows bytes.
 */

/** The wire types of protobuf; groups (3, 4) are obsolete and never sent by Kubernetes. */
export const WIRE_TYPE = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 } as const;

/** One field occurrence of a message, in wire order. */
export type WireField =
  | { number: number; wireType: 0; value: bigint }
  | { number: number; wireType: 1; value: Buffer }
  | { number: number; wireType: 2; value: Buffer }
  | { number: number; wireType: 5; value: Buffer };

/**
 * Bytes that are not a well-formed protobuf message (truncated, bad tag, obsolete group). Not an
 * `ApiError`: this reader knows bytes, not requests; the protobuf decoder answers it as the 400
 * about the request body.
 */
export class MalformedProtobufError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedProtobufError';
  }
}

const MAX_VARINT_BYTES = 10;

/** Reads the varint at `offset`; returns its unsigned 64-bit value and the offset after it. */
function readVarint(bytes: Buffer, offset: number): { value: bigint; next: number } {
  let value = 0n;
  for (let index = 0; index < MAX_VARINT_BYTES; index++) {
    const byte = bytes[offset + index];
    if (byte === undefined) throw new MalformedProtobufError(`truncated varint at byte ${offset}`);
    value |= BigInt(byte & 0x7f) << BigInt(7 * index);
    if ((byte & 0x80) === 0) return { value: BigInt.asUintN(64, value), next: offset + index + 1 };
  }
  throw new MalformedProtobufError(`varint longer than ${MAX_VARINT_BYTES} bytes at byte ${offset}`);
}

function slice(bytes: Buffer, offset: number, length: number, what: string): Buffer {
  if (length < 0 || offset + length > bytes.length) {
    throw new MalformedProtobufError(`${what} at byte ${offset} needs ${length} bytes but only ${bytes.length - offset} remain`);
  }
  return bytes.subarray(offset, offset + length);
}

/**
 * Splits `bytes` (one whole message) into its fields in wire order. Repeated fields appear once
 * per occurrence. Throws {@link MalformedProtobufError} when the bytes are not a message; the
 * returned buffers share memory with `bytes`.
 */
export function readWireFields(bytes: Buffer): WireField[] {
  const fields: WireField[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const tag = readVarint(bytes, offset);
    offset = tag.next;
    const number = Number(tag.value >> 3n);
    const wireType = Number(tag.value & 7n);
    if (number < 1 || number > 536_870_911) throw new MalformedProtobufError(`invalid field number ${number} at byte ${offset}`);
    switch (wireType) {
      case WIRE_TYPE.varint: {
        const varint = readVarint(bytes, offset);
        fields.push({ number, wireType, value: varint.value });
        offset = varint.next;
        break;
      }
      case WIRE_TYPE.fixed64:
        fields.push({ number, wireType, value: slice(bytes, offset, 8, `field ${number}`) });
        offset += 8;
        break;
      case WIRE_TYPE.bytes: {
        const length = readVarint(bytes, offset);
        if (length.value > BigInt(bytes.length)) throw new MalformedProtobufError(`field ${number} claims ${length.value} bytes, more than the whole body`);
        fields.push({ number, wireType, value: slice(bytes, length.next, Number(length.value), `field ${number}`) });
        offset = length.next + Number(length.value);
        break;
      }
      case WIRE_TYPE.fixed32:
        fields.push({ number, wireType, value: slice(bytes, offset, 4, `field ${number}`) });
        offset += 4;
        break;
      default:
        throw new MalformedProtobufError(`unsupported wire type ${wireType} for field ${number}`);
    }
  }
  return fields;
}
