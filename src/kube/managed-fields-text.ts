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
    const valueEnd = endOfContainer(body, valueStart);
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
