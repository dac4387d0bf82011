import { describe, expect, it } from 'vitest';
import type { StoredObject } from '../../../src/apiserver/storage.js';
import { AccessKeyIndex } from '../../../src/management/access-key-index.js';
import { deepFreeze } from './scope-requests.js';

/** A stored key object `name` holding `hash` (no spec.key when undefined). */
function key(name: string, hash: string | undefined, spec: Record<string, unknown> = {}): StoredObject {
  return deepFreeze({ metadata: { name }, spec: { user: 'alice', ...(hash !== undefined ? { key: hash } : {}), ...spec } }) as StoredObject;
}

const A = 'hmac-sha256:a';
const B = 'hmac-sha256:b';

describe('AccessKeyIndex: key hash → the name of the object holding it', () => {
  it('indexes a list; a hash no key holds names nothing', () => {
    const index = new AccessKeyIndex();
    index.replace([key('one', A), key('two', B)]);
    expect([index.nameOf(A), index.nameOf(B), index.nameOf('hmac-sha256:c'), index.size]).toEqual(['one', 'two', undefined, 2]);
    expect([index.hashOf('one'), index.hashOf('three')]).toEqual([A, undefined]);
  });

  it('ignores objects without a stored hash (a clear key or none)', () => {
    const index = new AccessKeyIndex();
    index.replace([key('none', undefined), key('clear', 'Clear-Key_0123456789abcdefghijklmnop'), key('odd', undefined, { key: 42 })]);
    expect(index.size).toBe(0);
    expect(index.nameOf('Clear-Key_0123456789abcdefghijklmnop')).toBeUndefined();
  });

  it('replace forgets what the previous list had', () => {
    const index = new AccessKeyIndex();
    index.replace([key('one', A)]);
    index.replace([key('two', B)]);
    expect([index.nameOf(A), index.nameOf(B), index.size]).toEqual([undefined, 'two', 1]);
  });

  // [what, the change, A's name after, B's name after]
  const changes: Array<[string, { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: StoredObject }, string | undefined, string | undefined]> = [
    ['a new key', { type: 'ADDED', object: key('two', B) }, 'one', 'two'],
    ['the key deleted', { type: 'DELETED', object: key('one', A) }, undefined, undefined],
    ['the key given a new value (rotated)', { type: 'MODIFIED', object: key('one', B) }, undefined, 'one'],
    ['the key disabled: still indexed (the caller refuses it)', { type: 'MODIFIED', object: key('one', A, { disabled: true }) }, 'one', undefined],
    ['the key changed to hold no hash', { type: 'MODIFIED', object: key('one', undefined) }, undefined, undefined],
    ['a MODIFIED of a key never listed (the list missed it)', { type: 'MODIFIED', object: key('two', B) }, 'one', 'two'],
    ['a DELETED of a key never listed', { type: 'DELETED', object: key('two', B) }, 'one', undefined],
  ];
  it.each(changes)('%s', (_what, event, nameOfA, nameOfB) => {
    const index = new AccessKeyIndex();
    index.replace([key('one', A)]);
    index.apply(event);
    expect([index.nameOf(A), index.nameOf(B)]).toEqual([nameOfA, nameOfB]);
    expect(index.size).toBe([nameOfA, nameOfB].filter((name) => name !== undefined).length);
  });

  it('a hash two objects hold names the first by name, and the other once the first is gone', () => {
    const index = new AccessKeyIndex();
    index.replace([key('b', A), key('c', A)]);
    index.apply({ type: 'ADDED', object: key('a', A) });
    expect(index.nameOf(A)).toBe('a');
    index.apply({ type: 'DELETED', object: key('a', A) });
    expect(index.nameOf(A)).toBe('b');
    index.apply({ type: 'MODIFIED', object: key('b', B) });
    expect([index.nameOf(A), index.nameOf(B)]).toEqual(['c', 'b']);
    index.apply({ type: 'DELETED', object: key('c', A) });
    expect([index.nameOf(A), index.size]).toEqual([undefined, 1]);
  });

  it('clear forgets every object', () => {
    const index = new AccessKeyIndex();
    index.replace([key('one', A), key('two', B)]);
    index.clear();
    expect([index.nameOf(A), index.hashOf('two'), index.size]).toEqual([undefined, undefined, 0]);
  });
});
