/**
 * A tiny protobuf encoder for tests only: builds Kubernetes protobuf bodies field by field so the
 * decoder's fixtures say which field numbers they hold.
 */

import { bytesField, fieldTag, stringField, varintField } from '../../../src/apiserver/protobuf-wire-writer.js';

/** A varint field (int32, int64, bool, enum); negative numbers take ten bytes as in Go. */
export const varint = varintField;

/** A length-delimited field holding raw bytes. */
export function bytes(number: number, value: Buffer): Buffer {
  return bytesField(number, value);
}

/** A string field. */
export const str = stringField;

/** An embedded message field made of `fields`. */
export function msg(number: number, ...fields: Buffer[]): Buffer {
  return bytesField(number, ...fields);
}

/** One entry of a `map<string,string>` or `map<string,bytes>` field. */
export function entry(number: number, key: string, value: string | Buffer): Buffer {
  return msg(number, str(1, key), typeof value === 'string' ? str(2, value) : bytes(2, value));
}

/** A 32-bit fixed field (wire type 5), which none of the decoded kinds uses. */
export function fixed32(number: number, value: number): Buffer {
  const body = Buffer.alloc(4);
  body.writeUInt32LE(value);
  return Buffer.concat([fieldTag(number, 5), body]);
}

/** The whole body: `k8s\0` then runtime.Unknown {typeMeta, raw, contentEncoding, contentType}. */
export function envelope(apiVersion: string, kind: string, raw: Buffer, extra: { contentEncoding?: string; contentType?: string } = {}): Buffer {
  return Buffer.concat([
    Buffer.from('k8s\0', 'latin1'),
    msg(1, str(1, apiVersion), str(2, kind)),
    bytes(2, raw),
    str(3, extra.contentEncoding ?? ''),
    str(4, extra.contentType ?? ''),
  ]);
}

/** ObjectMeta as Go's encoder writes it for a new object: every plain field, empty. */
export function newObjectMeta(name: string, ...extra: Buffer[]): Buffer {
  return msg(1, str(1, name), str(2, ''), str(3, ''), str(4, ''), str(5, ''), str(6, ''), varint(7, 0), msg(8), ...extra);
}
