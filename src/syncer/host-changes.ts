import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../kube/kube-object.js';

const ENVELOPE = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Whether the host object already is what the syncer would write: every field other than the
 * envelope equal (`[]`, `{}` and absent count as the same, as they do to the API server), and the
 * same labels and annotations. Server-owned metadata (uid, resourceVersion, …) is not compared.
 */
export function hostMatchesDesired(host: KubeObject, desired: KubeObject): boolean {
  const hostRecord = host as Record<string, unknown>;
  const desiredRecord = desired as Record<string, unknown>;
  const fields = new Set([...Object.keys(desiredRecord), ...Object.keys(hostRecord)].filter((f) => !ENVELOPE.has(f)));
  for (const field of fields) {
    if (!isDeepStrictEqual(normalizeEmpty(hostRecord[field]), normalizeEmpty(desiredRecord[field]))) return false;
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
