/**
 * Every label and annotation key vcsync owns on host objects, in one place (vcluster-compatible:
 * objects written by vcluster and by vcsync carry the same keys).
 */

/** Label on every synced host object: the name of the virtual cluster that owns it. */
export const LABEL_MANAGED_BY = 'vcluster.loft.sh/managed-by';

/** Label on every synced host object: the virtual namespace it came from. */
export const LABEL_NAMESPACE = 'vcluster.loft.sh/namespace';

/**
 * Label that marks an object as a plugin's: an object carrying it (any non-empty value) on either
 * side is left alone by the syncer, as vcluster's syncers leave it (see `controlled-by.ts`).
 */
export const LABEL_CONTROLLED_BY = 'vcluster.loft.sh/controlled-by';

/**
 * Annotation naming the syncer that owns an object: an object annotated with another syncer's name
 * is left alone by this one (same key as {@link LABEL_CONTROLLED_BY}, as vcluster uses it).
 */
export const ANNOTATION_CONTROLLED_BY = LABEL_CONTROLLED_BY;

/** Helm's release label; rewritten because vcluster's own pods carry it on the host. */
export const LABEL_RELEASE = 'release';

/**
 * Virtual label keys that would collide with the keys above on the host, so they are rewritten to
 * `vcluster.loft.sh/label-<vcluster>-x-<10 hex>` when copied (and restored when read back).
 */
export const REWRITTEN_LABEL_KEYS: readonly string[] = Object.freeze([
  LABEL_RELEASE,
  LABEL_NAMESPACE,
  LABEL_MANAGED_BY,
  LABEL_CONTROLLED_BY,
]);

/** First part of a rewritten label key (joined by {@link safeConcatName} with the rest). */
export const REWRITTEN_LABEL_PREFIX = 'vcluster.loft.sh/label';

/** Annotation: the virtual object's name. */
export const ANNOTATION_OBJECT_NAME = 'vcluster.loft.sh/object-name';

/** Annotation: the virtual object's namespace. */
export const ANNOTATION_OBJECT_NAMESPACE = 'vcluster.loft.sh/object-namespace';

/** Annotation: the virtual object's uid (a different uid means a different object: recreate). */
export const ANNOTATION_OBJECT_UID = 'vcluster.loft.sh/object-uid';

/** Annotation: the virtual object's group-version-kind, Go style, e.g. `/v1, Kind=Endpoints`. */
export const ANNOTATION_OBJECT_KIND = 'vcluster.loft.sh/object-kind';

/** Annotation: the host object's own name, as computed when it was written. */
export const ANNOTATION_OBJECT_HOST_NAME = 'vcluster.loft.sh/object-host-name';

/** Annotation: the host object's own namespace, as computed when it was written. */
export const ANNOTATION_OBJECT_HOST_NAMESPACE = 'vcluster.loft.sh/object-host-namespace';

/** Annotation: sorted, newline-separated keys of the annotations copied from the virtual object. */
export const ANNOTATION_MANAGED_ANNOTATIONS = 'vcluster.loft.sh/managed-annotations';

/** Annotation: sorted, newline-separated keys of the labels copied from the virtual object. */
export const ANNOTATION_MANAGED_LABELS = 'vcluster.loft.sh/managed-labels';

/** Labels vcsync adds to host objects (dropped when reading a host object back). */
export const ADDED_LABEL_KEYS: readonly string[] = Object.freeze([LABEL_MANAGED_BY, LABEL_NAMESPACE]);

/** Annotations vcsync adds to host objects (never copied from, nor back to, a virtual object). */
export const ADDED_ANNOTATION_KEYS: readonly string[] = Object.freeze([
  ANNOTATION_OBJECT_NAME,
  ANNOTATION_OBJECT_NAMESPACE,
  ANNOTATION_OBJECT_UID,
  ANNOTATION_OBJECT_KIND,
  ANNOTATION_OBJECT_HOST_NAME,
  ANNOTATION_OBJECT_HOST_NAMESPACE,
  ANNOTATION_MANAGED_ANNOTATIONS,
  ANNOTATION_MANAGED_LABELS,
]);
