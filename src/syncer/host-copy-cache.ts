import type { NamedTransform } from '../kube/informer.js';
import type { KubeObject } from '../kube/kube-object.js';
import { metadataWithoutManagedFields } from '../kube/object-transforms.js';
import { HOST_BODY_DIGEST, hostBodyDigest, type CachedHostObject } from './host-changes.js';
import { HOST_NAME_ANNOTATION_KEYS, HOST_SHARED_ANNOTATION_KEYS, HOST_SHARED_LABEL_KEYS, SharedMetadataValues } from './shared-metadata-values.js';

/**
 * What the host cache keeps of a host copy. Its envelope always, without `managedFields`: the
 * metadata is what identifies the copy (managed-by label, virtual name and uid annotations), what
 * reverse sync reads (labels, annotations) and what a write needs (uid, resourceVersion). Its body
 * (every other field, e.g. `subsets`) only when `keepBody`; otherwise the {@link hostBodyDigest}
 * of it, under {@link HOST_BODY_DIGEST}, which is all drift detection needs
 * (`hostMatchesDesired`). A reader that needs the body GETs the object. With `shared`, the
 * metadata's values that repeat across copies are the shared ones (equal, one copy in memory).
 * The input is not modified.
 */
export function cachedHostCopy<T extends KubeObject>(object: T, keepBody: boolean, shared?: SharedMetadataValues): T {
  const trimmed = metadataWithoutManagedFields(object.metadata);
  const metadata = shared === undefined || trimmed === undefined ? trimmed : shared.metadata(trimmed);
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

/** The values the host copies of every kind share: those of the labels and annotations vcsync writes alike on many copies. */
export function hostSharedValues(extraLabelKeys: readonly string[] = []): SharedMetadataValues {
  return new SharedMetadataValues({
    labelKeys: [...HOST_SHARED_LABEL_KEYS, ...extraLabelKeys],
    annotationKeys: HOST_SHARED_ANNOTATION_KEYS,
    nameAnnotationKeys: HOST_NAME_ANNOTATION_KEYS,
  });
}

/**
 * The host informer's transform: {@link cachedHostCopy}, keeping bodies while `keepBodies()` says
 * the configuration reads them (patches see the existing host object as `context.hostObject`;
 * reverse patches read its fields), asked per object as it arrives so a reload applies to the
 * objects cached from then on; the repeated metadata values shared across the informer's copies
 * ({@link hostSharedValues}).
 */
export function hostCopyTransform(keepBodies: () => boolean): NamedTransform {
  const shared = hostSharedValues();
  return {
    name: 'host-copy',
    apply: <T extends KubeObject>(object: T): T => cachedHostCopy(object, keepBodies(), shared),
    dropsManagedFields: true,
  };
}
