import type { KubeObject } from '../kube/kube-object.js';
import { formatObjectKind, hostOnlyMetadata, withHostOnlyMetadata } from '../translate/object-metadata.js';
import { TerminalError } from './reconcile-outcome.js';
import type { PatchedObject } from './object-patcher.js';
import type { SyncState } from './sync-state.js';
import type { ToHostResource } from './to-host-resource.js';

/**
 * The labels vcsync owns on the host copy of `virtual`: the resource's own (`hostLabels`, e.g. an
 * EndpointSlice's managed-by and service-name) and the state's (`SyncState.ownedHostLabels`, a
 * `null` value removes the key). They are set after the patches, so no patch can change them, and a
 * host-side change of one never flows back to the virtual object. On a key both set, the
 * resource's value wins: it names a host object this object belongs to.
 */
export function ownedHostLabels<V extends KubeObject>(resource: ToHostResource<V>, state: SyncState, virtual: V): Readonly<Record<string, string | null>> {
  return { ...state.ownedHostLabels, ...resource.hostLabels?.(virtual, state.translator) };
}

/**
 * The host object the syncer writes for `virtual`: translated metadata and the resource's
 * translated fields, then the forward patches, then the host-only labels and annotations of
 * `existingHost` (keys vcsync never wrote, kept as they are), then the labels vcsync owns
 * ({@link ownedHostLabels}). The one definition shared by the controller and `vcsync preview`, so
 * a preview shows exactly what would be written. Throws {@link TerminalError} when the object's
 * namespace is not synced, and the patch engine's error when a patch fails.
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
  const metadata = { ...translated.metadata };
  const host: KubeObject = {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    metadata,
    ...resource.hostFields(virtual, state.translator),
  };
  const patched = await state.patcher.toHost({ host, virtual, existingHost });
  const owned = ownedHostLabels(resource, state, virtual);
  if (existingHost?.metadata === undefined) return withOwnedLabels(patched, owned);
  const hostOnly = hostOnlyMetadata({
    existingHost: existingHost.metadata,
    translated: metadata,
    vclusterName: state.translator.vclusterName,
  });
  return withOwnedLabels({ ...patched, object: { ...patched.object, metadata: withHostOnlyMetadata(patched.object.metadata ?? {}, hostOnly) } }, owned);
}

/**
 * `patched` with the owned labels set (a string) or removed (`null`), last: they hold whatever the
 * virtual object, the patches and the host-only keys of the existing copy say.
 */
function withOwnedLabels(patched: PatchedObject, owned: Readonly<Record<string, string | null>>): PatchedObject {
  if (Object.keys(owned).length === 0) return patched;
  const labels: Record<string, string> = { ...patched.object.metadata?.labels };
  for (const [key, value] of Object.entries(owned)) {
    if (value === null) delete labels[key];
    else labels[key] = value;
  }
  return { ...patched, object: { ...patched.object, metadata: { ...patched.object.metadata, labels } } };
}
