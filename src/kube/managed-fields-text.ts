/** The member name as it appears in a JSON text, with its colon. */
const MANAGED_FIELDS_KEY = Buffer.from('"managedFields":');

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * The JSON text `body` with every object member named `managedFields` whose value is an array cut
 * out, with one comma next to it; `body` itself when it has none. What a list answer carries for a
 * cache that drops `metadata.managedFields` anyway: field ownership is half the bytes of an object
 * a real API server returns and most of its small objects, so parsing the text without them costs
 * much less than parsing them to throw them away.
 *
 * It reads no more of the text than it must: it finds the member by its quoted name (a quote with
 * an even run of backslashes before it opens a string, and a string followed by a colon is a
 * name, never a value) and skips its value by brackets, strings included. A text it cannot read
 * (cut short, or not JSON) is returned as it came, for the JSON parser to judge. Members of that
 * name anywhere are cut: callers pass the answers of kinds that have no other field of that name.
 */
export function withoutManagedFieldsText(body: Buffer): Buffer {
  let at = body.indexOf(MANAGED_FIELDS_KEY);
  if (at < 0) return body;
  const kept: Buffer[] = [];
  let from = 0;
  while (at >= 0) {
    const valueStart = skipWhitespace(body, at + MANAGED_FIELDS_KEY.length);
    if (escaped(body, at) || body[valueStart] !== OPEN_BRACKET) {
      at = body.indexOf(MANAGED_FIELDS_KEY, at + 1);
      continue;
    }
    const valueEnd = endOfArray(body, valueStart);
    if (valueEnd < 0) return body;
    let start = at;
    let end = skipWhitespace(body, valueEnd);
    if (body[end] === COMMA) {
      end += 1;
    } else {
      // The last member: the comma before it goes instead.
      const before = skipWhitespaceBack(body, at - 1);
      if (before >= from && body[before] === COMMA) start = before;
    }
    kept.push(body.subarray(from, start));
    from = end;
    at = body.indexOf(MANAGED_FIELDS_KEY, end);
  }
  if (kept.length === 0) return body;
  kept.push(body.subarray(from));
  return Buffer.concat(kept);
}

/** Whether the quote at `index` is escaped: an odd run of backslashes before it. */
function escaped(body: Buffer, index: number): boolean {
  let backslashes = 0;
  for (let i = index - 1; i >= 0 && body[i] === BACKSLASH; i -= 1) backslashes += 1;
  return backslashes % 2 === 1;
}

/** The index just past the string whose opening quote is at `start`, or -1 when the text ends first. */
function endOfString(body: Buffer, start: number): number {
  let quote = body.indexOf(QUOTE, start + 1);
  while (quote >= 0 && escaped(body, quote)) quote = body.indexOf(QUOTE, quote + 1);
  return quote < 0 ? -1 : quote + 1;
}

/** The index just past the array or object opened at `start`, or -1 when the text ends first. */
function endOfArray(body: Buffer, start: number): number {
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

function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipWhitespace(body: Buffer, index: number): number {
  let i = index;
  while (isWhitespace(body[i])) i += 1;
  return i;
}

function skipWhitespaceBack(body: Buffer, index: number): number {
  let i = index;
  while (i >= 0 && isWhitespace(body[i])) i -= 1;
  return i;
}
