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
  return (
    isDeepStrictEqual(host.metadata?.labels ?? {}, desired.metadata?.labels ?? {}) &&
    isDeepStrictEqual(host.metadata?.annotations ?? {}, desired.metadata?.annotations ?? {})
  );
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
 * array writes `{}`, as `normalizeEmpty` makes it). Built in one pass over `value`.
 */
function normalizedCanonicalJson(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    let text = '[';
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) text += ',';
      text += normalizedCanonicalJson(value[i]) ?? '{}';
    }
    return `${text}]`;
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    let text = '';
    for (const field of Object.keys(record).sort()) {
      const inner = normalizedCanonicalJson(record[field]);
      if (inner === undefined) continue;
      text += `${text === '' ? '{' : ','}${JSON.stringify(field)}:${inner}`;
    }
    return text === '' ? undefined : `${text}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
