/**
 * Byte-level scanning of JSON text for the parts of a response read before (or instead of)
 * parsing it whole: where a string, array, object or scalar value ends. Each function returns -1
 * when the text ends first; none validates what it skips (the JSON parser judges that).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;

/** Whether `byte` is JSON whitespace (space, tab, line feed, carriage return). */
export function isJsonWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The first index at or after `index` that is not whitespace (`body.length` at the end). */
export function skipWhitespace(body: Buffer, index: number): number {
  let i = index;
  while (isJsonWhitespace(body[i])) i += 1;
  return i;
}

/** The last index at or before `index` that is not whitespace (-1 at the start). */
export function skipWhitespaceBack(body: Buffer, index: number): number {
  let i = index;
  while (i >= 0 && isJsonWhitespace(body[i])) i -= 1;
  return i;
}

/** Whether the byte at `index` is escaped: an odd run of backslashes before it. */
export function escaped(body: Buffer, index: number): boolean {
  let backslashes = 0;
  for (let i = index - 1; i >= 0 && body[i] === BACKSLASH; i -= 1) backslashes += 1;
  return backslashes % 2 === 1;
}

/** The index just past the string whose opening quote is at `start`, or -1 when the text ends first. */
export function endOfString(body: Buffer, start: number): number {
  let quote = body.indexOf(QUOTE, start + 1);
  while (quote >= 0 && escaped(body, quote)) quote = body.indexOf(QUOTE, quote + 1);
  return quote < 0 ? -1 : quote + 1;
}

/** The index just past the array or object opened at `start`, or -1 when the text ends first. */
export function endOfContainer(body: Buffer, start: number): number {
  let depth = 0;
  let i = start;
  while (i < body.length) {
    const byte = body[i];
    if (byte === QUOTE) {
      i = endOfString(body, i);
      if (i < 0) return -1;
      continue;
    }
    if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      depth += 1;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth -= 1;
      if (depth === 0) return i + 1;
    }
    i += 1;
  }
  return -1;
}

/**
 * The index just past the value that starts at `start` (a string, array, object, or a number or
 * literal, which ends at the next comma, closing bracket or whitespace), or -1 when the text ends
 * first or nothing starts there.
 */
export function endOfValue(body: Buffer, start: number): number {
  const byte = body[start];
  if (byte === undefined) return -1;
  if (byte === QUOTE) return endOfString(body, start);
  if (byte === OPEN_BRACKET || byte === OPEN_BRACE) return endOfContainer(body, start);
  let i = start;
  for (;;) {
    const at = body[i];
    if (at === undefined) return i === start ? -1 : i;
    if (at === COMMA || at === CLOSE_BRACE || at === CLOSE_BRACKET || isJsonWhitespace(at)) return i === start ? -1 : i;
    i += 1;
  }
}
