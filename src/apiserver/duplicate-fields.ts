/**
 * Duplicate JSON object keys, which `JSON.parse` silently resolves (the last one wins) but the
 * real server reports (`duplicate field "metadata.name"` under `fieldValidation` Strict and Warn),
 * interleaved with the unknown fields in document order. The body parser remembers the text of
 * each parsed body; the write path asks about the body it got, only when it reports fields.
 */
import { endOfJsonString } from './body-limits.js';

/** The JSON text each parsed request body came from, until the body is garbage. */
const sources = new WeakMap<object, string>();

/** Remembers that `value` was parsed from `text` (a no-op for scalars). */
export function rememberJsonSource(value: unknown, text: string): void {
  if (typeof value === 'object' && value !== null) sources.set(value, text);
}

/**
 * One open container while scanning: where it sits in its parent, and the keys seen so far
 * (objects) or the current index (arrays). Paths are only built for a duplicate.
 */
interface Frame {
  readonly parent: Frame | undefined;
  /** The parent's key or index when this container opened; undefined for the root. */
  readonly at: string | number | undefined;
  /** Undefined for an array. */
  readonly keys: Set<string> | undefined;
  key: string;
  index: number;
}

const QUOTE = 0x22;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

function pathOf(frame: Frame | undefined, child: string | number): string {
  const steps: (string | number)[] = [child];
  for (let at = frame; at?.parent !== undefined; at = at.parent) steps.push(at.at as string | number);
  let path = '';
  for (const step of steps.reverse()) path = typeof step === 'number' ? `${path}[${step}]` : path === '' ? step : `${path}.${step}`;
  return path;
}

/** A field a write reports under `fieldValidation` Warn or Strict. */
export interface ReportedField {
  /** e.g. `metadata.name` or `spec.ports[0].bogus`. */
  readonly path: string;
  readonly problem: 'unknown' | 'duplicate';
}

/**
 * The duplicate keys of the body `value` was parsed from, and the `unknown` fields (paths the
 * schema does not know, found by pruning), in the order of the document, as the real server
 * reports them; without a remembered text (YAML, protobuf, a patched object) just the unknown
 * fields. One pass over the text, which `JSON.parse` has already accepted: only brackets, commas
 * and strings matter (numbers, literals, colons and whitespace are stepped over); paths are only
 * built for duplicates, or for every key when there are unknown fields to place.
 */
export function reportedFields(value: unknown, unknown: readonly string[]): ReportedField[] {
  const text = typeof value === 'object' && value !== null ? sources.get(value) : undefined;
  if (text === undefined) return unknown.map((path) => ({ path, problem: 'unknown' }));
  const unplaced = new Set(unknown);
  const reported: ReportedField[] = [];
  const stack: Frame[] = [];
  let expectKey = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      const end = endOfJsonString(text, index) + 1;
      const frame = stack[stack.length - 1];
      if (expectKey && frame?.keys !== undefined) {
        const raw = text.slice(index + 1, end - 1);
        const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
        frame.key = key;
        const path = unplaced.size > 0 || frame.keys.has(key) ? pathOf(frame, key) : '';
        if (frame.keys.has(key)) reported.push({ path, problem: 'duplicate' });
        else frame.keys.add(key);
        if (unplaced.delete(path)) reported.push({ path, problem: 'unknown' });
        expectKey = false;
      }
      index = end - 1;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      const parent = stack[stack.length - 1];
      const at = parent === undefined ? undefined : parent.keys !== undefined ? parent.key : parent.index;
      stack.push({ parent, at, keys: code === OPEN_OBJECT ? new Set() : undefined, key: '', index: 0 });
      expectKey = code === OPEN_OBJECT;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      stack.pop();
      expectKey = false;
    } else if (code === COMMA) {
      const frame = stack[stack.length - 1];
      if (frame !== undefined) frame.index += 1;
      expectKey = frame?.keys !== undefined;
    }
  }
  for (const path of unplaced) reported.push({ path, problem: 'unknown' });
  return reported;
}
