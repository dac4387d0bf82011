import { describe, expect, it } from 'vitest';
import { encodeOpenApiV2 } from '../../../src/apiserver/openapi-v2-protobuf.js';
import { readWireFields, type WireField } from '../../../src/apiserver/protobuf-wire-reader.js';

/** The length-delimited values of field `number` (field numbers of gnostic's OpenAPIv2.proto). */
function all(bytes: Buffer, number: number): Buffer[] {
  return readWireFields(bytes)
    .filter((field): field is Extract<WireField, { wireType: 2 }> => field.number === number && field.wireType === 2)
    .map((field) => field.value);
}

function one(bytes: Buffer, ...path: number[]): Buffer {
  let current = bytes;
  for (const number of path) {
    const [found] = all(current, number);
    if (found === undefined) throw new Error(`no field ${number} on the path ${path.join('.')}`);
    current = found;
  }
  return current;
}

const DOCUMENT = Object.freeze({
  swagger: '2.0',
  info: { title: 'Kubernetes', version: 'v1.32.0' },
  paths: {
    '/apis/example.com/v1/things/{name}': {
      patch: {
        operationId: 'patchThing',
        consumes: ['application/merge-patch+json'],
        parameters: [
          { name: 'fieldValidation', in: 'query', description: 'how', type: 'string', uniqueItems: true },
          { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/com.example.v1.Thing' } },
        ],
        responses: { '200': { description: 'OK', schema: { $ref: '#/definitions/com.example.v1.Thing' } } },
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group: 'example.com', version: 'v1', kind: 'Thing' },
      },
      parameters: [{ name: 'name', in: 'path', required: true, type: 'string' }],
    },
  },
  definitions: {
    'com.example.v1.Thing': {
      type: 'object',
      required: ['spec'],
      properties: { spec: { type: 'object', additionalProperties: { type: 'integer', format: 'int32', maximum: 9 } }, tags: { type: 'array', items: { type: 'string' } } },
      'x-kubernetes-group-version-kind': [{ group: 'example.com', kind: 'Thing', version: 'v1' }],
    },
  },
});

describe('encodeOpenApiV2 (gnostic openapi.v2.Document)', () => {
  const bytes = encodeOpenApiV2(DOCUMENT);

  it('writes swagger, info and each definition by name, with its type, required fields, properties and vendor extensions', () => {
    expect(one(bytes, 1).toString()).toBe('2.0');
    expect(one(bytes, 2, 2).toString()).toBe('v1.32.0');
    const named = one(bytes, 9, 1);
    expect(one(named, 1).toString()).toBe('com.example.v1.Thing');
    const schema = one(named, 2);
    expect(one(schema, 22, 1).toString()).toBe('object');
    expect(all(schema, 19).map(String)).toEqual(['spec']);
    const properties = all(one(schema, 25), 1).map((property) => one(property, 1).toString());
    expect(properties).toEqual(['spec', 'tags']);
    const spec = one(all(one(schema, 25), 1)[0] as Buffer, 2);
    const additional = one(spec, 21, 1);
    expect(one(additional, 2).toString()).toBe('int32');
    expect(readWireFields(additional).find((field) => field.number === 7)).toMatchObject({ wireType: 1, value: Buffer.from([0, 0, 0, 0, 0, 0, 0x22, 0x40]) });
    const extension = one(schema, 31);
    expect(one(extension, 1).toString()).toBe('x-kubernetes-group-version-kind');
    expect(JSON.parse(one(extension, 2, 2).toString())).toEqual([{ group: 'example.com', kind: 'Thing', version: 'v1' }]);
  });

  it('writes a PATCH operation with its query parameter where kubectl’s v2 verifier looks for fieldValidation', () => {
    const item = one(bytes, 8, 2);
    expect(one(item, 1).toString()).toBe('/apis/example.com/v1/things/{name}');
    const patch = one(item, 2, 8);
    expect(one(patch, 5).toString()).toBe('patchThing');
    const [query, body] = all(patch, 8);
    // ParametersItem.parameter (1) → Parameter.non_body_parameter (2) → query_parameter_sub_schema (3) → name (4).
    expect(one(query as Buffer, 1, 2, 3, 4).toString()).toBe('fieldValidation');
    expect(one(query as Buffer, 1, 2, 3, 6).toString()).toBe('string');
    // ParametersItem.parameter (1) → Parameter.body_parameter (1) → schema (5) → $ref (1).
    expect(one(body as Buffer, 1, 1, 5, 1).toString()).toBe('#/definitions/com.example.v1.Thing');
    const actions = all(patch, 13).map((extension) => one(extension, 1).toString());
    expect(actions).toEqual(['x-kubernetes-action', 'x-kubernetes-group-version-kind']);
    // The path-level parameter: PathItem.parameters (9) → … → path_parameter_sub_schema (4) → name (4).
    expect(one(item, 2, 9, 1, 2, 4, 4).toString()).toBe('name');
    // Responses.response_code (1) → NamedResponseValue name (1).
    expect(one(patch, 9, 1, 1).toString()).toBe('200');
  });
});
