/** How a YAML scalar is written (the `yaml` library's `Scalar.type`). */
export type ScalarStyle = 'PLAIN' | 'QUOTE_SINGLE' | 'QUOTE_DOUBLE' | 'BLOCK_LITERAL' | 'BLOCK_FOLDED';

/**
 * Where each character of a YAML string value comes from in its source text: `offsets[i]` is the
 * offset, within `raw`, of the source character that produced character `i` of the value (for a
 * folded line break: the break; for an escape: its backslash); `offsets[value.length]` is the
 * offset just after the last content character. `raw` is the scalar's source from its first
 * character (quote, block indicator or first letter) to the end of its value.
 *
 * Handles the five styles with YAML 1.2 folding, escapes and block indentation. Returns
 * `undefined` where it would have to guess (a block scalar with an explicit indentation
 * indicator, tabs used as indentation): callers check the decoded `value` against the parser's
 * and fall back to the scalar's start. Pure.
 */
export function scalarPositions(raw: string, style: ScalarStyle): { value: string; offsets: number[] } | undefined {
  switch (style) {
    case 'PLAIN':
      return flowPositions(raw, 0, raw.length, 'plain');
    case 'QUOTE_SINGLE':
      return flowPositions(raw, 1, raw.length - 1, 'single');
    case 'QUOTE_DOUBLE':
      return flowPositions(raw, 1, raw.length - 1, 'double');
    case 'BLOCK_LITERAL':
    case 'BLOCK_FOLDED':
      return blockPositions(raw, style === 'BLOCK_FOLDED');
  }
}

/** One decoded character and where it came from. */
interface Unit {
  readonly text: string;
  readonly at: number;
  /** A literal space or tab (trimmed at line ends), not an escaped one. */
  readonly white: boolean;
}

interface Line {
  units: Unit[];
  /** Offset of the line break that ends the line (or of the content end for the last line). */
  readonly end: number;
  /** Double-quoted line ending in `\` before the break: the break is escaped, nothing folds. */
  escapedBreak: boolean;
}

/** The decoded value being built, with the source offset of each of its characters. */
class Output {
  value = '';
  readonly offsets: number[] = [];

  /** Characters the scalar's syntax produced (a folded break, an escape): all from `at`. */
  produce(text: string, at: number): void {
    this.value += text;
    for (let i = 0; i < text.length; i += 1) this.offsets.push(at);
  }

  /** Characters copied from the source, starting at `at`. */
  copy(text: string, at: number): void {
    this.value += text;
    for (let i = 0; i < text.length; i += 1) this.offsets.push(at + i);
  }

  /** Closes the map with the offset just after the last character (`fallback` when empty). */
  finish(fallback: number): { value: string; offsets: number[] } {
    const last = this.offsets[this.offsets.length - 1];
    this.offsets.push(last === undefined ? fallback : last + 1);
    return { value: this.value, offsets: this.offsets };
  }
}

function flowPositions(raw: string, start: number, end: number, kind: 'plain' | 'single' | 'double') {
  const lines = splitFlowLines(raw, start, end, kind);
  if (lines === undefined) return undefined;
  const out = new Output();
  let pendingEmpty = 0;
  let previous: Line | undefined;
  for (const [index, line] of lines.entries()) {
    const first = index === 0;
    const last = index === lines.length - 1;
    let units = line.units;
    if (!first) units = dropLeadingWhite(units);
    if (!last && !line.escapedBreak) units = dropLeadingWhite(units.slice().reverse()).reverse();
    if (!first && !last && units.length === 0) {
      pendingEmpty += 1;
      continue;
    }
    if (previous !== undefined) {
      if (pendingEmpty > 0) out.produce('\n'.repeat(pendingEmpty), previous.end);
      else if (!previous.escapedBreak) out.produce(' ', previous.end);
    }
    pendingEmpty = 0;
    for (const unit of units) out.produce(unit.text, unit.at);
    previous = line;
  }
  return out.finish(start);
}

function dropLeadingWhite(units: Unit[]): Unit[] {
  let i = 0;
  while (i < units.length && units[i]?.white === true) i += 1;
  return units.slice(i);
}

