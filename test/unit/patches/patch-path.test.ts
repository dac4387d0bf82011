import { describe, expect, test } from 'vitest';
import { formatPatchPath, isProtectedPath, parsePatchPath, type PathSegment } from '../../../src/patches/patch-path.js';
import { formatConcretePath, getAtPath, matchPath, setAtPath } from '../../../src/patches/path-match.js';
import { MATCH_TABLE, endpointsForMatching as endpoints } from './fixtures.js';

const key = (k: string): PathSegment => ({ kind: 'key', key: k });
const index = (i: number): PathSegment => ({ kind: 'index', index: i });
const wildcard: PathSegment = { kind: 'wildcard' };

describe('parsePatchPath', () => {
  test.each<[string, PathSegment[]]>([
    ['metadata.annotations', [key('metadata'), key('annotations')]],
    ['metadata.annotations["example.com/owner"]', [key('metadata'), key('annotations'), key('example.com/owner')]],
    ["metadata.labels['a[b]c']", [key('metadata'), key('labels'), key('a[b]c')]],
    ['subsets[0]', [key('subsets'), index(0)]],
    ['subsets[12].ports', [key('subsets'), index(12), key('ports')]],
    ['metadata.annotations[*]', [key('metadata'), key('annotations'), wildcard]],
    ['subsets[*].addresses[*].ip', [key('subsets'), wildcard, key('addresses'), wildcard, key('ip')]],
    ['["metadata"].name', [key('metadata'), key('name')]],
    ['a["quo\\"te"]', [key('a'), key('quo"te')]],
    ['a["back\\\\slash"]', [key('a'), key('back\\slash')]],
    ['a[""]', [key('a'), key('')]],
    ['a["*"]', [key('a'), key('*')]],
    ['spec.example-com/x', [key('spec'), key('example-com/x')]],
  ])('%s', (text, segments) => {
    expect(parsePatchPath(text)).toEqual({ ok: true, segments });
  });

  test.each<[string, number, RegExp]>([
    ['', 1, /empty/],
    ['.metadata', 1, /cannot start with "."/],
    ['metadata.', 10, /expected a key after "."/],
    ['metadata..name', 10, /expected a key after "."/],
    ['metadata.[0]', 10, /expected a key after "."/],
    ['a[', 3, /expected an array index, \* or a quoted key/],
    ['a[x]', 3, /expected an array index/],
    ['a[0', 4, /expected "\]" after the array index/],
    ['a[*', 4, /expected "\]" after \[\*/],
    ['a["b"', 6, /expected "\]" after the quoted key/],
    ['a["b', 3, /unterminated quoted key/],
    ['a[0]b', 5, /expected "\." or "\["/],
    ['a.b c', 4, /whitespace is not allowed/],
    ['a.b]', 4, /unexpected "\]"/],
    ['metadata.*', 10, /bare \* is not a wildcard/],
    ['a[99999999999999999999]', 3, /too large/],
  ])('rejects %j at column %i', (text, column, reason) => {
    const result = parsePatchPath(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.column).toBe(column);
    expect(result.reason).toMatch(reason);
  });

  test('the formatted form parses back to the same segments (normal form)', () => {
    for (const text of ['metadata.annotations["a.b/c"]', "x['y z'][3][*]", '["metadata"].name', 'a["q\\"\\\\"]', 'a["*"]', 'a[""]']) {
      const first = parsePatchPath(text);
      if (!first.ok) throw new Error(text);
      const again = parsePatchPath(formatPatchPath(first.segments));
      expect(again).toEqual(first);
    }
    expect(formatPatchPath([key('metadata'), key('annotations'), key('a.b/c')])).toBe('metadata.annotations["a.b/c"]');
    expect(formatPatchPath([key('subsets'), wildcard, key('addresses'), index(2)])).toBe('subsets[*].addresses[2]');
  });

  test('metadata.name and metadata.namespace are protected however spelled', () => {
    for (const text of ['metadata.name', '["metadata"].name', "['metadata']['namespace']", 'metadata["name"]']) {
      const parsed = parsePatchPath(text);
      expect(parsed.ok && isProtectedPath(parsed.segments)).toBe(true);
    }
    for (const text of ['metadata', 'metadata.labels', 'metadata.name.x', 'spec.metadata.name', 'metadata[*]']) {
      const parsed = parsePatchPath(text);
      expect(parsed.ok && isProtectedPath(parsed.segments)).toBe(false);
    }
  });
});

function compiled(text: string): readonly PathSegment[] {
  const parsed = parsePatchPath(text);
  if (!parsed.ok) throw new Error(`bad path ${text}`);
  return parsed.segments;
}

describe('matchPath', () => {
  test.each(MATCH_TABLE)('%s', (path, expected) => {
    const found = matchPath(endpoints, compiled(path));
    expect(found.map((m) => formatConcretePath(m.path))).toEqual(expected);
    for (const match of found) expect(getAtPath(endpoints, match.path)).toEqual({ exists: true, value: match.value });
  });

  test('a path matches only where every segment exists, the last one included', () => {
    expect(matchPath(endpoints, compiled('metadata.labels'))).toEqual([]);
    expect(matchPath(endpoints, compiled('metadata.annotations["x.y/z"]'))).toEqual([]);
    expect(matchPath(endpoints, compiled('spec.selector'))).toEqual([]);
    expect(matchPath(endpoints, compiled('subsets[7]'))).toEqual([]);
    expect(matchPath(endpoints, compiled('subsets[*].addresses[*].hostname'))).toEqual([
      { path: ['subsets', 1, 'addresses', 0, 'hostname'], value: 'h' },
    ]);
  });

  test('setAtPath creates missing maps but never array elements', () => {
    const target: Record<string, unknown> = { a: [{ b: 1 }] };
    expect(setAtPath(target, ['x', 'y', 'z'], 1)).toBe(true);
    expect(setAtPath(target, ['a', 0, 'c'], 2)).toBe(true);
    expect(setAtPath(target, ['a', 3, 'c'], 2)).toBe(false);
    expect(setAtPath(target, ['n', 0], 2)).toBe(false);
    expect(setAtPath(target, ['__proto__'], { polluted: true })).toBe(true);
    expect(target).toEqual({ a: [{ b: 1, c: 2 }], x: { y: { z: 1 } }, ['__proto__']: { polluted: true } });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
