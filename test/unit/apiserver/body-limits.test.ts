import { describe, expect, it } from 'vitest';
import { Lexer } from 'yaml';
import {
  bodyTooLarge,
  jsonNestingViolation,
  MAX_BODY_NESTING_DEPTH,
  MAX_REQUEST_BODY_BYTES,
  MAX_YAML_ALIASES,
  MAX_YAML_LINES,
  MAX_YAML_TOKENS,
  positionOf,
  readYamlSyntax,
  resolvedNestingViolation,
} from '../../../src/apiserver/body-limits.js';

const tooDeep = (where: string) => ({
  reason: 'BadRequest',
  message: `the request body nests objects and arrays more than 100 levels deep (${where}); the limit is 100 levels`,
});

/** Nested JSON arrays, `depth` levels in all. */
const jsonArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

/** A YAML violation, or undefined when `text` is within the limits. */
function yamlViolation(text: string) {
  const syntax = readYamlSyntax(text);
  return 'tokens' in syntax ? undefined : syntax;
}

describe('the limits', () => {
  it('are the documented numbers', () => {
    expect(MAX_REQUEST_BODY_BYTES).toBe(3 * 1024 * 1024);
    expect(MAX_BODY_NESTING_DEPTH).toBe(100);
    expect(MAX_YAML_TOKENS).toBe(10_000);
    expect(MAX_YAML_LINES).toBe(100_000);
    expect(MAX_YAML_ALIASES).toBe(100);
  });

  it('answer 413 RequestEntityTooLarge for a body past the size limit, naming it', () => {
    expect(bodyTooLarge()).toEqual({ reason: 'RequestEntityTooLarge', message: 'the request body is too large: limit is 3145728 bytes (3 MiB)' });
  });

  it('place an offset by line and column, both from 1', () => {
    expect(positionOf('ab\ncd\n', 0)).toBe('line 1, column 1');
    expect(positionOf('ab\ncd\n', 2)).toBe('line 1, column 3');
    expect(positionOf('ab\ncd\n', 3)).toBe('line 2, column 1');
    expect(positionOf('ab\ncd\n', 6)).toBe('line 3, column 1');
  });
});

describe('jsonNestingViolation', () => {
  it('allows 100 levels and refuses 101, saying where the 101st opens', () => {
    expect(jsonNestingViolation(jsonArrays(100))).toBeUndefined();
    expect(jsonNestingViolation(jsonArrays(101))).toEqual(tooDeep('at line 1, column 101'));
    expect(jsonNestingViolation(`{"a":\n  ${'{"b":'.repeat(100)}1${'}'.repeat(101)}`)).toEqual(tooDeep('at line 2, column 498'));
  });

  it('counts closed collections out again', () => {
    expect(jsonNestingViolation(`[${Array(500).fill(jsonArrays(99)).join(',')}]`)).toBeUndefined();
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const brackets = '['.repeat(200);
    expect(jsonNestingViolation(JSON.stringify({ a: brackets, b: `"${brackets}`, c: `\\${brackets}\\`, d: `\\"${brackets}` }))).toBeUndefined();
    expect(jsonNestingViolation(`["\\\\", ${jsonArrays(101)}]`)).toEqual(tooDeep('at line 1, column 107'));
  });

  it('answers the 100,000 `[` body at its 101st bracket', () => {
    expect(jsonNestingViolation('['.repeat(100_000))).toEqual(tooDeep('at line 1, column 101'));
  });
});

