import { isJsonObject, jsonEqual, type StatusCause } from '../apimachinery/index.js';
import { notSupportedValue } from './metadata-validation.js';
import type { SchemaObject } from './schema-object.js';
import type { KindSchema } from './schema-pruning.js';

/**
 * The type checks the real server makes on a custom resource against its structural schema: a
 * value of the wrong JSON type (a string where the schema says array, a string for a boolean), a
 * `date-time` that is not RFC 3339, a `byte` string that is not base64, an integer outside its
 * `format` (int32, int64) or `minimum`/`maximum`, a value not in `enum`, each is a 422 cause, e.g.
 * `spec.groups: Invalid value: "string": spec.groups in body must be of type array: "string"`.
 * Go clients decode these values into typed fields, so a value the type cannot hold would break
 * every read of the object. Pure.
 */

const REF_PREFIX = '#/components/schemas/';
/** A date-time as Kubernetes' strfmt reads it: RFC 3339, with a zone. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Standard base64 with padding, as Go's encoding/json reads a `[]byte` (line breaks aside). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The range of each integer `format` a Go type stands behind. An int64 is kept to the integers a
 * JSON number holds exactly here (2^53 - 1): a larger one would come back rounded, past what the
 * client sent, or past int64 itself.
 */
const INTEGER_FORMATS: Readonly<Record<string, { min: number; max: number }>> = {
  int32: { min: -(2 ** 31), max: 2 ** 31 - 1 },
  int64: { min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER },
};

/** Whether `value` is base64 as a Go `[]byte` field decodes it (standard alphabet, padded; CR and LF ignored). */
export function isBase64(value: string): boolean {
  return BASE64.test(value.replace(/[\r\n]/g, ''));
}

/** Whether `value` is an RFC 3339 date-time string, as Kubernetes reads timestamps. */
export function isDateTime(value: unknown): boolean {
  return typeof value === 'string' && DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
}

/** The JSON type of `value` as the real server names it in messages. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function resolve(schema: SchemaObject, components: Readonly<Record<string, SchemaObject>>, depth = 0): SchemaObject | undefined {
  const ref = schema['$ref'];
  if (typeof ref === 'string') {
    const target = ref.startsWith(REF_PREFIX) ? components[ref.slice(REF_PREFIX.length)] : undefined;
    return target === undefined || depth > 32 ? undefined : resolve(target, components, depth + 1);
  }
  const allOf = schema['allOf'];
  if (Array.isArray(allOf) && allOf.length === 1 && isJsonObject(allOf[0])) return resolve(allOf[0], components, depth + 1);
  return schema;
}

function matchesType(type: unknown, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isJsonObject(value);
    default:
      return true; // no type: anything
  }
}

/** The closest bounds of a number's `format`, `minimum` and `maximum` (unbounded when none). */
function integerBounds(schema: SchemaObject): { min: number; max: number } {
  const format = typeof schema['format'] === 'string' ? INTEGER_FORMATS[schema['format']] : undefined;
  let min = format?.min ?? -Infinity;
  let max = format?.max ?? Infinity;
  if (typeof schema['minimum'] === 'number') min = Math.max(min, schema['minimum']);
  if (typeof schema['maximum'] === 'number') max = Math.min(max, schema['maximum']);
  return { min, max };
}

/** One walk: the schemas `$ref`s resolve in, and the causes found. */
interface Checking {
  readonly components: Readonly<Record<string, SchemaObject>>;
  readonly causes: StatusCause[];
}

/**
 * Checks `value` at `path`; `old` is the value the stored object has at the same place (object
 * fields correlate by name, list items not at all). An unchanged value is not checked: validation
 * ratchets as on the real server, so an object stored before a rule existed can still be updated
 * in its other fields.
 */
function check(raw: SchemaObject, value: unknown, old: unknown, path: string, checking: Checking): void {
  if (old !== undefined && jsonEqual(value, old)) return;
  const { components, causes } = checking;
  const schema = resolve(raw, components);
  // Null is what pruning leaves of a required field; int-or-string and preserved fields take what they get.
  if (schema === undefined || value === null || schema['x-kubernetes-int-or-string'] === true || schema['x-kubernetes-preserve-unknown-fields'] === true) return;
  const type = schema['type'];
  if (!matchesType(type, value)) {
    const given = jsonType(value);
    causes.push({ reason: 'FieldValueTypeInvalid', field: path, message: `Invalid value: "${given}": ${path} in body must be of type ${String(type)}: "${given}"` });
    return;
  }
  if (typeof value === 'string' && schema['format'] === 'date-time' && !isDateTime(value)) {
    causes.push({ reason: 'FieldValueInvalid', field: path, message: `Invalid value: ${JSON.stringify(value)}: ${path} in body must be of type date-time: ${JSON.stringify(value)}` });
    return;
  }
  // Byte fields carry tokens and connector data: the message never repeats the value.
  if (typeof value === 'string' && schema['format'] === 'byte' && !isBase64(value)) {
    causes.push({ reason: 'FieldValueInvalid', field: path, message: `Invalid value: "<value not shown>": ${path} in body must be of type byte: base64 (standard alphabet, padded with "="), e.g. "aGVsbG8="` });
    return;
  }
  if (typeof value === 'number') {
    const bounds = integerBounds(schema);
    if (value < bounds.min || value > bounds.max) {
      const [relation, limit] = value < bounds.min ? ['greater', bounds.min] : ['less', bounds.max];
      const format = typeof schema['format'] === 'string' ? ` (${schema['format']})` : '';
      causes.push({ reason: 'FieldValueInvalid', field: path, message: `Invalid value: ${value}: ${path}${format} in body should be ${relation} than or equal to ${limit}` });
      return;
    }
  }
  const allowed = schema['enum'];
  if (Array.isArray(allowed) && !allowed.some((one) => one === value)) {
    causes.push(notSupportedValue(path, value, allowed.map((one) => String(one))));
    return;
  }
  if (Array.isArray(value) && isJsonObject(schema['items'])) {
    const items = schema['items'];
    value.forEach((item, index) => check(items, item, undefined, `${path}[${index}]`, checking));
    return;
  }
  if (!isJsonObject(value)) return;
  const properties = isJsonObject(schema['properties']) ? schema['properties'] : undefined;
  const additional = isJsonObject(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
  for (const [field, child] of Object.entries(value)) {
    const property = properties?.[field] ?? additional;
    if (isJsonObject(property)) check(property, child, isJsonObject(old) ? old[field] : undefined, path === '' ? field : `${path}.${field}`, checking);
  }
}

/**
 * The causes of a 422 for the values of `object` that do not fit what `schema` says (JSON type,
 * format, bounds, enum; see the top of this file), in document order; `metadata` is left to the
 * metadata rules. On an update `old` is the stored object: values it has unchanged are not
 * checked (ratcheting). Empty when every value fits.
 */
export function schemaTypeViolations(schema: KindSchema, object: Record<string, unknown>, old?: Record<string, unknown>): StatusCause[] {
  const root = schema.components[schema.name];
  if (root === undefined) return [];
  const withoutMetadata = (from: Record<string, unknown>): Record<string, unknown> => {
    const rest = { ...from };
    delete rest['metadata'];
    return rest;
  };
  const causes: StatusCause[] = [];
  check(root, withoutMetadata(object), old === undefined ? undefined : withoutMetadata(old), '', { components: schema.components, causes });
  return causes;
}
