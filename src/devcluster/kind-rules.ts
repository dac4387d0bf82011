import { isJsonObject, type JsonObject, type StatusCause } from '../apimachinery/index.js';
import type { KindStrategy } from '../apiserver/index.js';
import { defaultPod } from './pod-defaults.js';

/** Pods: the defaults of a real cluster (see `defaultPod`), status.phase Pending and a QoS class. */
export const POD_STRATEGY: KindStrategy = Object.freeze({
  prepareForWrite(object: JsonObject): StatusCause[] {
    defaultPod(object);
    return [];
  },
});

/** Namespaces' defaults: status.phase Active (kept when set), an empty spec. */
export function defaultNamespace(object: JsonObject): void {
  const status = isJsonObject(object['status']) ? object['status'] : {};
  object['status'] = { ...status, phase: status['phase'] ?? 'Active' };
  object['spec'] ??= {};
}
