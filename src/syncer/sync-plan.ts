import type { KubeObject } from '../kube/kube-object.js';
import { splitObjectKey } from '../kube/object-key.js';
import { controlledElsewhere } from '../translate/controlled-by.js';
import type { ObjectRef } from '../translate/host-names.js';
import type { SkipCause } from './reconcile-outcome.js';
import type { SyncState } from './sync-state.js';
import type { ToHostResource } from './to-host-resource.js';

/**
 * What the virtual side says about one key, before the host copy is looked at:
 * - `skip`: leave the host alone whatever it holds (sync disabled, a key never synced, a namespace
 *   mapped nowhere, an object that belongs to a plugin or another syncer);
 * - `remove`: no host copy should exist (no live virtual object, or the resource's rules leave it
 *   out): a copy this syncer wrote is deleted, otherwise the key is skipped with `cause`;
 * - `sync`: the host copy at `hostRef` should hold the translation of `virtual`.
 */
export type SyncPlan<V extends KubeObject> =
  | { readonly kind: 'skip'; readonly cause: SkipCause; readonly reason: string }
  | { readonly kind: 'remove'; readonly hostRef: ObjectRef; readonly cause: 'no_virtual_object' | 'excluded' | 'disabled'; readonly reason: string }
  | { readonly kind: 'sync'; readonly hostRef: ObjectRef; readonly virtual: V };

/**
 * The one decision, shared by the controller and `vcsync preview`, of whether the virtual object
 * at `key` is synced, and if not, why. `virtual` is the object as cached, `undefined` when there is
 * none. Checked in this order: the resource's switch (off: skip, or remove for a resource whose
 * copies go when it is off), the keys it never syncs, the namespace's
 * placement, a virtual object being deleted or gone, the controlled-by rule (vcluster's
 * `excludeVirtual`), then the resource's own rules. Pure; reads the resource's secondary caches
 * through `decide`.
 */
export function syncPlan<V extends KubeObject>(resource: ToHostResource<V>, state: SyncState, key: string, virtual: V | undefined): SyncPlan<V> {
  const disabled = state.enabled ? undefined : `sync.toHost.${resource.configKey ?? resource.name}.enabled is false`;
  if (disabled !== undefined && resource.removesCopiesWhenOff !== true) return { kind: 'skip', cause: 'disabled', reason: disabled };
  const never = resource.ignores(key);
  if (never !== undefined) return { kind: 'skip', cause: 'never_synced', reason: never };
  const placement = state.translator.hostRef(splitObjectKey(key));
  if (!placement.synced) return { kind: 'skip', cause: 'not_placed', reason: placement.reason };
  const hostRef = placement.ref;
  if (disabled !== undefined) return { kind: 'remove', hostRef, cause: 'disabled', reason: disabled };
  if (virtual === undefined) return { kind: 'remove', hostRef, cause: 'no_virtual_object', reason: 'virtual object deleted' };
  if (virtual.metadata?.deletionTimestamp !== undefined) {
    return { kind: 'remove', hostRef, cause: 'no_virtual_object', reason: 'virtual object is being deleted' };
  }
  const elsewhere = controlledElsewhere(virtual.metadata, resource.name);
  if (elsewhere !== undefined) {
    return { kind: 'skip', cause: 'controlled_elsewhere', reason: `${elsewhere}: left alone on both sides` };
  }
  const decision = resource.decide(virtual);
  if (!decision.sync) return { kind: 'remove', hostRef, cause: 'excluded', reason: decision.reason };
  return { kind: 'sync', hostRef, virtual };
}
