import type { KubeObject } from '../kube/kube-object.js';
import { formatObjectKind } from '../translate/object-metadata.js';
import { TerminalError } from './reconcile-outcome.js';
import type { PatchedObject } from './object-patcher.js';
import type { SyncState } from './sync-state.js';
import type { ToHostResource } from './to-host-resource.js';

/**
 * The host object the syncer writes for `virtual`: translated metadata (keeping host-only keys of
 * `existingHost`), the resource's translated fields, then the forward patches. The one definition
 * shared by the controller and `vcsync preview`, so a preview shows exactly what would be
 * written. Throws {@link TerminalError} when the object's namespace is not synced, and the patch
 * engine's error when a patch fails.
 */
export async function desiredHostObject<V extends KubeObject>(
  resource: ToHostResource<V>,
  state: SyncState,
  virtual: V,
  existingHost: KubeObject | undefined,
): Promise<PatchedObject> {
  const translated = state.translator.hostMetadata({
    virtual: virtual.metadata ?? {},
    kind: formatObjectKind(resource.apiVersion, resource.kind),
    ...(existingHost?.metadata !== undefined ? { existingHost: existingHost.metadata } : {}),
    excludedAnnotations: resource.excludedAnnotations,
  });
  if (!translated.synced) throw new TerminalError('NotSynced', translated.reason);
  const host: KubeObject = {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    metadata: { ...translated.metadata },
    ...resource.hostFields(virtual, state.translator),
  };
  return state.patcher.toHost({ host, virtual, existingHost });
}
