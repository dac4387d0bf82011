import type { NamedTransform } from '../kube/informer.js';
import type { KubeObject } from '../kube/kube-object.js';
import { metadataWithoutManagedFields } from '../kube/object-transforms.js';
import { HOST_BODY_DIGEST, hostBodyDigest, type CachedHostObject } from './host-changes.js';

/**
 * What the host cache keeps of a host copy. Its envelope always, without `managedFields`: the
 * metadata is what identifies the copy (managed-by label, virtual name and uid annotations), what
 * reverse sync reads (labels, annotations) and what a write needs (uid, resourceVersion). Its body
 * (every other field, e.g. `subsets`) only when `keepBody`; otherwise the {@link hostBodyDigest}
 * of it, under {@link HOST_BODY_DIGEST}, which is all drift detection needs
 * (`hostMatchesDesired`). A reader that needs the body GETs the object. The input is not modified.
 */
export function cachedHostCopy<T extends KubeObject>(object: T, keepBody: boolean): T {
  const metadata = metadataWithoutManagedFields(object.metadata);
  if (keepBody) return metadata === object.metadata ? object : { ...object, metadata };
  const copy: CachedHostObject = {
    ...(object.apiVersion !== undefined ? { apiVersion: object.apiVersion } : {}),
    ...(object.kind !== undefined ? { kind: object.kind } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
    [HOST_BODY_DIGEST]: hostBodyDigest(object),
  };
  // The body's fields are optional in every host kind the syncer caches: the copy is a T without them.
  return copy as T;
}

/**
 * The host informer's transform: {@link cachedHostCopy}, keeping bodies while `keepBodies()` says
 * the configuration reads them (patches see the existing host object as `context.hostObject`;
 * reverse patches read its fields), asked per object as it arrives so a reload applies to the
 * objects cached from then on.
 */
export function hostCopyTransform(keepBodies: () => boolean): NamedTransform {
  return {
    name: 'host-copy',
    apply: <T extends KubeObject>(object: T): T => cachedHostCopy(object, keepBodies()),
    dropsManagedFields: true,
  };
}
