import { ApiError, badRequest } from '../apimachinery/index.js';
import type { BodyDecoder } from './body-decoder.js';
import { rfc3339 } from './object-writer.js';
import type { FieldSchema, FieldType, MessageSchema } from './protobuf-message-schema.js';
import { MalformedProtobufError, readWireFields, WIRE_TYPE, type WireField } from './protobuf-wire-reader.js';

/** The media type of Kubernetes' protobuf encoding. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

/** The four bytes every Kubernetes protobuf body starts with: `k8s\0`. */
const ENVELOPE_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const SEND_JSON = 'send the object as JSON or YAML instead (e.g. `kubectl create ... --dry-run=client -o yaml | kubectl create -f -`)';

type JsonObject = Record<string, unknown>;

const utf8 = new TextDecoder('utf-8', { fatal: true });

function unsupported(what: string): ApiError {
  return new ApiError('UnsupportedMediaType', `the server cannot decode ${what} from ${PROTOBUF_MEDIA_TYPE}; ${SEND_JSON}`);
}

function malformed(why: string): ApiError {
  return badRequest(`the request body is not a valid ${PROTOBUF_MEDIA_TYPE} object: ${why}`);
}

/** What is being decoded, for error messages: the kind and the JSON path of the field. */
interface Position {
  kind: string;
  path: string;
}

function at(position: Position, field: string): Position {
  return { kind: position.kind, path: position.path === '' ? field : `${position.path}.${field}` };
}

function text(bytes: Buffer, position: Position): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw malformed(`${position.kind} field ${position.path} is not valid UTF-8`);
  }
}

function varintOf(field: WireField, position: Position): bigint {
  if (field.wireType !== WIRE_TYPE.varint) throw malformed(`${position.kind} field ${position.path} has wire type ${field.wireType}, expected a varint`);
  return field.value;
}

function bytesOf(field: WireField, position: Position): Buffer {
  if (field.wireType !== WIRE_TYPE.bytes) throw malformed(`${position.kind} field ${position.path} has wire type ${field.wireType}, expected length-delimited bytes`);
  return field.value;
}

function integer(value: bigint, bits: 32 | 64, position: Position): number {
  const signed = BigInt.asIntN(bits, value);
  if (signed > BigInt(Number.MAX_SAFE_INTEGER) || signed < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw unsupported(`the ${position.kind} field ${position.path} (${signed} does not fit a JSON number exactly)`);
  }
  return Number(signed);
}

function decodeTime(bytes: Buffer, position: Position): string | undefined {
  let seconds = 0;
  let nanos = 0;
  for (const field of readWireFields(bytes)) {
    if (field.number === 1) seconds = integer(varintOf(field, position), 64, position);
    else if (field.number === 2) nanos = integer(varintOf(field, position), 32, position);
    else throw unsupported(`field ${field.number} of the Time in ${position.kind} field ${position.path}`);
  }
  // The zero Time is JSON null: the field is left out, as a JSON client's `null` means unset.
  if (seconds === 0 && nanos === 0) return undefined;
  return rfc3339(seconds * 1000);
}

function decodeIntOrString(bytes: Buffer, position: Position): number | string | undefined {
  let type = 0;
  let intVal = 0;
  let strVal = '';
  for (const field of readWireFields(bytes)) {
    if (field.number === 1) type = integer(varintOf(field, position), 64, position);
    else if (field.number === 2) intVal = integer(varintOf(field, position), 32, position);
    else if (field.number === 3) strVal = text(bytesOf(field, position), position);
    else throw unsupported(`field ${field.number} of the IntOrString in ${position.kind} field ${position.path}`);
  }
  // A zero IntOrString (0 or "") means "not set": left out so the server's defaulting applies.
  if (type === 0) return intVal === 0 ? undefined : intVal;
  if (type === 1) return strVal === '' ? undefined : strVal;
  throw malformed(`${position.kind} field ${position.path} is an IntOrString of unknown type ${type}`);
}

function decodeMapEntry(bytes: Buffer, valueType: 'string' | 'bytes', position: Position): [string, string] {
  let key = '';
  let value = '';
  for (const field of readWireFields(bytes)) {
    if (field.number === 1) key = text(bytesOf(field, position), position);
    else if (field.number === 2) value = valueType === 'string' ? text(bytesOf(field, position), position) : bytesOf(field, position).toString('base64');
    else throw malformed(`a map entry of ${position.kind} field ${position.path} has field ${field.number}`);
  }
  return [key, value];
}

/** Decodes one occurrence; undefined means "the zero value of a plain field": left out. */
function decodeValue(field: WireField, schema: FieldSchema, position: Position): unknown {
  const type: FieldType = schema.type;
  if (typeof type === 'object') return decodeMessage(bytesOf(field, position), type, position);
  switch (type) {
    case 'string': {
      const value = text(bytesOf(field, position), position);
      return value === '' && schema.pointer !== true && schema.repeated !== true ? undefined : value;
    }
    case 'bytes':
      return bytesOf(field, position).toString('base64');
    case 'bool': {
      const value = varintOf(field, position) !== 0n;
      return !value && schema.pointer !== true ? undefined : value;
    }
    case 'int32':
    case 'int64': {
      const value = integer(varintOf(field, position), type === 'int32' ? 32 : 64, position);
      return value === 0 && schema.pointer !== true ? undefined : value;
    }
    case 'time':
      return decodeTime(bytesOf(field, position), position);
    case 'int-or-string':
      return decodeIntOrString(bytesOf(field, position), position);
    case 'string-map':
    case 'bytes-map':
      return decodeMapEntry(bytesOf(field, position), type === 'string-map' ? 'string' : 'bytes', position);
    case 'fields-v1':
      return decodeFieldsV1(bytesOf(field, position), position);
  }
}

