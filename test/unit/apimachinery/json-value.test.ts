import { describe, expect, it } from 'vitest';
import { isJsonObject } from '../../../src/apimachinery/index.js';

describe('isJsonObject', () => {
  it.each<[string, unknown, boolean]>([
    ['an object', { a: 1 }, true],
    ['an empty object', {}, true],
    ['an object without prototype', Object.create(null) as object, true],
    ['null', null, false],
    ['an array', [1], false],
    ['a string', 'x', false],
    ['a number', 0, false],
    ['undefined', undefined, false],
  ])('%s', (_, value, expected) => {
    expect(isJsonObject(value)).toBe(expected);
  });
});
