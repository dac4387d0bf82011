/**
 * Pure normalisation of API answers for the differential conformance suite: what two correct
 * servers may legitimately answer differently (uids, times, resourceVersion values, generated-name
 * suffixes, allocated cluster IPs, message wording) is replaced by a marker, so what remains is
 * what a client can rely on. No input is mutated.
 */

/** What one request answered, after {@link normalizeOutcome}. */
export interface Outcome {
  status: number;
  /** The normalised JSON body; the raw text when the body is not JSON. */
  body: unknown;
}

/** One watch event after normalisation. */
export interface WatchEventOutcome {
  type: string;
  object: unknown;
}

/** Options of {@link normalizeValue}. */
export interface NormalizeOptions {
  /** Keep Status `message` text (otherwise removed, as wording is not a contract). Default false. */
  keepMessage?: boolean;
  /**
   * Keep the cross-cutting differences ({@link CROSS_CUTTING}) instead of removing them. Default
   * false: each is compared by its own cases, so it does not mask everything else in the others.
   */
  strict?: boolean;
}

/**
 * Differences that would make nearly every case diverge for one reason, removed unless `strict`:
 * `metadata.generation`, `metadata.managedFields`, a Status's `details.group` when empty, and an
 * empty Status `details`. The cases marked `strict` in `cases.ts` compare them.
 */
export const CROSS_CUTTING = ['metadata.generation', 'metadata.managedFields', 'Status details.group ""', 'Status details {}'] as const;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
/** Keys whose value is replaced by a presence marker. */
const MARKED_KEYS: Readonly<Record<string, string>> = {
  uid: '<uid>',
  resourceVersion: '<rv>',
  continue: '<continue>',
  clusterIP: '<ip>',
  clusterIPs: '<ips>',
};
const DROPPED_KEYS = new Set(['selfLink']);

/**
 * Returns a copy of `value` with uids, resourceVersion values, continue tokens and cluster IPs
 * replaced by markers (an empty string and a headless `None` stay: presence vs absence is kept), every RFC 3339
 * time replaced by `<time>`, `selfLink` removed, a generated name reduced to its prefix plus
 * `<suffix>`, and (unless `keepMessage`) the `message` of Status objects and their causes removed.
 */
export function normalizeValue(value: unknown, options: NormalizeOptions = {}): unknown {
  return normalizeNode(value, options, false, '');
}

function normalizeNode(value: unknown, options: NormalizeOptions, inStatus: boolean, parentKey: string): unknown {
  if (typeof value === 'string') return RFC3339.test(value) ? '<time>' : value;
  if (Array.isArray(value)) return value.map((item) => normalizeNode(item, options, inStatus, parentKey));
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const isStatus = record['kind'] === 'Status' || inStatus;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (DROPPED_KEYS.has(key)) continue;
    if (key === 'message' && isStatus && options.keepMessage !== true) continue;
    if (options.strict !== true && crossCutting(key, item, parentKey, isStatus)) continue;
    const marker = MARKED_KEYS[key];
    if (marker !== undefined && item !== '' && item !== 'None' && item !== undefined && item !== null && typeof item !== 'object') {
      out[key] = marker;
      continue;
    }
    if (marker !== undefined && Array.isArray(item)) {
      out[key] = marker;
      continue;
    }
    out[key] = normalizeNode(item, options, isStatus, key);
  }
  const generateName = record['generateName'];
  if (typeof generateName === 'string' && typeof record['name'] === 'string' && record['name'].startsWith(generateName)) {
    out['name'] = `${generateName}<suffix>`;
  }
  return out;
}

function crossCutting(key: string, item: unknown, parentKey: string, isStatus: boolean): boolean {
  if (parentKey === 'metadata' && (key === 'generation' || key === 'managedFields')) return true;
  if (isStatus && parentKey === 'details' && key === 'group' && item === '') return true;
  return isStatus && key === 'details' && item !== null && typeof item === 'object' && Object.keys(item).length === 0;
}

/** Normalises one HTTP answer: status code plus the normalised body (or the raw text). */
export function normalizeOutcome(status: number, text: string, options: NormalizeOptions = {}): Outcome {
  let body: unknown = text;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    // Not JSON (e.g. /healthz or a table in text): compare the text as is.
  }
  return { status, body: normalizeValue(body, options) };
}

/**
 * Where `left` and `right` first differ, as compact `path: left ≠ right` lines (at most `limit`);
 * empty when they are equal. Object keys compare regardless of order.
 */
export function diffValues(left: unknown, right: unknown, limit = 5): string[] {
  const lines: string[] = [];
  walkDiff(left, right, '', lines, limit);
  return lines;
}

function walkDiff(left: unknown, right: unknown, path: string, lines: string[], limit: number): void {
  if (lines.length >= limit) return;
  if (Array.isArray(left) && Array.isArray(right)) {
    const length = Math.max(left.length, right.length);
    for (let index = 0; index < length; index += 1) {
      if (index >= left.length || index >= right.length) {
        lines.push(`${path}[${index}]: ${show(left[index])} ≠ ${show(right[index])}`);
        if (lines.length >= limit) return;
        continue;
      }
      walkDiff(left[index], right[index], `${path}[${index}]`, lines, limit);
    }
    return;
  }
  if (isRecord(left) && isRecord(right)) {
    const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])].sort();
    for (const key of keys) walkDiff(left[key], right[key], path === '' ? key : `${path}.${key}`, lines, limit);
    return;
  }
  if (left !== right) lines.push(`${path === '' ? '(root)' : path}: ${show(left)} ≠ ${show(right)}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A value as at most 80 characters of JSON; `absent` for undefined. */
function show(value: unknown): string {
  if (value === undefined) return 'absent';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
