/**
 * The Swagger 2.0 document in the protobuf encoding the real server also serves at `/openapi/v2`
 * (gnostic's `openapi.v2.Document`, media type `OPENAPI_V2_PROTOBUF` of content-negotiation.ts). client-go asks for
 * nothing else there: kubectl reads it to validate a `create -f` on the client when the OpenAPI v3
 * document offers no PATCH for the kind (a create-only kind such as a token request), and fails
 * with "failed to download openapi" without it. Vendor extensions and defaults are `Any` values
 * holding YAML, as gnostic's are. Pure.
 */
import { bytesField, doubleField, stringField, varintField } from './protobuf-wire-writer.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function str(number: number, value: unknown): Buffer[] {
  return typeof value === 'string' && value !== '' ? [stringField(number, value)] : [];
}

function repeatedStr(number: number, value: unknown): Buffer[] {
  return strings(value).map((item) => stringField(number, item));
}

function bool(number: number, value: unknown): Buffer[] {
  return value === true ? [varintField(number, true)] : [];
}

function int64(number: number, value: unknown): Buffer[] {
  return typeof value === 'number' && Number.isInteger(value) && value !== 0 ? [varintField(number, value)] : [];
}

function double(number: number, value: unknown): Buffer[] {
  return typeof value === 'number' && value !== 0 ? [doubleField(number, value)] : [];
}

/**
 * gnostic's `Any`: the value as YAML (field 2), written as JSON, which is YAML too and what readers
 * (kube-openapi's `yaml.Unmarshal`) parse the same, at a small part of a YAML emitter's cost.
 */
function any(number: number, value: unknown): Buffer {
  return bytesField(number, stringField(2, JSON.stringify(value)));
}

function optionalAny(number: number, value: unknown): Buffer[] {
  return value === undefined ? [] : [any(number, value)];
}

/** The `x-` keys of `object` as repeated `NamedAny {name = 1, value = 2}` at `number`. */
function vendorExtensions(number: number, object: Json): Buffer[] {
  return Object.entries(object)
    .filter(([key]) => key.startsWith('x-'))
    .map(([key, value]) => bytesField(number, stringField(1, key), any(2, value)));
}

/** `Schema`: every Swagger 2.0 schema keyword by its field number; keywords v2 does not have are left out. */
function schema(value: Json): Buffer {
  const additional = value['additionalProperties'];
  const items = value['items'];
  const itemSchemas = Array.isArray(items) ? items.filter(isObject) : isObject(items) ? [items] : [];
  const properties = isObject(value['properties']) ? Object.entries(value['properties']).filter((entry): entry is [string, Json] => isObject(entry[1])) : [];
  return Buffer.concat([
    ...str(1, value['$ref']),
    ...str(2, value['format']),
    ...str(3, value['title']),
    ...str(4, value['description']),
    ...optionalAny(5, value['default']),
    ...double(6, value['multipleOf']),
    ...double(7, value['maximum']),
    ...bool(8, value['exclusiveMaximum']),
    ...double(9, value['minimum']),
    ...bool(10, value['exclusiveMinimum']),
    ...int64(11, value['maxLength']),
    ...int64(12, value['minLength']),
    ...str(13, value['pattern']),
    ...int64(14, value['maxItems']),
    ...int64(15, value['minItems']),
    ...bool(16, value['uniqueItems']),
    ...int64(17, value['maxProperties']),
    ...int64(18, value['minProperties']),
    ...repeatedStr(19, value['required']),
    ...(Array.isArray(value['enum']) ? value['enum'].map((item) => any(20, item)) : []),
    // AdditionalPropertiesItem: a schema (1) or a boolean (2).
    ...(isObject(additional) ? [bytesField(21, bytesField(1, schema(additional)))] : typeof additional === 'boolean' ? [bytesField(21, varintField(2, additional))] : []),
    ...(value['type'] !== undefined ? [bytesField(22, ...repeatedStr(1, value['type']))] : []),
    ...(itemSchemas.length > 0 ? [bytesField(23, ...itemSchemas.map((item) => bytesField(1, schema(item))))] : []),
    ...(Array.isArray(value['allOf']) ? value['allOf'].filter(isObject).map((item) => bytesField(24, schema(item))) : []),
    ...(properties.length > 0 ? [bytesField(25, ...properties.map(([name, property]) => bytesField(1, stringField(1, name), bytesField(2, schema(property)))))] : []),
    ...str(26, value['discriminator']),
    ...bool(27, value['readOnly']),
    ...optionalAny(30, value['example']),
    ...vendorExtensions(31, value),
  ]);
}

