import type { KubeObject } from '../kube/kube-object.js';
import { formatObjectKind, hostOnlyMetadata, withHostOnlyMetadata } from '../translate/object-metadata.js';
import { TerminalError } from './reconcile-outcome.js';
import type { PatchedObject } from './object-patcher.js';
import type { SyncState } from './sync-state.js';
import type { ToHostResource } from './to-host-resource.js';

/**
 * The host object the syncer writes for `virtual`: translated metadata (with the resource's own
 * `hostLabels` over the copied labels) and the resource's translated fields, then the forward patches, then the host-only labels and annotations of
 * `existingHost` (keys vcsync never wrote, kept as they are). The one definition shared by the
 * controller and `vcsync preview`, so a preview shows exactly what would be written. Throws
 * {@link TerminalError} when the object's namespace is not synced, and the patch engine's error
 * when a patch fails.
 *
 * The forward patches see only what the virtual object translates to: were host-only keys merged
 * in first, a patch on such a key would be applied to the host's value, i.e. to its own output of
 * the last sync (`value + "-x"` gives `-x`, `-x-x`, … one host write per reconcile). The host
 * object stays readable to expressions as `context.hostObject`.
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
    excludedAnnotations: resource.excludedAnnotations,
  });
  if (!translated.synced) throw new TerminalError('NotSynced', translated.reason);
  const ownLabels = resource.hostLabels?.(virtual, state.translator);
  const metadata = ownLabels === undefined ? { ...translated.metadata } : { ...translated.metadata, labels: { ...translated.metadata.labels, ...ownLabels } };
  const host: KubeObject = {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    metadata,
    ...resource.hostFields(virtual, state.translator),
  };
  const patched = await state.patcher.toHost({ host, virtual, existingHost });
  if (existingHost?.metadata === undefined) return patched;
  const hostOnly = hostOnlyMetadata({
    existingHost: existingHost.metadata,
    translated: metadata,
    vclusterName: state.translator.vclusterName,
  });
  return { ...patched, object: { ...patched.object, metadata: withHostOnlyMetadata(patched.object.metadata ?? {}, hostOnly) } };
}
