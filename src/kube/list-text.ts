import { endOfString, endOfValue, skipWhitespace } from './json-text-scan.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** The member name `items` as it appears in a JSON text, quotes included. */
const ITEMS_NAME = Buffer.from('"items"');

/** Where the `items` array of a list text is: its brackets and its elements. */
interface ItemsSpan {
  /** The index of its opening bracket. */
  readonly start: number;
  /** The index just past its closing bracket. */
  readonly end: number;
  /** Each element's start and end (just past it), flat: `[start0, end0, start1, end1, …]`. */
  readonly elements: readonly number[];
}

/** An item's bytes as the text to parse: decoded as UTF-8 (the default), or edited too. */
export type ItemDecoder = (item: Buffer) => string;

const utf8: ItemDecoder = (item) => item.toString('utf8');

/**
 * The JSON text of a list answer (`{"kind": …, "metadata": …, "items": [ … ]}`) parsed, equal to
 * what `JSON.parse` of the whole text gives, each item's bytes turned into text by `decodeItem`
 * (default plain UTF-8; e.g. `withoutManagedFieldsString` to cut members first). Each item is decoded and parsed on its own, then the envelope with
 * an empty `items` in its place: a page of hundreds of objects is a text of hundreds of KiB to
 * MiBs, and one string of that size lands in V8's large-object space, whose fresh pages cost far
 * more to allocate than the decoding itself (about 4 ms per MiB against 0.1 ms for texts under 128
 * KiB, measured on the machine of the benchmarks), while each item's text is small.
 *
 * A text it does not read as such a list (not an object, no `items` array, a member name with an
 * escape, two `items`, a separator out of place) is parsed whole, decoded by `decodeItem` as a
 * whole, so its answer or its `SyntaxError` is `JSON.parse`'s.
 */
export function parseListText(body: Buffer, decodeItem: ItemDecoder = utf8): unknown {
  const items = itemsSpan(body);
  if (items === undefined) return JSON.parse(decodeItem(body));
  const parsed: unknown[] = new Array<unknown>(items.elements.length / 2);
  for (let i = 0; i < items.elements.length; i += 2) {
    const start = items.elements[i] as number;
    const end = items.elements[i + 1] as number;
    parsed[i / 2] = JSON.parse(decodeItem === utf8 ? body.toString('utf8', start, end) : decodeItem(body.subarray(start, end)));
  }
  const envelope = JSON.parse(`${body.toString('utf8', 0, items.start)}[]${body.toString('utf8', items.end)}`) as Record<string, unknown>;
  envelope['items'] = parsed;
  return envelope;
}

/**
 * The `items` array of the top-level object of `body` and its elements, read by brackets and
 * strings without parsing; `undefined` when the text is not plainly such an object.
 */
function itemsSpan(body: Buffer): ItemsSpan | undefined {
  let i = skipWhitespace(body, 0);
  if (body[i] !== OPEN_BRACE) return undefined;
  i = skipWhitespace(body, i + 1);
  if (body[i] === CLOSE_BRACE) return undefined;
  let items: ItemsSpan | undefined;
  for (;;) {
    if (body[i] !== QUOTE) return undefined;
    const nameEnd = endOfString(body, i);
    if (nameEnd < 0) return undefined;
    // An escape in a name could spell `items` (or not) other than byte by byte: parsed whole instead.
    const backslash = body.indexOf(BACKSLASH, i);
    if (backslash >= 0 && backslash < nameEnd) return undefined;
    const isItems = nameEnd - i === ITEMS_NAME.length && body.compare(ITEMS_NAME, 0, ITEMS_NAME.length, i, nameEnd) === 0;
    i = skipWhitespace(body, nameEnd);
    if (body[i] !== COLON) return undefined;
    i = skipWhitespace(body, i + 1);
    if (isItems) {
      if (items !== undefined || body[i] !== OPEN_BRACKET) return undefined;
      items = arrayElements(body, i);
      if (items === undefined) return undefined;
      i = items.end;
    } else {
      i = endOfValue(body, i);
      if (i < 0) return undefined;
    }
    i = skipWhitespace(body, i);
    if (body[i] === CLOSE_BRACE) return items;
    if (body[i] !== COMMA) return undefined;
    i = skipWhitespace(body, i + 1);
  }
}

/** The elements of the array opened at `start`, or `undefined` when a separator is out of place or the text ends first. */
function arrayElements(body: Buffer, start: number): ItemsSpan | undefined {
  const elements: number[] = [];
  let i = skipWhitespace(body, start + 1);
  if (body[i] === CLOSE_BRACKET) return { start, end: i + 1, elements };
  for (;;) {
    const end = endOfValue(body, i);
    if (end < 0) return undefined;
    elements.push(i, end);
    i = skipWhitespace(body, end);
    if (body[i] === CLOSE_BRACKET) return { start, end: i + 1, elements };
    if (body[i] !== COMMA) return undefined;
    i = skipWhitespace(body, i + 1);
  }
}
