import type { StatusCause } from './api-error.js';
import { isJsonObject } from './kind-strategy.js';
import type { SchemaObject } from './openapi.js';
import type { KindSchema } from './schema-pruning.js';

/**
 * The type checks the real server makes on a custom resource against its structural schema: a
 * value of the wrong JSON type (a string where the schema says array, a string for a boolean) or
 * a `date-time` that is not RFC 3339 is a 422 cause, e.g. `spec.groups: Invalid value: "string":
 * spec.groups in body must be of type array: "string"`. Pure.
 */

const REF_PREFIX = '#/components/schemas/';
/** A date-time as Kubernetes' strfmt reads it: RFC 3339, with a zone. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

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

function check(raw: SchemaObject, value: unknown, path: string, components: Readonly<Record<string, SchemaObject>>, causes: StatusCause[]): void {
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
  if (Array.isArray(value) && isJsonObject(schema['items'])) {
    const items = schema['items'];
    value.forEach((item, index) => check(items, item, `${path}[${index}]`, components, causes));
    return;
  }
  if (!isJsonObject(value)) return;
  const properties = isJsonObject(schema['properties']) ? schema['properties'] : undefined;
  const additional = isJsonObject(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
  for (const [field, child] of Object.entries(value)) {
    const property = properties?.[field] ?? additional;
    if (isJsonObject(property)) check(property, child, path === '' ? field : `${path}.${field}`, components, causes);
  }
}

/**
 * The causes of a 422 for the values of `object` whose JSON type differs from what `schema` says
 * (or a `date-time` string that is not one), in document order; `metadata` is left to the
 * metadata rules. Empty when every value fits.
 */
export function schemaTypeViolations(schema: KindSchema, object: Record<string, unknown>): StatusCause[] {
  const root = schema.components[schema.name];
  if (root === undefined) return [];
  const rest = { ...object };
  delete rest['metadata'];
  const causes: StatusCause[] = [];
  check(root, rest, '', schema.components, causes);
  return causes;
}
