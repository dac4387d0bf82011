/**
 * How many bytes a value takes as compact UTF-8 JSON, measured without serialising it and without
 * walking past a bound: the measure the write limits of the core use (the accumulated size of a
 * JSON patch's copies, the size of an object to be stored). Pure.
 */

/** Bytes of `text` as a JSON string: its UTF-8 bytes, the quotes, and one more byte per character JSON escapes. */
function jsonStringBytes(text: string): number {
  let bytes = Buffer.byteLength(text, 'utf8') + 2;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    // `"` and `\` take 2 bytes, control characters 2 (`\n`) or 6 (`\u0001`): at least one more.
    if (code === 0x22 || code === 0x5c || code < 0x20) bytes += 1;
  }
  return bytes;
}

function scalarBytes(value: unknown): number {
  if (typeof value === 'string') return jsonStringBytes(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value).length : 4;
  if (typeof value === 'boolean') return value ? 4 : 5;
  return 4; // null, and what JSON writes as null
}

/**
 * The size of `value` as compact JSON in bytes, or undefined as soon as it is more than `limit`
 * bytes. Walks iteratively (any depth) and visits each part once, so the time is proportional to
 * the smaller of the value and the limit, and memory to its depth. Escapes count one byte each
 * beyond the character (a control character's `\u00XX` counts 2 of its 6), so the size of a
 * value rich in control characters is slightly under its serialised length; every other value is
 * measured exactly.
 */
export function jsonSizeWithin(value: unknown, limit: number): number | undefined {
  let total = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (Array.isArray(next)) {
      // `[`, `]` and a comma between items; checked before the items are queued.
      total += 2 + Math.max(0, next.length - 1);
      if (total > limit) return undefined;
      for (const item of next) pending.push(item === undefined ? null : item);
    } else if (typeof next === 'object' && next !== null) {
      // `{`; then per member its key, `:` and the comma or `}` after it; `{}` is 2 bytes.
      total += 1;
      let members = 0;
      for (const [key, item] of Object.entries(next)) {
        if (item === undefined) continue;
        members += 1;
        total += jsonStringBytes(key) + 2;
        if (total > limit) return undefined;
        pending.push(item);
      }
      if (members === 0) total += 1;
    } else {
      total += scalarBytes(next);
    }
    if (total > limit) return undefined;
  }
  return total;
}
