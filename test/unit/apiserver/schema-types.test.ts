import { describe, expect, it } from 'vitest';
import type { SchemaObject } from '../../../src/apiserver/schema-object.js';
import type { KindSchema } from '../../../src/apiserver/schema-pruning.js';
import { isBase64, schemaTypeViolations } from '../../../src/apiserver/schema-types.js';

const SPEC: SchemaObject = {
  type: 'object',
  properties: {
    token: { type: 'string', format: 'byte' },
    seconds: { type: 'integer', format: 'int32' },
    ttl: { type: 'integer', format: 'int64' },
    ratio: { type: 'integer', minimum: 1, maximum: 10 },
    kind: { type: 'string', enum: ['', 'User', 'Other'] },
    tokens: { type: 'array', items: { type: 'string', format: 'byte' } },
  },
};
const THING: KindSchema = { name: 'Thing', components: { Thing: { type: 'object', properties: { spec: SPEC } } } };

/** The causes for `spec` as `field reason` lines. */
const violations = (spec: Record<string, unknown>, old?: Record<string, unknown>): string[] =>
  schemaTypeViolations(THING, { spec }, old === undefined ? undefined : { spec: old }).map((cause) => `${cause.field} ${cause.reason}`);

describe('schemaTypeViolations: values a typed Go client must be able to decode', () => {
  it('reads base64 as Go decodes a []byte: standard alphabet, padded, line breaks ignored', () => {
    for (const good of ['', 'YQ==', 'YWI=', 'YWJj', 'aGVs\nbG8=', 'a+/9']) expect({ good, ok: isBase64(good) }).toEqual({ good, ok: true });
    for (const bad of ['not base64!', 'abc', 'YQ', 'a-b_', 'YQ==YQ==', '====']) expect({ bad, ok: isBase64(bad) }).toEqual({ bad, ok: false });
  });

  it('refuses a byte string that is not base64 without repeating it', () => {
    const [cause] = schemaTypeViolations(THING, { spec: { token: 'secret token!' } });
    expect(cause).toMatchObject({ field: 'spec.token', reason: 'FieldValueInvalid' });
    expect(cause?.message).not.toContain('secret token!');
    expect(violations({ tokens: ['YQ==', 'no pe'] })).toEqual(['spec.tokens[1] FieldValueInvalid']);
  });

  it('bounds integers by their format (int32; int64 as far as a JSON number is exact) and by minimum and maximum', () => {
    expect(violations({ seconds: 2 ** 31 - 1, ttl: Number.MAX_SAFE_INTEGER, ratio: 10 })).toEqual([]);
    expect(violations({ seconds: 3_000_000_000, ttl: 2 ** 63, ratio: 0 })).toEqual(['spec.seconds FieldValueInvalid', 'spec.ttl FieldValueInvalid', 'spec.ratio FieldValueInvalid']);
    expect(schemaTypeViolations(THING, { spec: { seconds: -(2 ** 31) - 1 } })[0]?.message).toBe('Invalid value: -2147483649: spec.seconds (int32) in body should be greater than or equal to -2147483648');
  });

  it('refuses a value outside the enum, listing the supported values', () => {
    expect(violations({ kind: 'User' })).toEqual([]);
    expect(schemaTypeViolations(THING, { spec: { kind: 'Bogus' } })).toEqual([{ reason: 'FieldValueNotSupported', field: 'spec.kind', message: 'Unsupported value: "Bogus": supported values: "", "User", "Other"' }]);
  });

  it('ratchets on update: a value the stored object has unchanged is not checked, a changed one is', () => {
    const stored = { kind: 'Platform', token: 'not base64', seconds: 3_000_000_000 };
    expect(violations({ ...stored, ratio: 5 }, stored)).toEqual([]);
    expect(violations({ ...stored, kind: 'Bogus' }, stored)).toEqual(['spec.kind FieldValueNotSupported']);
    expect(violations({ ...stored, tokens: ['x'] }, stored)).toEqual(['spec.tokens[0] FieldValueInvalid']);
  });
});
