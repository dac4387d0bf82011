import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/apimachinery/index.js';
import { applyPatch } from '../../../src/apiserver/apply-patch.js';
import { applyJsonPatch, MAX_JSON_PATCH_ADDED_BYTES, MAX_JSON_PATCH_LIST_SHIFTS, MAX_JSON_PATCH_OPERATIONS } from '../../../src/apiserver/json-patch.js';

type Doc = Record<string, unknown>;

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error: unknown) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('the patch applied');
}

/** The reproduction: one add of a 1,000-item list under /spec/description, then 16 copies of /spec. */
function growingPatch(copies = 16): unknown[] {
  const operations: unknown[] = [{ op: 'add', path: '/spec/description', value: Array.from({ length: 1000 }, (_, i) => `item-${i}`) }];
  for (let copy = 0; copy < copies; copy += 1) operations.push({ op: 'copy', from: '/spec', path: `/spec/c${copy}` });
  return operations;
}

describe('applyJsonPatch: RFC 6902', () => {
  const base = (): Doc => Object.freeze({ metadata: Object.freeze({ name: 'a', labels: Object.freeze({ x: '1' }) }), list: Object.freeze(['a', 'b']) }) as Doc;

  const cases: [string, unknown[], unknown][] = [
    ['add a member', [{ op: 'add', path: '/metadata/labels/y', value: '2' }], { metadata: { name: 'a', labels: { x: '1', y: '2' } }, list: ['a', 'b'] }],
    ['add replaces an existing member', [{ op: 'add', path: '/metadata/name', value: 'b' }], { metadata: { name: 'b', labels: { x: '1' } }, list: ['a', 'b'] }],
    ['add inserts into a list and appends with -', [{ op: 'add', path: '/list/1', value: 'm' }, { op: 'add', path: '/list/-', value: 'z' }], { metadata: { name: 'a', labels: { x: '1' } }, list: ['a', 'm', 'b', 'z'] }],
    ['remove', [{ op: 'remove', path: '/metadata/labels/x' }, { op: 'remove', path: '/list/0' }], { metadata: { name: 'a', labels: {} }, list: ['b'] }],
    ['replace', [{ op: 'replace', path: '/list/1', value: 'c' }], { metadata: { name: 'a', labels: { x: '1' } }, list: ['a', 'c'] }],
    ['move', [{ op: 'move', from: '/metadata/labels/x', path: '/metadata/labels/z' }], { metadata: { name: 'a', labels: { z: '1' } }, list: ['a', 'b'] }],
    ['copy is a copy, not a shared value', [{ op: 'copy', from: '/metadata/labels', path: '/copied' }, { op: 'add', path: '/copied/y', value: '2' }], { metadata: { name: 'a', labels: { x: '1' } }, list: ['a', 'b'], copied: { x: '1', y: '2' } }],
    ['escaped tokens', [{ op: 'add', path: '/metadata/labels/a~1b~0c', value: 'v' }], { metadata: { name: 'a', labels: { x: '1', 'a/b~c': 'v' } }, list: ['a', 'b'] }],
    ['test that passes', [{ op: 'test', path: '/metadata', value: { labels: { x: '1' }, name: 'a' } }], { metadata: { name: 'a', labels: { x: '1' } }, list: ['a', 'b'] }],
    ['replace the whole document', [{ op: 'replace', path: '', value: { b: 1 } }], { b: 1 }],
    ['move onto an existing member replaces it', [{ op: 'move', from: '/metadata/name', path: '/metadata/labels/x' }], { metadata: { labels: { x: 'a' } }, list: ['a', 'b'] }],
    ['move within a list', [{ op: 'move', from: '/list/0', path: '/list/-' }], { metadata: { name: 'a', labels: { x: '1' } }, list: ['b', 'a'] }],
    ['move the whole document onto itself', [{ op: 'move', from: '', path: '' }], { metadata: { name: 'a', labels: { x: '1' } }, list: ['a', 'b'] }],
    ['a member named constructor is data', [{ op: 'add', path: '/constructor', value: { a: 1 } }, { op: 'add', path: '/constructor/b', value: 2 }], { metadata: { name: 'a', labels: { x: '1' } }, list: ['a', 'b'], constructor: { a: 1, b: 2 } }],
  ];
  it.each(cases)('%s', (_, patch, expected) => {
    const original = base();
    expect(applyJsonPatch(original, patch)).toEqual(expected);
    expect(original).toEqual(base()); // frozen, and unchanged
  });

  const failures: [string, unknown[], RegExp][] = [
    ['a failed test', [{ op: 'test', path: '/metadata/name', value: 'b' }], /operation 0 .*testing the value at "\/metadata\/name" failed/],
    ['a missing path', [{ op: 'replace', path: '/nope', value: 1 }], /"\/nope" does not exist/],
    ['a missing parent', [{ op: 'add', path: '/a/b', value: 1 }], /parent \/a does not exist/],
    ['an index out of range', [{ op: 'add', path: '/list/5', value: 1 }], /out of range/],
    ['a move into itself', [{ op: 'move', from: '/metadata', path: '/metadata/x' }], /cannot move into itself/],
    ['a copy from nowhere', [{ op: 'copy', from: '/nope', path: '/x' }], /"\/nope" does not exist/],
    ['an unknown operation', [{ op: 'merge', path: '/x' }], /unknown operation "merge"/],
    ['an add without value', [{ op: 'add', path: '/x' }], /has no "value"/],
    ['a path not starting with /', [{ op: 'add', path: 'x', value: 1 }], /not a JSON pointer/],
    ['__proto__', [{ op: 'add', path: '/__proto__/polluted', value: true }], /__proto__/],
    ['constructor/prototype', [{ op: 'add', path: '/constructor', value: {} }, { op: 'add', path: '/constructor/prototype', value: { polluted: true } }], /operation 1 .*"constructor\/prototype"/],
    ['an array index that is not a number', [{ op: 'add', path: '/list/x', value: 1 }], /out of range/],
    ['an array index with a leading zero', [{ op: 'replace', path: '/list/01', value: 1 }], /"\/list\/01" does not exist/],
    ['a path through a string', [{ op: 'remove', path: '/metadata/name/x' }], /"\/metadata\/name\/x" does not exist/],
    ['removing the whole document', [{ op: 'remove', path: '' }], /whole document cannot be removed/],
    ['a test of a missing path', [{ op: 'test', path: '/nope/deeper', value: 1 }], /testing the value at "\/nope\/deeper" failed/],
  ];
  it.each(failures)('422 on %s', (_, patch, message) => {
    const error = refusal(() => applyJsonPatch(base(), patch));
    expect(error.code).toBe(422);
    expect(error.message).toMatch(message);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('400 when the patch is not a list of operations with op and path', () => {
    expect(refusal(() => applyJsonPatch(base(), { op: 'add' })).code).toBe(400);
    expect(refusal(() => applyJsonPatch(base(), [{ path: '/x' }])).code).toBe(400);
  });
});

describe('applyJsonPatch: the limits', () => {
  it(`413 past ${MAX_JSON_PATCH_OPERATIONS} operations, with kube-apiserver's message; exactly the limit applies`, () => {
    const test = { op: 'test', path: '/a', value: 1 };
    const tooMany = refusal(() => applyJsonPatch({ a: 1 }, new Array(MAX_JSON_PATCH_OPERATIONS + 1).fill(test)));
    expect(tooMany.code).toBe(413);
    expect(tooMany.reason).toBe('RequestEntityTooLarge');
    expect(tooMany.message).toBe('Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
    expect(applyJsonPatch({ a: 1 }, new Array(MAX_JSON_PATCH_OPERATIONS).fill(test))).toEqual({ a: 1 });
  });

  it('refuses the security review’s growing patch at the copy that passes 3 MiB, not after building it', () => {
    const error = refusal(() => applyJsonPatch({ spec: { user: 'carol' } }, growingPatch()));
    expect(error.code).toBe(422);
    expect(error.reason).toBe('Invalid');
    // The list is about 11 KB; /spec doubles with each copy: 11 KB × (2^9 − 1) is past 3 MiB at copy 9 (operation 9).
    expect(error.message).toMatch(/operation 9 of the JSON patch: copying "\/spec" to "\/spec\/c8" brings the bytes the patch adds to \d+, past the limit of 3145728 bytes \(3 MiB\)/);
  });

  it('refuses a string doubled by copies (the review’s 2 KB variant)', () => {
    const operations: unknown[] = [{ op: 'add', path: '/spec/d', value: { s: 'x'.repeat(1000) } }];
    for (let copy = 0; copy < 19; copy += 1) operations.push({ op: 'copy', from: '/spec/d', path: `/spec/d/${copy}` });
    expect(JSON.stringify(operations).length).toBeLessThan(2048);
    expect(refusal(() => applyJsonPatch({ spec: {} }, operations)).message).toMatch(/past the limit of 3145728 bytes/);
  });

  it('counts add and replace values with the copies: the patch as a whole may add 3 MiB', () => {
    const half = 'x'.repeat(MAX_JSON_PATCH_ADDED_BYTES / 2);
    const twice = [
      { op: 'add', path: '/a', value: half },
      { op: 'replace', path: '/a', value: half },
    ];
    expect(refusal(() => applyJsonPatch({}, twice)).message).toMatch(/operation 1 .*the value of this replace at "\/a" brings the bytes the patch adds to \d+, past the limit/);
    const copies = [{ op: 'add', path: '/a', value: half.slice(0, MAX_JSON_PATCH_ADDED_BYTES / 4) }, { op: 'copy', from: '/a', path: '/b' }];
    expect(Object.keys(applyJsonPatch({}, copies) as object)).toEqual(['a', 'b']);
  });

  it('a patch whose copies nest a value in itself past 100 levels is 422 (the result is refused, not stored)', () => {
    const operations: unknown[] = [{ op: 'add', path: '/data', value: {} }];
    for (let level = 0; level < 120; level += 1) operations.push({ op: 'copy', from: '/data', path: '/data/x' });
    // Applying stays within the added-bytes limit: the object just nests one level deeper per copy.
    expect(() => applyJsonPatch({}, operations)).not.toThrow();
    const error = refusal(() => applyPatch('application/json-patch+json', {}, { metadata: { name: 'a' } }, operations));
    expect(error.code).toBe(422);
    expect(error.message).toMatch(/nests objects and arrays more than 100 levels deep/);
  });

  it('a patch that wraps a value one level deeper per move, 3,333 times, is 422, not a crash', () => {
    const operations: unknown[] = [{ op: 'add', path: '/a', value: {} }];
    while (operations.length + 3 <= 10_000) operations.push({ op: 'add', path: '/t', value: {} }, { op: 'move', from: '/a', path: '/t/x' }, { op: 'move', from: '/t', path: '/a' });
    const error = refusal(() => applyPatch('application/json-patch+json', {}, { metadata: { name: 'a' } }, operations));
    expect(error.code).toBe(422);
    expect(error.message).toMatch(/nests/);
  });

  it('10,000 removals at the head of a long list are refused once they shift 32 million items; a list of thousands is fine', () => {
    const long = { data: new Array<string>(375_000).fill('x') };
    const removals = Array.from({ length: 10_000 }, () => ({ op: 'remove', path: '/data/0' }));
    const error = refusal(() => applyJsonPatch(long, removals));
    expect(error.code).toBe(422);
    // 375,000 − 1 items shift per removal: the 90th passes 32 Mi (33,554,432).
    expect(error.message).toMatch(new RegExp(`^the server rejected our request due to an error in our request: operation 89 of the JSON patch: the patch's inserts into and removals from lists shift more than ${MAX_JSON_PATCH_LIST_SHIFTS} list items`));
    const short = { data: new Array<string>(5_000).fill('x') };
    const inserts = Array.from({ length: 3_000 }, () => ({ op: 'add', path: '/data/0', value: 'y' }));
    expect((applyJsonPatch(short, inserts) as { data: string[] }).data).toHaveLength(8_000);
  });
});
