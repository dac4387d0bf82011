import type { StatusCause } from '../apiserver/api-error.js';
import type { JsonObject, KindStrategy } from '../apiserver/kind-strategy.js';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Pods: status.phase defaults to Pending. */
export const POD_STRATEGY: KindStrategy = Object.freeze({
  prepareForWrite(object: JsonObject): StatusCause[] {
    const status = isObject(object['status']) ? object['status'] : {};
    object['status'] = { ...status, phase: status['phase'] ?? 'Pending' };
    return [];
  },
});

/** Namespaces' defaults: status.phase Active (kept when set), an empty spec. */
export function defaultNamespace(object: JsonObject): void {
  const status = isObject(object['status']) ? object['status'] : {};
  object['status'] = { ...status, phase: status['phase'] ?? 'Active' };
  object['spec'] ??= {};
}