describe('readYamlSyntax', () => {
  /** `depth` block mappings, each indented one more than its parent. */
  const blockMaps = (depth: number) => `${Array.from({ length: depth }, (_, level) => `${' '.repeat(level)}k${level}:`).join('\n')} leaf\n`;
  /** `depth` block sequences in compact form: `- - - leaf`. */
  const compactSeqs = (depth: number) => `${'- '.repeat(depth)}leaf\n`;
  /** Block mappings and sequences alternating, sequences at their key's indentation. */
  const mapsAndSeqs = (depth: number) => {
    const lines: string[] = [];
    let indent = 0;
    for (let level = 0; level < depth; level += 1) {
      if (level % 2 === 0) {
        lines.push(`${' '.repeat(indent)}k:`);
      } else {
        lines.push(`${' '.repeat(indent)}- `);
        indent += 2;
      }
    }
    return `${lines.join('\n')} leaf\n`;
  };

  it.each([
    ['flow sequences', (depth: number) => jsonArrays(depth)],
    ['flow mappings', (depth: number) => `${'{a: '.repeat(depth)}1${'}'.repeat(depth)}`],
    ['block mappings', blockMaps],
    ['compact block sequences', compactSeqs],
    ['block mappings with sequences at the same indentation', mapsAndSeqs],
    ['block collections around flow collections', (depth: number) => `${blockMaps(depth - 50).trimEnd().replace(/ leaf$/, ' ')}${jsonArrays(50)}\n`],
  ])('allows 100 levels of %s and refuses 101', (_style, nest) => {
    expect(yamlViolation(nest(100))).toBeUndefined();
    expect(yamlViolation(nest(101))?.message).toMatch(/^the request body nests objects and arrays more than 100 levels deep \(at line \d+, column \d+\); the limit is 100 levels$/);
  });

  it('answers the 100,000 `[` body at its 101st bracket, having read 101 tokens', () => {
    expect(yamlViolation('['.repeat(100_000))).toEqual(tooDeep('at line 1, column 101'));
  });

  it('does not count brackets in quoted scalars, block scalars or comments', () => {
    const brackets = '['.repeat(300);
    const text = `a: "${brackets}"\nb: '${brackets}'\nc: |\n  ${brackets}\n  more\nd: x # ${brackets}\ne: ${brackets.replace(/^\[/, 'x')}\n`;
    expect(yamlViolation(text)).toBeUndefined();
  });

  it('refuses more than 10,000 tokens and 100,000 lines, asking for JSON', () => {
    const atLimit = `[${Array(3332).fill('1').join(',')}]\n\n`;
    expect([...new Lexer().lex(atLimit)]).toHaveLength(10_000);
    expect(yamlViolation(atLimit)).toBeUndefined();
    expect(yamlViolation(`${atLimit}\n`)).toEqual({
      reason: 'BadRequest',
      message: 'the YAML request body has more than 10000 tokens; the limit is 10000 (about 1,200 lines): send a large object as JSON',
    });
    const blockScalar = (lines: number) => `a: |\n${'  x\n'.repeat(lines - 1)}`;
    expect(yamlViolation(blockScalar(100_000))).toBeUndefined();
    expect(yamlViolation(blockScalar(100_001))).toEqual({
      reason: 'BadRequest',
      message: 'the YAML request body has more than 100000 lines; the limit is 100000: send a large object as JSON',
    });
  });

  it('refuses more than 100 aliases, naming the 101st', () => {
    const aliases = (count: number) => `a: &x 1\nb: [${Array(count).fill('*x').join(', ')}]\n`;
    expect(yamlViolation(aliases(100))).toBeUndefined();
    expect(yamlViolation(aliases(101))).toEqual({ reason: 'BadRequest', message: 'the YAML request body has more than 100 aliases (the alias *x at line 2, column 405); the limit is 100' });
  });

  it('returns the syntax tree of a body within the limits', () => {
    const syntax = readYamlSyntax('a: [1, {b: c}]\n');
    expect('tokens' in syntax && syntax.tokens.map((token) => token.type)).toEqual(['document']);
  });
});

describe('resolvedNestingViolation', () => {
  const chain = (depth: number): unknown => (depth === 0 ? 'leaf' : { next: chain(depth - 1) });
  const refused = {
    reason: 'BadRequest',
    message: "the YAML request body's aliases nest it more than 100 levels deep or make it contain itself; the limit is 100 levels",
  };

  it('allows 100 levels and refuses 101', () => {
    expect(resolvedNestingViolation(chain(100))).toBeUndefined();
    expect(resolvedNestingViolation(chain(101))).toEqual(refused);
    expect(resolvedNestingViolation('scalar')).toBeUndefined();
    expect(resolvedNestingViolation([[], {}])).toBeUndefined();
  });

  it('refuses a value that contains itself', () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle['self'] = [cycle];
    expect(resolvedNestingViolation(cycle)).toEqual(refused);
  });

  it('measures a shared object once, and by its deepest use', () => {
    // 2^90 paths through 90 levels: walked path by path this would not finish.
    let shared: unknown = 'leaf';
    for (let level = 0; level < 90; level += 1) shared = { left: shared, right: shared };
    expect(resolvedNestingViolation(shared)).toBeUndefined();
    expect(resolvedNestingViolation({ shallow: shared, deep: chain(9), deeper: { x: { y: { z: { w: { v: { u: { t: { s: { r: { q: shared } } } } } } } } } } })).toEqual(refused);
  });
});
