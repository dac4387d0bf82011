import { describe, expect, it } from 'vitest';
import { jsonByteLength } from '../../../src/apiserver/json-size.js';

describe('jsonByteLength', () => {
  const cases: [string, unknown, number][] = [
    ['an empty object', {}, 2],
    ['scalars', [1, true, null, 'a'], 17],
    ['non-ASCII text, counted as UTF-8', { k: 'värde ✓' }, 18],
    ['escapes', { a: 'x"\n' }, 13],
    ['undefined members, left out as JSON does', { a: undefined, b: 1 }, 7],
  ];
  it.each(cases)('%s', (_, value, bytes) => {
    expect(jsonByteLength(value)).toBe(bytes);
  });
});