/**
 * `ParametersItem`: a `$ref` (JsonReference, 2) or a Parameter (1), which is a BodyParameter (1)
 * or a NonBodyParameter (2) of one of four sub-schemas by where it goes.
 */
function parameter(value: Json): Buffer {
  if (typeof value['$ref'] === 'string') return bytesField(2, stringField(1, value['$ref']), ...str(2, value['description']));
  const where = value['in'];
  if (where === 'body') {
    const body = [...str(1, value['description']), ...str(2, value['name']), ...str(3, where), ...bool(4, value['required']), ...(isObject(value['schema']) ? [bytesField(5, schema(value['schema']))] : []), ...vendorExtensions(6, value)];
    return bytesField(1, bytesField(1, ...body));
  }
  const head = [...bool(1, value['required']), ...str(2, where), ...str(3, value['description']), ...str(4, value['name'])];
  // Query and formData sub-schemas have allowEmptyValue (5) before type; path and header do not.
  const withEmptyValue = where === 'query' || where === 'formData';
  const offset = withEmptyValue ? 1 : 0;
  const typed = [...str(5 + offset, value['type']), ...str(6 + offset, value['format']), ...bool(19 + offset, value['uniqueItems']), ...vendorExtensions(22 + offset, value)];
  const fields = withEmptyValue ? [...head, ...bool(5, value['allowEmptyValue']), ...typed] : [...head, ...typed];
  const subSchema = { header: 1, formData: 2, query: 3, path: 4 }[String(where)] ?? 3;
  return bytesField(1, bytesField(2, bytesField(subSchema, ...fields)));
}

/** `Responses`: repeated NamedResponseValue, each a Response (description, SchemaItem.schema). */
function responses(value: Json): Buffer {
  return Buffer.concat(
    Object.entries(value)
      .filter((entry): entry is [string, Json] => isObject(entry[1]))
      .map(([code, response]) => {
        const body = [...str(1, response['description']), ...(isObject(response['schema']) ? [bytesField(2, bytesField(1, schema(response['schema'])))] : []), ...vendorExtensions(5, response)];
        return bytesField(1, stringField(1, code), bytesField(2, bytesField(1, ...body)));
      }),
  );
}

function parameters(number: number, value: unknown): Buffer[] {
  return Array.isArray(value) ? value.filter(isObject).map((item) => bytesField(number, parameter(item))) : [];
}

function operation(value: Json): Buffer {
  return Buffer.concat([
    ...repeatedStr(1, value['tags']),
    ...str(2, value['summary']),
    ...str(3, value['description']),
    ...str(5, value['operationId']),
    ...repeatedStr(6, value['produces']),
    ...repeatedStr(7, value['consumes']),
    ...parameters(8, value['parameters']),
    ...(isObject(value['responses']) ? [bytesField(9, responses(value['responses']))] : []),
    ...repeatedStr(10, value['schemes']),
    ...bool(11, value['deprecated']),
    ...vendorExtensions(13, value),
  ]);
}

const OPERATION_FIELDS: Readonly<Record<string, number>> = { get: 2, put: 3, post: 4, delete: 5, options: 6, head: 7, patch: 8 };

function pathItem(value: Json): Buffer {
  const operations = Object.entries(OPERATION_FIELDS).flatMap(([method, number]) => {
    const found = value[method];
    return isObject(found) ? [bytesField(number, operation(found))] : [];
  });
  return Buffer.concat([...str(1, value['$ref']), ...operations, ...parameters(9, value['parameters']), ...vendorExtensions(10, value)]);
}

/**
 * The protobuf encoding of the Swagger 2.0 document `document` (as JSON): swagger, info, paths
 * and definitions, the parts a Kubernetes server's document has.
 */
export function encodeOpenApiV2(document: Json): Buffer {
  const info = isObject(document['info']) ? document['info'] : {};
  const paths = isObject(document['paths']) ? Object.entries(document['paths']).filter((entry): entry is [string, Json] => isObject(entry[1])) : [];
  const definitions = isObject(document['definitions']) ? Object.entries(document['definitions']).filter((entry): entry is [string, Json] => isObject(entry[1])) : [];
  return Buffer.concat([
    ...str(1, document['swagger']),
    bytesField(2, ...str(1, info['title']), ...str(2, info['version']), ...str(3, info['description'])),
    ...repeatedStr(6, document['consumes']),
    ...repeatedStr(7, document['produces']),
    bytesField(8, ...paths.map(([path, item]) => bytesField(2, stringField(1, path), bytesField(2, pathItem(item))))),
    bytesField(9, ...definitions.map(([name, definition]) => bytesField(1, stringField(1, name), bytesField(2, schema(definition))))),
  ]);
}
