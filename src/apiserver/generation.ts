import { isJsonObject, jsonEqual, type JsonObject } from '../apimachinery/index.js';

/**
 * How a kind keeps `metadata.generation`, as its strategy in kube-apiserver does:
 * - `untracked`: the generic registry store alone (ConfigMap, Secret, Service, Endpoints,
 *   Namespace, Event, …): a create keeps what the client sent (nothing when it sent nothing), an
 *   update keeps the stored value whatever the client sends.
 * - `spec`: 1 on create; +1 on each write that changes anything outside metadata and status
 *   (Pods, and custom resources).
 * - `spec-and-labels`: as `spec`, and labels count too (EndpointSlices).
 */
export type GenerationPolicy = 'untracked' | 'spec' | 'spec-and-labels';

/** `value` without null-valued keys at any depth: a Go struct compares nil and absent alike. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isJsonObject(value)) return value;
  const kept: JsonObject = {};
  for (const [key, entry] of Object.entries(value)) {
    if (entry !== null) kept[key] = withoutNulls(entry);
  }
  return kept;
}

/** Everything outside metadata, status, kind and apiVersion: what a tracked generation follows. */
function specOf(object: JsonObject): unknown {
  const rest: JsonObject = {};
  for (const [key, value] of Object.entries(object)) {
    if (key !== 'metadata' && key !== 'status' && key !== 'kind' && key !== 'apiVersion') rest[key] = value;
  }
  return withoutNulls(rest);
}

function labelsOf(object: JsonObject): unknown {
  const metadata = isJsonObject(object['metadata']) ? object['metadata'] : {};
  const labels = metadata['labels'];
  return isJsonObject(labels) && Object.keys(labels).length > 0 ? labels : undefined;
}

/** The generation of a new object under `policy`; `sent` is the client's value. Undefined: none. */
export function generationOnCreate(policy: GenerationPolicy, sent: unknown): number | undefined {
  if (policy !== 'untracked') return 1;
  return typeof sent === 'number' ? sent : undefined;
}

/** The generation `next` gets when it replaces `current` under `policy`. Undefined: none. */
export function generationOnUpdate(policy: GenerationPolicy, next: JsonObject, current: JsonObject): number | undefined {
  const currentMeta = isJsonObject(current['metadata']) ? current['metadata'] : {};
  const stored = typeof currentMeta['generation'] === 'number' ? currentMeta['generation'] : undefined;
  if (policy === 'untracked') return stored;
  const base = stored ?? 1;
  const changed = !jsonEqual(specOf(next), specOf(current)) || (policy === 'spec-and-labels' && !jsonEqual(labelsOf(next), labelsOf(current)));
  return changed ? base + 1 : base;
}
