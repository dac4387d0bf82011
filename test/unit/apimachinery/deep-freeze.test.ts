import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../../src/apimachinery/index.js';

describe('deepFreeze', () => {
  it('freezes objects and arrays all the way down, in place, and returns the same value', () => {
    const value = { a: { b: [1, { c: 'd' }] } };
    const frozen = deepFreeze(value);
    expect(frozen).toBe(value);
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(value.a)).toBe(true);
    expect(Object.isFrozen(value.a.b)).toBe(true);
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
    expect(() => {
      (value.a.b as unknown[]).push(2);
    }).toThrow(TypeError);
  });

  it('returns primitives and null as they are', () => {
    expect(deepFreeze(3)).toBe(3);
    expect(deepFreeze('s')).toBe('s');
    expect(deepFreeze(null)).toBe(null);
    expect(deepFreeze(undefined)).toBe(undefined);
  });

  it('ends on cycles', () => {
    const a: Record<string, unknown> = { list: [] };
    a['self'] = a;
    (a['list'] as unknown[]).push(a);
    expect(deepFreeze(a)).toBe(a);
    expect(Object.isFrozen(a['list'])).toBe(true);
  });

  it('takes an already frozen object as deeply frozen and does not walk it again', () => {
    const inner = { mutable: {} };
    const shallow = Object.freeze({ inner });
    deepFreeze({ shallow });
    expect(Object.isFrozen(inner)).toBe(false);
  });
});
