import { createHash } from 'node:crypto';

/** Kubernetes' limit for names and label-key names. */
export const MAX_NAME_LENGTH = 63;

/** Length kept before the hash when a concatenated name is too long. */
const KEPT_LENGTH = 52;

/** Hex SHA-256 of the UTF-8 bytes of `text`. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Joins `parts` with `-`. When the result is longer than 63 bytes, keeps its first 52 bytes, then
 * `-`, then the first 10 hex characters of the SHA-256 of the whole joined string, and replaces
 * every `.-` with `-` (a label must not end with a dot). Byte-for-byte the same as vcluster's
 * `SafeConcatName` for ASCII input; like vcluster, a result of at most 63 bytes is returned as
 * joined, untouched.
 *
 * Input is not validated, lowercased or normalised: Kubernetes names are lowercase ASCII, and an
 * invalid input gives an invalid output that the API server rejects. Lengths count UTF-8 bytes
 * (as Kubernetes and Go do); for non-ASCII input the cut moves back to a code point boundary
 * rather than splitting a character, so the result is always well-formed text.
 */
export function safeConcatName(...parts: readonly string[]): string {
  const joined = parts.join('-');
  if (Buffer.byteLength(joined, 'utf8') <= MAX_NAME_LENGTH) return joined;
  const digest = sha256Hex(joined).slice(0, 10);
  return `${truncateUtf8(joined, KEPT_LENGTH)}-${digest}`.replaceAll('.-', '-');
}

/** The longest prefix of `text` whose UTF-8 encoding has at most `maxBytes` bytes. */
function truncateUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}
