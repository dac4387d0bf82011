import { describe, expect, it } from 'vitest';
import { jsonSizeWithin } from '../../../src/apiserver/json-size.js';

describe('jsonSizeWithin', () => {
  const exact: [string, unknown][] = [
    ['an empty object', {}],
    ['an empty array', []],
    ['scalars', [1, -2.5, 1e21, true, false, null, 'text']],
    ['a nested object', { a: { b: [1, { c: 'd' }] }, e: [] }],
    ['non-ASCII text', { 'ключ': 'värde ✓ 🎉' }],
    ['quotes and backslashes', { 'a"b': 'c\\d"' }],
    ['a Kubernetes object', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { a: 'b' } }, data: { x: 'y'.repeat(100) } }],
  ];
  it.each(exact)('measures %s exactly as compact UTF-8 JSON', (_, value) => {
    expect(jsonSizeWithin(value, Number.MAX_SAFE_INTEGER)).toBe(Buffer.byteLength(JSON.stringify(value)));
  });

  it('leaves out undefined members as JSON does, and counts undefined array items as null', () => {
    expect(jsonSizeWithin({ a: undefined, b: 1 }, 100)).toBe(JSON.stringify({ b: 1 }).length);
    expect(jsonSizeWithin([undefined, 1], 100)).toBe(JSON.stringify([null, 1]).length);
  });

  it('answers undefined past the limit, and the size at the limit', () => {
    const value = { data: 'x'.repeat(50) };
    const size = JSON.stringify(value).length;
    expect(jsonSizeWithin(value, size)).toBe(size);
    expect(jsonSizeWithin(value, size - 1)).toBeUndefined();
  });

  it('stops at the limit without walking the rest of a huge value', () => {
    let reads = 0;
    const items = new Proxy(new Array<unknown>(2_000_000).fill('x'), {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^[0-9]+$/.test(key)) reads += 1;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    expect(jsonSizeWithin(items, 1024)).toBeUndefined();
    expect(reads).toBe(0);
    const wide = { a: 'x'.repeat(2000), b: items };
    expect(jsonSizeWithin(wide, 1024)).toBeUndefined();
    expect(reads).toBe(0);
  });

  it('measures values nested far deeper than the stack would allow a recursive walk', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 100_000; level += 1) deep = [deep];
    expect(jsonSizeWithin(deep, Number.MAX_SAFE_INTEGER)).toBe(200_001);
  });
});
