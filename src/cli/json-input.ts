/** A JSON input read whole, with the offsets of the values a preview reports positions of. */
export interface JsonInput {
  /** The parsed value (JSON.parse). */
  readonly value: unknown;
  /** Offset of the top-level value's first character. */
  readonly start: number;
  /**
   * When the value is an object whose `items` member is an array: the offset of each element's
   * first character, in order. Otherwise undefined.
   */
  readonly itemStarts: readonly number[] | undefined;
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * `text` read as one JSON document, fast (JSON.parse and one scan of the text), with the offsets
 * a YAML parser would give its top-level value and `items` elements; `undefined` when the text
 * is anything else: not starting with `{` or `[`, not valid JSON, several documents, or an object
 * with a repeated key. JSON is YAML, and the YAML reading of such texts decides what they mean
 * (a repeated key is an error there, where JSON.parse would keep the last value silently), so the
 * caller reads them as YAML.
 */
export function readJsonInput(text: string): JsonInput | undefined {
  let start = 0;
  while (start < text.length && WHITESPACE.has(text.charCodeAt(start))) start += 1;
  const first = text[start];
  if (first !== '{' && first !== '[') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const scanned = scanStructure(text, start);
  if (scanned === undefined) return undefined;
  return { value, start, itemStarts: scanned.itemStarts };
}

/** One open object or array of the scan. */
interface Open {
  readonly object: boolean;
  /** Objects: the keys seen (decoded). */
  readonly keys: Set<string> | undefined;
  /** Objects: the next string is a key. */
  expectKey: boolean;
  /** Arrays: the next value starts an element. */
  expectElement: boolean;
  /** This array is the top-level object's `items`: its elements' offsets are recorded. */
  readonly items: boolean;
}

/**
 * Walks valid JSON from `start` (JSON.parse accepted it): checks that no object repeats a key and
 * records where the elements of the top-level object's `items` array start.
 */
function scanStructure(text: string, start: number): { itemStarts: number[] | undefined } | undefined {
  const stack: Open[] = [];
  let itemStarts: number[] | undefined;
  // The last key read at depth 1 (the top-level object's member), to spot `items`.
  let topKey: string | undefined;
  let index = start;
  const length = text.length;
  const valueStarts = (at: number): void => {
    const open = stack[stack.length - 1];
    if (open !== undefined && !open.object && open.expectElement) {
      open.expectElement = false;
      if (open.items) itemStarts?.push(at);
    }
  };
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const end = stringEnd(text, index);
      const open = stack[stack.length - 1];
      if (open?.object === true && open.expectKey) {
        const raw = text.slice(index + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (open.keys?.has(key) === true) return undefined;
        open.keys?.add(key);
        open.expectKey = false;
        if (stack.length === 1) topKey = key;
      } else {
        valueStarts(index);
      }
      index = end + 1;
      continue;
    }
    switch (code) {
      case 0x7b: // {
      case 0x5b: { // [
        valueStarts(index);
        const object = code === 0x7b;
        const items = !object && stack.length === 1 && stack[0]?.object === true && topKey === 'items';
        if (items) itemStarts = [];
        stack.push({ object, keys: object ? new Set() : undefined, expectKey: object, expectElement: !object, items });
        break;
      }
      case 0x7d: // }
      case 0x5d: // ]
        stack.pop();
        break;
      case 0x2c: { // ,
        const open = stack[stack.length - 1];
        if (open?.object === true) open.expectKey = true;
        else if (open !== undefined) open.expectElement = true;
        break;
      }
      default:
        // A number, true, false or null starts an element; whitespace and ':' start nothing.
        if (!WHITESPACE.has(code) && code !== 0x3a) {
          valueStarts(index);
          while (index + 1 < length && !isDelimiter(text.charCodeAt(index + 1))) index += 1;
        }
    }
    index += 1;
  }
  return { itemStarts };
}

/** Offset of the quote that closes the string opening at `open`. */
function stringEnd(text: string, open: number): number {
  let index = open + 1;
  for (;;) {
    const close = text.indexOf('"', index);
    // JSON.parse accepted the text: every string is closed.
    let backslashes = 0;
    while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return close;
    index = close + 1;
  }
}

function isDelimiter(code: number): boolean {
  return WHITESPACE.has(code) || code === 0x2c || code === 0x5d || code === 0x7d || code === 0x3a;
}
