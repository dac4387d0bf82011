import { endOfContainer, escaped, skipWhitespace, skipWhitespaceBack } from './json-text-scan.js';

/** The member name as it appears in a JSON text, with its colon. */
const MANAGED_FIELDS_KEY = Buffer.from('"managedFields":');

const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;

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
  const kept = keptRanges(body);
  if (kept === undefined) return body;
  const parts: Buffer[] = [];
  for (let i = 0; i < kept.length; i += 2) parts.push(body.subarray(kept[i], kept[i + 1]));
  return Buffer.concat(parts);
}

/**
 * {@link withoutManagedFieldsText} decoded as UTF-8: the kept parts are decoded one by one, so a
 * small text with members cut costs no buffer of its own.
 */
export function withoutManagedFieldsString(body: Buffer): string {
  const kept = keptRanges(body);
  if (kept === undefined) return body.toString('utf8');
  let text = '';
  for (let i = 0; i < kept.length; i += 2) text += body.toString('utf8', kept[i], kept[i + 1]);
  return text;
}

/**
 * The parts of `body` {@link withoutManagedFieldsText} keeps, flat (`[start0, end0, start1, end1,
 * …]`), or `undefined` when it keeps the text as it is (nothing to cut, or a text it cannot read).
 */
function keptRanges(body: Buffer): number[] | undefined {
  let at = body.indexOf(MANAGED_FIELDS_KEY);
  if (at < 0) return undefined;
  const kept: number[] = [];
  let from = 0;
  while (at >= 0) {
    const valueStart = skipWhitespace(body, at + MANAGED_FIELDS_KEY.length);
    if (escaped(body, at) || body[valueStart] !== OPEN_BRACKET) {
      at = body.indexOf(MANAGED_FIELDS_KEY, at + 1);
      continue;
    }
    const valueEnd = endOfContainer(body, valueStart);
    if (valueEnd < 0) return undefined;
    let start = at;
    let end = skipWhitespace(body, valueEnd);
    if (body[end] === COMMA) {
      end += 1;
    } else {
      // The last member: the comma before it goes instead.
      const before = skipWhitespaceBack(body, at - 1);
      if (before >= from && body[before] === COMMA) start = before;
    }
    kept.push(from, start);
    from = end;
    at = body.indexOf(MANAGED_FIELDS_KEY, end);
  }
  if (kept.length === 0) return undefined;
  kept.push(from, body.length);
  return kept;
}
