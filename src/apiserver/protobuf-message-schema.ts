/**
 * How the core's protobuf decoder reads a message (`protobuf-decoder.ts`): the field tables, as
 * declared in the `generated.proto` files of k8s.io/api and k8s.io/apimachinery, and the
 * meta/v1 messages every kind shares. Only described fields are decoded; any other field number
 * is reported, never skipped.
 */

/** How one field's wire value becomes JSON. */
export type FieldType =
  /** A UTF-8 string. */
  | 'string'
  /** Raw bytes, base64 in JSON (as Go's `[]byte`). */
  | 'bytes'
  | 'bool'
  /** A varint read as a signed 32-bit integer. */
  | 'int32'
  /** A varint read as a signed 64-bit integer (a JSON number; exact up to 2^53). */
  | 'int64'
  /** meta/v1 Time `{seconds 1, nanos 2}`, RFC 3339 in JSON with seconds precision. */
  | 'time'
  /** util/intstr IntOrString `{type 1, intVal 2, strVal 3}`, a number or a string in JSON. */
  | 'int-or-string'
  /** `map<string,string>`: entries `{key 1, value 2}`. */
  | 'string-map'
  /** `map<string,bytes>`: entries `{key 1, value 2}`, values base64 in JSON. */
  | 'bytes-map'
  /** meta/v1 FieldsV1 `{Raw 1}`: JSON text, embedded as the JSON value it holds. */
  | 'fields-v1'
  | MessageSchema;

/** One field of a message. */
export interface FieldSchema {
  /** The JSON field name. */
  readonly json: string;
  readonly type: FieldType;
  /** `repeated`: every occurrence is one element of a JSON array. */
  readonly repeated?: true;
  /**
   * The Go field is a pointer (`*bool`, `*string`, `*int32`): the encoder writes it only when set,
   * so a zero value on the wire is kept. Plain fields are always written, and a zero value
   * (`""`, `0`, `false`) is dropped, as Go's `omitempty` JSON encoding does.
   */
  readonly pointer?: true;
}

/** A protobuf message: its name (for error messages) and its fields by number. */
export interface MessageSchema {
  readonly name: string;
  readonly fields: ReadonlyMap<number, FieldSchema>;
}

/** A message schema from its fields by number (frozen). */
export function message(name: string, fields: Record<number, FieldSchema>): MessageSchema {
  return Object.freeze({ name, fields: new Map(Object.entries(fields).map(([number, field]) => [Number(number), Object.freeze(field)])) });
}

/** meta/v1 OwnerReference. */
export const OWNER_REFERENCE = message('OwnerReference', {
  1: { json: 'kind', type: 'string' },
  3: { json: 'name', type: 'string' },
  4: { json: 'uid', type: 'string' },
  5: { json: 'apiVersion', type: 'string' },
  6: { json: 'controller', type: 'bool', pointer: true },
  7: { json: 'blockOwnerDeletion', type: 'bool', pointer: true },
});

const MANAGED_FIELDS_ENTRY = message('ManagedFieldsEntry', {
  1: { json: 'manager', type: 'string' },
  2: { json: 'operation', type: 'string' },
  3: { json: 'apiVersion', type: 'string' },
  4: { json: 'time', type: 'time' },
  6: { json: 'fieldsType', type: 'string' },
  7: { json: 'fieldsV1', type: 'fields-v1' },
  8: { json: 'subresource', type: 'string' },
});

/** meta/v1 ObjectMeta, without `managedFields` (17), which generators never send. */
export const OBJECT_META = message('ObjectMeta', {
  1: { json: 'name', type: 'string' },
  2: { json: 'generateName', type: 'string' },
  3: { json: 'namespace', type: 'string' },
  4: { json: 'selfLink', type: 'string' },
  5: { json: 'uid', type: 'string' },
  6: { json: 'resourceVersion', type: 'string' },
  7: { json: 'generation', type: 'int64' },
  8: { json: 'creationTimestamp', type: 'time' },
  9: { json: 'deletionTimestamp', type: 'time' },
  10: { json: 'deletionGracePeriodSeconds', type: 'int64', pointer: true },
  11: { json: 'labels', type: 'string-map' },
  12: { json: 'annotations', type: 'string-map' },
  13: { json: 'ownerReferences', type: OWNER_REFERENCE, repeated: true },
  14: { json: 'finalizers', type: 'string', repeated: true },
  17: { json: 'managedFields', type: MANAGED_FIELDS_ENTRY, repeated: true },
});

