import { describe, expect, it } from 'vitest';
import { reportedFields } from '../../../src/apiserver/duplicate-fields.js';
import { parseJsonBody } from '../../../src/apiserver/text-body-parsers.js';

const duplicateFields = (value: unknown): string[] => reportedFields(value, []).map((field) => field.path);

describe('reportedFields', () => {
  it('names each repeated key of a parsed body by its path, in document order, list items included', () => {
    const body = parseJsonBody('{"metadata":{"name":"a","name":"b"},"spec":{"ports":[{"port":1},{"port":2,"port":3}]},"data":{"k":"1","k":"2"}}');
    expect(duplicateFields(body)).toEqual(['metadata.name', 'spec.ports[1].port', 'data.k']);
  });

  it('reads keys and values as JSON: escapes, braces and quotes inside strings, whitespace, nested arrays', () => {
    const text = ' { "a\\"b" : "x}{[", "a\\u0022b": [ [ {"c": null, "c": true} ], 1.5e3 ], "s": "\\\\", "t": {} } ';
    expect(duplicateFields(parseJsonBody(text))).toEqual(['a"b', 'a"b[0][0].c']);
  });

  it('has nothing to say about bodies without duplicates, scalars or values it did not parse', () => {
    expect(duplicateFields(parseJsonBody('{"a":{"a":1},"b":[{"a":1},{"a":2}]}'))).toEqual([]);
    expect(duplicateFields(parseJsonBody('"text"'))).toEqual([]);
    expect(duplicateFields({ a: 1 })).toEqual([]);
  });

  it('places the unknown fields among the duplicates in document order, as the real server lists them', () => {
    const body = parseJsonBody('{"metadata":{"name":"f","zz":1,"name":"g"},"spec":{"ports":[{"bogus":1}]},"data":{"a":"1","a":"2"}}');
    expect(reportedFields(body, ['metadata.zz', 'spec.ports[0].bogus'])).toEqual([
      { path: 'metadata.zz', problem: 'unknown' },
      { path: 'metadata.name', problem: 'duplicate' },
      { path: 'spec.ports[0].bogus', problem: 'unknown' },
      { path: 'data.a', problem: 'duplicate' },
    ]);
    expect(reportedFields({ a: 1 }, ['x', 'y'])).toEqual([{ path: 'x', problem: 'unknown' }, { path: 'y', problem: 'unknown' }]);
  });
});
