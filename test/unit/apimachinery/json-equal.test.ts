import { describe, expect, it } from 'vitest';
import { jsonEqual } from '../../../src/apimachinery/index.js';

describe('jsonEqual', () => {
  it.each<[string, unknown, unknown, boolean]>([
    ['equal primitives', 'a', 'a', true],
    ['different primitives', 1, '1', false],
    ['null and an object', null, {}, false],
    ['objects in another key order', { a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, true],
    ['arrays in another order', [1, 2], [2, 1], false],
    ['an array and an object with its indices as keys', [1], { 0: 1 }, false],
    ['an empty array and an empty object', [], {}, false],
    ['a key present as undefined and a missing key', { a: undefined }, {}, false],
    ['a nested difference', { a: { b: { c: 1 } } }, { a: { b: { c: 2 } } }, false],
    ['-0 and 0 (SameValueZero: both are 0 in JSON text)', { n: -0 }, { n: 0 }, true],
    ['NaN and NaN (SameValueZero: a value equals itself)', [Number.NaN], [Number.NaN], true],
    ['NaN and null', Number.NaN, null, false],
  ])('%s', (_, a, b, expected) => {
    expect(jsonEqual(a, b)).toBe(expected);
    expect(jsonEqual(b, a)).toBe(expected);
  });

  it('terminates on cycles: cycles of the same shape are equal, of another content not', () => {
    const a: Record<string, unknown> = { name: 'x' };
    a['self'] = a;
    const b: Record<string, unknown> = { name: 'x' };
    b['self'] = b;
    const c: Record<string, unknown> = { name: 'y' };
    c['self'] = c;
    expect(jsonEqual(a, b)).toBe(true);
    expect(jsonEqual(a, c)).toBe(false);
    const list: unknown[] = [];
    list.push(list);
    const other: unknown[] = [];
    other.push([other]);
    expect(jsonEqual(list, other)).toBe(true);
  });

  it('compares a value shared by two branches each time it is met', () => {
    const shared = { k: 1 };
    expect(jsonEqual({ a: shared, b: shared }, { a: { k: 1 }, b: { k: 2 } })).toBe(false);
  });
});
