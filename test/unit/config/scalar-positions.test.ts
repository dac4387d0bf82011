import { isScalar, parseDocument, visit } from 'yaml';
import { describe, expect, it } from 'vitest';
import { offsetOfLineColumn, scalarPositions, type ScalarStyle } from '../../../src/config/scalar-positions.js';

/** Every string scalar of a document with its source text, as the `yaml` parser read it. */
function scalars(text: string): { value: string; raw: string; style: ScalarStyle }[] {
  const found: { value: string; raw: string; style: ScalarStyle }[] = [];
  visit(parseDocument(text), {
    Scalar(key, node) {
      if (key === 'key' || !isScalar(node) || typeof node.value !== 'string' || node.range == null) return;
      found.push({ value: node.value, raw: text.slice(node.range[0], node.range[1]), style: node.type as ScalarStyle });
    },
  });
  return found;
}

const STYLES = `
plain: value + "x"
plainFolded: value +
  more

  after an empty line
single: 'it''s ''quoted'''
singleFolded: '  lead
   next  '
double: "tab\\t quote\\" e\\u00e9 emoji\\U0001F600 end"
doubleFolded: "one
  two \\
  three"
literal: |
  first
    indented

  last
literalKeep: |+
  kept

folded: >-
  one
  two

  para
    more indented
  back
`;

describe('scalarPositions', () => {
  it('decodes every style to exactly what the YAML parser reads', () => {
    const found = scalars(STYLES);
    expect(found.map((s) => s.style)).toEqual([
      'PLAIN', 'PLAIN', 'QUOTE_SINGLE', 'QUOTE_SINGLE', 'QUOTE_DOUBLE', 'QUOTE_DOUBLE', 'BLOCK_LITERAL', 'BLOCK_LITERAL', 'BLOCK_FOLDED',
    ]);
    for (const { value, raw, style } of found) {
      const mapped = scalarPositions(raw, style);
      // Block scalars end with their chomped line breaks, which are not content.
      expect(value.replace(/\n+$/, ''), `${style} ${JSON.stringify(raw)}`).toBe(mapped?.value.replace(/\n+$/, ''));
      expect(mapped?.offsets).toHaveLength((mapped?.value.length ?? 0) + 1);
    }
  });

  it('maps copied characters to themselves, escapes to their backslash, folded breaks to the break', () => {
    for (const { raw, style } of scalars(STYLES)) {
      const mapped = scalarPositions(raw, style);
      if (mapped === undefined) throw new Error(`no map for ${raw}`);
      for (let i = 0; i < mapped.value.length; i += 1) {
        const source = raw[mapped.offsets[i] ?? -1];
        const char = mapped.value[i];
        const produced = source === '\\' || source === '\n' || (source === "'" && char === "'");
        expect(source === char || produced, `${style} ${JSON.stringify(raw)} at ${i}`).toBe(true);
      }
    }
  });

  it('gives up on a block scalar with an explicit indentation indicator', () => {
    expect(scalarPositions('|2\n   x\n', 'BLOCK_LITERAL')).toBeUndefined();
    expect(scalarPositions('>-1\n  x\n', 'BLOCK_FOLDED')).toBeUndefined();
  });
});

describe('offsetOfLineColumn', () => {
  it('counts lines like the patch engine: LF, CRLF, CR, U+2028', () => {
    expect(offsetOfLineColumn('abc', 1, 3)).toBe(2);
    expect(offsetOfLineColumn('a\nbc', 2, 2)).toBe(3);
    expect(offsetOfLineColumn('a\r\nbc', 2, 1)).toBe(3);
    expect(offsetOfLineColumn('a\rb\u2028c', 3, 1)).toBe(4);
    expect(offsetOfLineColumn('a', 2, 1)).toBeUndefined();
  });
});