function splitFlowLines(raw: string, start: number, end: number, kind: 'plain' | 'single' | 'double'): Line[] | undefined {
  const lines: Line[] = [];
  let units: Unit[] = [];
  let escapedBreak = false;
  for (let i = start; i < end; i += 1) {
    const char = raw[i] ?? '';
    if (char === '\r' && raw[i + 1] === '\n') continue;
    if (char === '\n') {
      lines.push({ units, end: i, escapedBreak });
      units = [];
      escapedBreak = false;
      continue;
    }
    if (kind === 'single' && char === "'" && raw[i + 1] === "'") {
      units.push({ text: "'", at: i, white: false });
      i += 1;
      continue;
    }
    if (kind === 'double' && char === '\\') {
      const next = raw[i + 1];
      if (next === '\n' || (next === '\r' && raw[i + 2] === '\n')) {
        escapedBreak = true;
        continue;
      }
      const escape = decodeEscape(raw, i);
      if (escape === undefined) return undefined;
      units.push({ text: escape.text, at: i, white: false });
      i += escape.length - 1;
      continue;
    }
    units.push({ text: char, at: i, white: char === ' ' || char === '\t' });
  }
  lines.push({ units, end, escapedBreak });
  return lines;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b',
  ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\x85', _: '\xa0', L: '\u2028', P: '\u2029',
};

/** The escape at `raw[at]` (a backslash): its decoded text and its source length. */
function decodeEscape(raw: string, at: number): { text: string; length: number } | undefined {
  const kind = raw[at + 1];
  if (kind === undefined) return undefined;
  const simple = SIMPLE_ESCAPES[kind];
  if (simple !== undefined) return { text: simple, length: 2 };
  const digits = kind === 'x' ? 2 : kind === 'u' ? 4 : kind === 'U' ? 8 : 0;
  if (digits === 0) return undefined;
  const hex = raw.slice(at + 2, at + 2 + digits);
  if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits) return undefined;
  return { text: String.fromCodePoint(Number.parseInt(hex, 16)), length: 2 + digits };
}

function blockPositions(raw: string, folded: boolean) {
  const headerEnd = raw.indexOf('\n');
  if (headerEnd < 0) return { value: '', offsets: [raw.length] };
  // An explicit indentation indicator is relative to the parent's indentation, not known here.
  if (/^[|>][-+]?[1-9]/.test(raw)) return undefined;
  const lines: { text: string; at: number; end: number }[] = [];
  for (let at = headerEnd + 1; at <= raw.length; ) {
    let end = raw.indexOf('\n', at);
    if (end < 0) end = raw.length;
    const text = raw.slice(at, raw[end - 1] === '\r' ? end - 1 : end);
    lines.push({ text, at, end });
    at = end + 1;
  }
  const firstContent = lines.find((line) => line.text.trim() !== '');
  if (firstContent === undefined) return { value: '', offsets: [headerEnd + 1] };
  const indent = firstContent.text.length - firstContent.text.trimStart().length;
  if (firstContent.text.slice(0, indent).includes('\t')) return undefined;

  const out = new Output();
  let previous: { more: boolean; end: number } | undefined;
  let empty = 0;
  for (const line of lines) {
    if (line.text.length <= indent || line.text.slice(0, indent).trim() !== '') {
      if (line.text.trim() !== '') return undefined; // less indented content: not this scalar
      if (previous !== undefined) empty += 1;
      continue;
    }
    const content = line.text.slice(indent);
    const more = content.startsWith(' ') || content.startsWith('\t');
    if (previous !== undefined) {
      // Folding joins two lines of normal indentation; breaks around more-indented lines stay.
      const joined = folded && !previous.more && !more;
      out.produce(joined ? (empty === 0 ? ' ' : '\n'.repeat(empty)) : '\n'.repeat(empty + 1), previous.end);
    }
    out.copy(content, line.at + indent);
    previous = { more, end: line.end };
    empty = 0;
  }
  return out.finish(headerEnd + 1);
}

/**
 * The offset in `text` of 1-based `line` and `column`, counting lines the way the patch engine
 * does (LF, CR, CRLF, U+2028 and U+2029 end a line); `undefined` when the text has fewer lines.
 */
export function offsetOfLineColumn(text: string, line: number, column: number): number | undefined {
  let lineStart = 0;
  for (let current = 1; current < line; current += 1) {
    const next = nextLineStart(text, lineStart);
    if (next === undefined) return undefined;
    lineStart = next;
  }
  return lineStart + Math.max(column, 1) - 1;
}

function nextLineStart(text: string, from: number): number | undefined {
  for (let i = from; i < text.length; i += 1) {
    const char = text[i];
    if (char === '\r' && text[i + 1] === '\n') return i + 2;
    if (char === '\n' || char === '\r' || char === '\u2028' || char === '\u2029') return i + 1;
  }
  return undefined;
}
