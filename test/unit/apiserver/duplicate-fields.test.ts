import { describe, expect, it } from 'vitest';
import { duplicateFields } from '../../../src/apiserver/duplicate-fields.js';
import { parseJsonBody } from '../../../src/apiserver/text-body-parsers.js';

describe('duplicateFields', () => {
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
});
