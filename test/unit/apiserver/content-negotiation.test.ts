import { describe, expect, it } from 'vitest';
import { bodyMediaType, negotiate, OPENAPI_V2_PROTOBUF } from '../../../src/apiserver/content-negotiation.js';

describe('bodyMediaType', () => {
  it.each([
    ['POST', undefined, 'application/json'],
    ['PUT', undefined, 'application/json'],
    ['DELETE', undefined, 'application/json'],
    ['PATCH', undefined, ''],
    ['POST', 'Application/YAML; charset=utf-8', 'application/yaml'],
    ['PATCH', 'application/merge-patch+json', 'application/merge-patch+json'],
  ])('%s with Content-Type %s reads as %j', (method, contentType, expected) => {
    expect(bodyMediaType(method, contentType)).toBe(expected);
  });
});

describe('negotiate the OpenAPI v2 document', () => {
  it('answers protobuf to client-go, which asks for nothing else, and JSON to everyone else', () => {
    expect(negotiate('application/com.github.proto-openapi.spec.v2@v1.0+protobuf', ['openapi-v2-protobuf', 'json'])).toBe('openapi-v2-protobuf');
    expect(negotiate(OPENAPI_V2_PROTOBUF, ['openapi-v2-protobuf', 'json'])).toBe('openapi-v2-protobuf');
    expect(negotiate('application/json', ['openapi-v2-protobuf', 'json'])).toBe('json');
    expect(negotiate(undefined, ['openapi-v2-protobuf', 'json'])).toBe('json');
    expect(() => negotiate(OPENAPI_V2_PROTOBUF, ['json'])).toThrow(/only the following media types/);
  });
});
