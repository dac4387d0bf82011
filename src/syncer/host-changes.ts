import { hash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../kube/kube-object.js';

const ENVELOPE = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Where a cached host copy without its body (see host-copy-cache.ts) carries the
 * {@link hostBodyDigest} of the fields it left out. A symbol: never serialised, never a field name.
 */
export const HOST_BODY_DIGEST = Symbol('vcsync.hostBodyDigest');

/** A host object as the host cache may hold it: whole, or its envelope and {@link HOST_BODY_DIGEST}. */
export type CachedHostObject = KubeObject & { [HOST_BODY_DIGEST]?: string };

/** The digest a cached host copy carries instead of its body; undefined for a whole object. */
export function cachedBodyDigest(host: KubeObject): string | undefined {
  return (host as CachedHostObject)[HOST_BODY_DIGEST];
}

/** Bytes of SHA-256 kept in a body digest: 128 bits, 22 base64url characters. */
const DIGEST_BYTES = 16;

/**
 * A digest of every field of `object` other than the envelope (apiVersion, kind, metadata), equal
 * for two objects exactly when {@link hostMatchesDesired} would find those fields equal: `[]`, `{}`,
 * `null` and absent are the same, key order is not significant, array order is. SHA-256 of the
 * canonical JSON, 128 bits (an equality check, not a security boundary).
 */
export function hostBodyDigest(object: KubeObject): string {
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(object)) {
    if (!ENVELOPE.has(field)) body[field] = value;
  }
  // One pass, no intermediate copies: it runs on every host watch event (the host cache's transform).
  // The first 128 bits, encoded on their own: a slice of the whole digest's text would keep that
  // text alive beside it (96 bytes per cached copy instead of 40).
  return hash('sha256', normalizedCanonicalJson(body) ?? '{}', 'buffer').toString('base64url', 0, DIGEST_BYTES);
}

/**
 * Whether the host object already is what the syncer would write: every field other than the
 * envelope equal (`[]`, `{}` and absent count as the same, as they do to the API server), and the
 * same labels and annotations. Server-owned metadata (uid, resourceVersion, …) is not compared. A
 * cached host copy without its body is compared by its {@link HOST_BODY_DIGEST}.
 */
export function hostMatchesDesired(host: KubeObject, desired: KubeObject): boolean {
  const digest = cachedBodyDigest(host);
  if (digest !== undefined) {
    if (hostBodyDigest(desired) !== digest) return false;
  } else {
    const hostRecord = host as Record<string, unknown>;
    const desiredRecord = desired as Record<string, unknown>;
    const fields = new Set([...Object.keys(desiredRecord), ...Object.keys(hostRecord)].filter((f) => !ENVELOPE.has(f)));
    for (const field of fields) {
      if (!isDeepStrictEqual(normalizeEmpty(hostRecord[field]), normalizeEmpty(desiredRecord[field]))) return false;
    }
  }
  return sameStringMap(host.metadata?.labels ?? {}, desired.metadata?.labels ?? {}) && sameStringMap(host.metadata?.annotations ?? {}, desired.metadata?.annotations ?? {});
}

/**
 * `isDeepStrictEqual` for labels and annotations: the same keys with the same values. A string map
 * is compared key by key (the generic comparison's setup was a tenth of a restart's reconciles,
 * which all find the copy converged); a value that is not a string is compared deeply.
 */
function sameStringMap(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key)) return false;
    const left = a[key];
    const right = b[key];
    if (left === right) continue;
    if (typeof left === 'string' || typeof right === 'string' || !isDeepStrictEqual(left, right)) return false;
  }
  return true;
}

/**
 * `current` with the host's changes applied: keys whose host value differs from the value the
 * syncer would write are taken from the host, keys the syncer would write but the host lacks are
 * removed; `ignored` keys always keep their current value.
 */
export function withHostChanges(
  current: Readonly<Record<string, string>> | undefined,
  expected: Readonly<Record<string, string>>,
  actual: Readonly<Record<string, string>>,
  ignored: ReadonlySet<string>,
): Record<string, string> {
  const out: Record<string, string> = { ...current };
  for (const [key, value] of Object.entries(actual)) {
    if (!ignored.has(key) && expected[key] !== value) out[key] = value;
  }
  for (const key of Object.keys(expected)) {
    if (!ignored.has(key) && !Object.hasOwn(actual, key)) delete out[key];
  }
  return out;
}

/**
 * `value` as the API server stores it: `[]`, `{}` and `null` are the same as absent at every depth
 * (a real kube-apiserver drops them, `omitempty`, so `subsets[0].notReadyAddresses: []` comes back
 * absent and a shallow comparison would never converge: one update per reconcile).
 */
function normalizeEmpty(value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) {
    return value.length === 0 ? undefined : value.map((item) => normalizeEmpty(item) ?? {});
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value)
      .map(([key, inner]) => [key, normalizeEmpty(inner)] as const)
      .filter(([, inner]) => inner !== undefined);
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  }
  return value;
}

/**
 * The JSON of `normalizeEmpty(value)` with object keys sorted at every depth (one text per value,
 * whatever the key order), `undefined` where `normalizeEmpty` gives undefined (an empty item of an
 * array writes `{}`, as `normalizeEmpty` makes it). Built in one pass over `value`: it runs for
 * every host object a list or watch delivers and for every desired object compared, so keys that
 * arrive sorted are not sorted again and the quoted field names are reused.
 */
function normalizedCanonicalJson(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return value === undefined ? undefined : (JSON.stringify(value) ?? 'null');
  }
  if (value === null) return undefined;
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    let text = '[';
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) text += ',';
      text += normalizedCanonicalJson(value[i]) ?? '{}';
    }
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const fields = sortedKeys(record);
  let text = '';
  for (let i = 0; i < fields.length; i += 1) {
    const field = fields[i] as string;
    const inner = normalizedCanonicalJson(record[field]);
    if (inner === undefined) continue;
    text += (text === '' ? '{' : ',') + quotedField(field) + ':' + inner;
  }
  return text === '' ? undefined : `${text}}`;
}

/** The keys of `record` in `Array.prototype.sort` order; sorted only when they are not already. */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  for (let i = 1; i < keys.length; i += 1) {
    if ((keys[i - 1] as string) > (keys[i] as string)) return keys.sort();
  }
  return keys;
}

/** Field names as JSON strings, for the few thousand names objects repeat (bounded: maps with arbitrary keys pass through). */
const QUOTED_FIELDS = new Map<string, string>();
const MAX_QUOTED_FIELDS = 4096;

function quotedField(field: string): string {
  let quoted = QUOTED_FIELDS.get(field);
  if (quoted === undefined) {
    quoted = JSON.stringify(field);
    if (QUOTED_FIELDS.size < MAX_QUOTED_FIELDS) QUOTED_FIELDS.set(field, quoted);
  }
  return quoted;
}
