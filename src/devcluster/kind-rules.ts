import { isJsonObject, type JsonObject, type StatusCause } from '../apimachinery/index.js';
import type { KindStrategy, WriteContext } from '../apiserver/index.js';
import { defaultPod } from './pod-defaults.js';

/**
 * Pods: the defaults of a real cluster (see `defaultPod`), status.phase Pending and a QoS class;
 * a status write keeps the owner references (the real server's rule: old kubelets corrupted them).
 */
export const POD_STRATEGY: KindStrategy = Object.freeze({
  prepareForWrite(object: JsonObject, old: JsonObject | undefined, context: WriteContext): StatusCause[] {
    defaultPod(object);
    if (old !== undefined && context.subresource === 'status') keepOwnerReferences(object, old);
    return [];
  },
});

function keepOwnerReferences(object: JsonObject, old: JsonObject): void {
  const metadata = object['metadata'] as JsonObject;
  const kept = isJsonObject(old['metadata']) ? old['metadata']['ownerReferences'] : undefined;
  if (kept === undefined) delete metadata['ownerReferences'];
  else metadata['ownerReferences'] = kept;
}

/** Namespaces' defaults: status.phase Active (kept when set), an empty spec. */
export function defaultNamespace(object: JsonObject): void {
  const status = isJsonObject(object['status']) ? object['status'] : {};
  object['status'] = { ...status, phase: status['phase'] ?? 'Active' };
  object['spec'] ??= {};
}