/** meta/v1 FieldsV1 `{Raw 1}`: the JSON text it holds, parsed. */
function decodeFieldsV1(bytes: Buffer, position: Position): unknown {
  let raw = '';
  for (const field of readWireFields(bytes)) {
    if (field.number !== 1) throw malformed(`${position.kind} field ${position.path} (FieldsV1) has field ${field.number}`);
    raw = text(bytesOf(field, position), position);
  }
  try {
    return JSON.parse(raw === '' ? '{}' : raw) as unknown;
  } catch {
    throw malformed(`${position.kind} field ${position.path} (FieldsV1) does not hold JSON`);
  }
}

function decodeMessage(bytes: Buffer, schema: MessageSchema, position: Position): JsonObject {
  const object: JsonObject = {};
  for (const field of readWireFields(bytes)) {
    const fieldSchema = schema.fields.get(field.number);
    if (fieldSchema === undefined) {
      const where = position.path === '' ? '' : ` (in ${position.path})`;
      throw unsupported(`field ${field.number} of ${schema.name}${where} of a ${position.kind}`);
    }
    const fieldPosition = at(position, fieldSchema.json);
    const value = decodeValue(field, fieldSchema, fieldPosition);
    if (fieldSchema.type === 'string-map' || fieldSchema.type === 'bytes-map') {
      const [key, entryValue] = value as [string, string];
      const map = (object[fieldSchema.json] ??= {}) as Record<string, string>;
      map[key] = entryValue;
    } else if (fieldSchema.repeated === true) {
      ((object[fieldSchema.json] ??= []) as unknown[]).push(value);
    } else if (value === undefined) {
      delete object[fieldSchema.json];
    } else {
      object[fieldSchema.json] = value;
    }
  }
  return object;
}

interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Buffer;
  contentEncoding: string;
  contentType: string;
}

function readEnvelope(body: Buffer): Envelope {
  if (body.length < ENVELOPE_MAGIC.length || !body.subarray(0, ENVELOPE_MAGIC.length).equals(ENVELOPE_MAGIC)) {
    throw malformed('it does not start with the Kubernetes protobuf prefix "k8s\\0"');
  }
  const envelope: Envelope = { apiVersion: '', kind: '', raw: Buffer.alloc(0), contentEncoding: '', contentType: '' };
  const position: Position = { kind: 'runtime.Unknown', path: '' };
  for (const field of readWireFields(body.subarray(ENVELOPE_MAGIC.length))) {
    const fieldPosition = at(position, String(field.number));
    switch (field.number) {
      case 1:
        for (const typeField of readWireFields(bytesOf(field, fieldPosition))) {
          if (typeField.number === 1) envelope.apiVersion = text(bytesOf(typeField, fieldPosition), fieldPosition);
          else if (typeField.number === 2) envelope.kind = text(bytesOf(typeField, fieldPosition), fieldPosition);
          else throw malformed(`its typeMeta has an unknown field ${typeField.number}`);
        }
        break;
      case 2:
        envelope.raw = bytesOf(field, fieldPosition);
        break;
      case 3:
        envelope.contentEncoding = text(bytesOf(field, fieldPosition), fieldPosition);
        break;
      case 4:
        envelope.contentType = text(bytesOf(field, fieldPosition), fieldPosition);
        break;
      default:
        throw malformed(`its envelope (runtime.Unknown) has an unknown field ${field.number}`);
    }
  }
  return envelope;
}

/**
 * Decodes a Kubernetes protobuf body (the `k8s\0` prefix, then a `runtime.Unknown` envelope whose
 * `raw` holds the object) into the JSON object a JSON client would send for it: `apiVersion` and
 * `kind` from the envelope, zero-valued plain fields left out, bytes as base64. Only the kinds of
 * `kinds` (by `<apiVersion>/<kind>`) are known. Pure; throws an {@link ApiError}: 400 BadRequest
 * for bytes that are not a well-formed envelope or message, 415 UnsupportedMediaType naming the
 * kind (and field) for a kind or field it does not know, telling the client to send JSON or YAML.
 */
export function decodeKubernetesProtobuf(body: Buffer, kinds: ReadonlyMap<string, MessageSchema>): JsonObject {
  try {
    const envelope = readEnvelope(body);
    if (envelope.contentEncoding !== '') throw unsupported(`a body with content encoding "${envelope.contentEncoding}"`);
    if (envelope.contentType !== '' && envelope.contentType !== PROTOBUF_MEDIA_TYPE) throw unsupported(`a body whose envelope holds ${envelope.contentType}`);
    if (envelope.kind === '' || envelope.apiVersion === '') throw malformed('its envelope names no apiVersion and kind');
    const schema = kinds.get(`${envelope.apiVersion}/${envelope.kind}`);
    if (schema === undefined) throw unsupported(`a ${envelope.kind} (${envelope.apiVersion}): protobuf is decoded only for ${[...kinds.keys()].join(', ')}`);
    const object = decodeMessage(envelope.raw, schema, { kind: envelope.kind, path: '' });
    return { apiVersion: envelope.apiVersion, kind: envelope.kind, ...object };
  } catch (error: unknown) {
    if (error instanceof MalformedProtobufError) throw malformed(error.message);
    throw error;
  }
}

/** A body decoder of the API-server core for kubectl's protobuf bodies of `kinds`. */
export function protobufBodyDecoder(kinds: ReadonlyMap<string, MessageSchema>): BodyDecoder {
  return Object.freeze({ mediaType: PROTOBUF_MEDIA_TYPE, decode: (body: Buffer) => decodeKubernetesProtobuf(body, kinds) });
}
