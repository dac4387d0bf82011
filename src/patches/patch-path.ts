/**
 * Patch paths: the small language users write in `patches[].path`, parsed once into segments.
 *
 * Syntax:
 * - dot notation: `metadata.annotations`; a key is any run of characters other than `.`, `[`,
 *   `]` and whitespace;
 * - quoted keys for anything else: `metadata.annotations["example.com/owner"]` or `['x y']`
 *   (backslash escapes the next character, e.g. `["a\"b"]`);
 * - array index: `subsets[0]`;
 * - wildcard `[*]`: every element of an array or every key of a map, e.g.
 *   `subsets[*].addresses[*].ip`.
 * A bare `*` key is rejected (write `[*]` for a wildcard, `["*"]` for a key named `*`).
 */

/** One step of a compiled path. */
export type PathSegment =
  | { readonly kind: 'key'; readonly key: string }
  | { readonly kind: 'index'; readonly index: number }
  | { readonly kind: 'wildcard' };

/** A parsed path: at least one segment. */
export type CompiledPath = readonly PathSegment[];

/** Result of {@link parsePatchPath}. `column` is 1-based within the path text. */
export type ParsePathResult =
  | { readonly ok: true; readonly segments: CompiledPath }
  | { readonly ok: false; readonly column: number; readonly reason: string };

const PLAIN_KEY = /^[^.[\]\s"'*][^.[\]\s]*$/;

/** Parses a path; never throws. Errors name the 1-based column and what was expected there. */
export function parsePatchPath(text: string): ParsePathResult {
  if (text.length === 0) return fail(0, 'the path is empty; write a field path such as metadata.annotations');
  const segments: PathSegment[] = [];
  let pos = 0;
  if (text[0] === '.') return fail(0, 'a path cannot start with "."');
  while (pos < text.length) {
    const char = text[pos];
    if (char === '[') {
      const bracket = parseBracket(text, pos);
      if (!bracket.ok) return bracket;
      segments.push(bracket.segment);
      pos = bracket.end;
    } else if (char === '.' || pos === 0) {
      const start = char === '.' ? pos + 1 : pos;
      const key = parseDotKey(text, start);
      if (!key.ok) return key;
      segments.push({ kind: 'key', key: key.key });
      pos = key.end;
    } else {
      return fail(pos, `unexpected "${char ?? ''}"; expected "." or "[" between path segments`);
    }
  }
  return { ok: true, segments };
}

type Step<T> = ({ ok: true; end: number } & T) | { ok: false; column: number; reason: string };

function fail(index: number, reason: string): { ok: false; column: number; reason: string } {
  return { ok: false, column: index + 1, reason };
}

function parseDotKey(text: string, start: number): Step<{ key: string }> {
  let end = start;
  while (end < text.length) {
    const char = text[end] ?? '';
    if (char === '.' || char === '[') break;
    if (char === ']') return fail(end, 'unexpected "]" in a key; quote keys that contain brackets: ["a]b"]');
    if (/\s/.test(char)) return fail(end, 'whitespace is not allowed in a key; quote the key: ["my key"]');
    end += 1;
  }
  if (end === start) {
    return fail(start, 'expected a key after "."; quote empty or special keys: [""]');
  }
  const key = text.slice(start, end);
  if (key === '*') return fail(start, 'a bare * is not a wildcard; write [*] for every element or ["*"] for a key named *');
  return { ok: true, end, key };
}

function parseBracket(text: string, open: number): Step<{ segment: PathSegment }> {
  const first = text[open + 1];
  if (first === '*') {
    if (text[open + 2] !== ']') return fail(open + 2, 'expected "]" after [*');
    return { ok: true, end: open + 3, segment: { kind: 'wildcard' } };
  }
  if (first === '"' || first === "'") return parseQuoted(text, open + 1, first);
  if (first !== undefined && first >= '0' && first <= '9') {
    let end = open + 1;
    while (end < text.length && (text[end] ?? '') >= '0' && (text[end] ?? '') <= '9') end += 1;
    if (text[end] !== ']') return fail(end, 'expected "]" after the array index');
    const index = Number(text.slice(open + 1, end));
    if (!Number.isSafeInteger(index)) return fail(open + 1, 'the array index is too large');
    return { ok: true, end: end + 1, segment: { kind: 'index', index } };
  }
  return fail(open + 1, 'expected an array index, * or a quoted key after "[", e.g. [0], [*] or ["a.b"]');
}

function parseQuoted(text: string, quotePos: number, quote: string): Step<{ segment: PathSegment }> {
  let key = '';
  let pos = quotePos + 1;
  while (pos < text.length) {
    const char = text[pos] ?? '';
    if (char === '\\') {
      if (pos + 1 >= text.length) break;
      key += text[pos + 1] ?? '';
      pos += 2;
      continue;
    }
    if (char === quote) {
      if (text[pos + 1] !== ']') return fail(pos + 1, `expected "]" after the quoted key`);
      return { ok: true, end: pos + 2, segment: { kind: 'key', key } };
    }
    key += char;
    pos += 1;
  }
  return fail(quotePos, `unterminated quoted key; close it with ${quote}]`);
}

/**
 * Renders segments in the path syntax: plain keys with dots, other keys as `["…"]`, indexes as
 * `[n]`, wildcards as `[*]`. `parsePatchPath(formatPatchPath(s))` yields `s` again, so the
 * rendering is also the normal form used to detect duplicate paths.
 */
export function formatPatchPath(segments: CompiledPath): string {
  let out = '';
  for (const segment of segments) {
    if (segment.kind === 'index') out += `[${segment.index}]`;
    else if (segment.kind === 'wildcard') out += '[*]';
    else if (PLAIN_KEY.test(segment.key)) out += out === '' ? segment.key : `.${segment.key}`;
    else out += `["${segment.key.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`;
  }
  return out;
}

/**
 * True for the fields the syncer owns and patches must not change: `metadata.name` and
 * `metadata.namespace`, however spelled.
 */
export function isProtectedPath(segments: CompiledPath): boolean {
  if (segments.length !== 2) return false;
  const [first, second] = segments;
  return (
    first?.kind === 'key' &&
    first.key === 'metadata' &&
    second?.kind === 'key' &&
    (second.key === 'name' || second.key === 'namespace')
  );
}


/**
 * True when a location one path matches can be, contain or lie inside a location the other
 * matches: the paths agree segment by segment over the shorter one (a wildcard agrees with any
 * key or index; a key never agrees with an index, as one needs a map and the other an array).
 * Patches whose paths do not overlap cannot see each other's writes.
 */
export function pathsOverlap(a: CompiledPath, b: CompiledPath): boolean {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined) return true;
    if (x.kind === 'wildcard' || y.kind === 'wildcard') continue;
    if (x.kind === 'key' && y.kind === 'key' && x.key === y.key) continue;
    if (x.kind === 'index' && y.kind === 'index' && x.index === y.index) continue;
    return false;
  }
  return true;
}
