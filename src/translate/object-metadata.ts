import {
  ADDED_ANNOTATION_KEYS,
  ADDED_LABEL_KEYS,
  ANNOTATION_MANAGED_ANNOTATIONS,
  ANNOTATION_MANAGED_LABELS,
  ANNOTATION_OBJECT_HOST_NAME,
  ANNOTATION_OBJECT_HOST_NAMESPACE,
  ANNOTATION_OBJECT_KIND,
  ANNOTATION_OBJECT_NAME,
  ANNOTATION_OBJECT_NAMESPACE,
  ANNOTATION_OBJECT_UID,
  LABEL_MANAGED_BY,
  LABEL_NAMESPACE,
  REWRITTEN_LABEL_KEYS,
} from './keys.js';
import type { ObjectRef } from './host-names.js';
import { hostLabelKey, isRewrittenLabelKey, virtualLabelKey } from './label-keys.js';

/** {@link ADDED_ANNOTATION_KEYS} as a set: vcsync's bookkeeping keys are never copied from the virtual object. */
const ADDED_ANNOTATIONS: ReadonlySet<string> = new Set(ADDED_ANNOTATION_KEYS);

/** A read-only string map (labels, annotations, matchLabels). */
export type StringMap = Readonly<Record<string, string>>;

/** The parts of Kubernetes `ObjectMeta` that translation reads. Extra fields are ignored. */
export interface ObjectMetadata {
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly labels?: StringMap;
  readonly annotations?: StringMap;
}

/** Translated metadata: new, mutable objects owned by the caller. */
export interface TranslatedMetadata {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** Input of {@link hostMetadata}. */
export interface HostMetadataInput {
  /** The virtual object's metadata (name, namespace, uid, labels, annotations). */
  readonly virtual: ObjectMetadata;
  /** Where the host object lives (computed by the translator). */
  readonly hostRef: ObjectRef;
  /** The virtual cluster's name. */
  readonly vclusterName: string;
  /** Go-style group-version-kind of the object, e.g. `/v1, Kind=Endpoints` (see {@link formatObjectKind}). */
  readonly kind: string;
  /**
   * The current host object's metadata, when one exists. Its keys that the virtual object never
   * set (host-only keys) are kept; keys copied earlier (listed in its managed-labels and
   * managed-annotations annotations) that the virtual object no longer has are removed.
   */
  readonly existingHost?: ObjectMetadata;
  /** Virtual annotation keys never copied to the host (e.g. the Endpoints leader annotation). */
  readonly excludedAnnotations?: readonly string[];
}

/**
 * Go's textual group-version-kind, as vcluster writes it in `object-kind`:
 * (`v1`, `Endpoints`) → `/v1, Kind=Endpoints`; (`apps/v1`, `Deployment`) → `apps/v1, Kind=Deployment`.
 */
export function formatObjectKind(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  return `${group}/${version}, Kind=${kind}`;
}

/**
 * The host object's metadata for a virtual object: name and namespace from `hostRef`; the virtual
 * labels with the four colliding keys rewritten, plus `managed-by` and `namespace` (a virtual label
 * whose key already has the rewritten form is dropped, as vcluster drops it: copied, it would
 * overwrite the rewritten tenant `release`); the virtual
 * annotations, plus the bookkeeping annotations (object name, namespace, uid, kind, host name and
 * namespace, managed-labels, managed-annotations). With `existingHost`, its host-only keys
 * ({@link hostOnlyMetadata}) are kept and keys vcsync copied before but the virtual object dropped
 * are removed. Pure: inputs are not modified.
 */
export function hostMetadata(input: HostMetadataInput): TranslatedMetadata {
  const { virtual, hostRef, vclusterName, kind, existingHost } = input;
  const excludedByCaller = input.excludedAnnotations ?? [];

  const copiedLabels = Object.entries(virtual.labels ?? {}).filter(([key]) => !isRewrittenLabelKey(key, vclusterName));
  const labels: Record<string, string> = {};
  for (const [key, value] of copiedLabels) labels[hostLabelKey(key, vclusterName)] = value;
  labels[LABEL_MANAGED_BY] = vclusterName;
  labels[LABEL_NAMESPACE] = virtual.namespace ?? '';

  const copiedAnnotations = Object.entries(virtual.annotations ?? {}).filter(([key]) => !ADDED_ANNOTATIONS.has(key) && !excludedByCaller.includes(key));
  const annotations: Record<string, string> = Object.fromEntries(copiedAnnotations);
  annotations[ANNOTATION_OBJECT_NAME] = virtual.name ?? '';
  annotations[ANNOTATION_OBJECT_NAMESPACE] = virtual.namespace ?? '';
  if (virtual.uid !== undefined && virtual.uid !== '') annotations[ANNOTATION_OBJECT_UID] = virtual.uid;
  annotations[ANNOTATION_OBJECT_KIND] = kind;
  annotations[ANNOTATION_OBJECT_HOST_NAME] = hostRef.name;
  annotations[ANNOTATION_OBJECT_HOST_NAMESPACE] = hostRef.namespace;
  const managedAnnotations = formatKeyList(copiedAnnotations.map(([key]) => key));
  if (managedAnnotations !== '') annotations[ANNOTATION_MANAGED_ANNOTATIONS] = managedAnnotations;
  const managedLabels = formatKeyList(copiedLabels.map(([key]) => key));
  if (managedLabels !== '') annotations[ANNOTATION_MANAGED_LABELS] = managedLabels;

  const translated = { name: hostRef.name, namespace: hostRef.namespace, labels, annotations };
  if (existingHost === undefined) return translated;
  return withHostOnlyMetadata(translated, hostOnlyMetadata({ existingHost, translated, vclusterName }));
}

/** Labels and annotations (the parts of metadata that host and virtual side both set). */
export interface LabelsAndAnnotations {
  readonly labels: StringMap;
  readonly annotations: StringMap;
}

/** Input of {@link hostOnlyMetadata}. */
export interface HostOnlyMetadataInput {
  /** The host object's metadata as it exists now. */
  readonly existingHost: ObjectMetadata;
  /** What vcsync writes for the virtual object now: {@link hostMetadata} without `existingHost`. */
  readonly translated: LabelsAndAnnotations;
  /** The virtual cluster's name (managed-labels lists virtual keys; the host has them rewritten). */
  readonly vclusterName: string;
}

/**
 * The labels and annotations of an existing host object that vcsync did not write: keys the
 * translation of the virtual object does not set now, that the host object's managed-labels and
 * managed-annotations lists do not name (so they were not copied at the last sync), and that are
 * not vcsync's own bookkeeping keys. They belong to whoever set them on the host and are kept as
 * they are. Pure; returns new maps.
 */
export function hostOnlyMetadata(input: HostOnlyMetadataInput): { labels: Record<string, string>; annotations: Record<string, string> } {
  const { existingHost, translated, vclusterName } = input;
  const previousLabelKeys = parseKeyList(existingHost.annotations?.[ANNOTATION_MANAGED_LABELS]).map((key) =>
    hostLabelKey(key, vclusterName),
  );
  const previousAnnotationKeys = parseKeyList(existingHost.annotations?.[ANNOTATION_MANAGED_ANNOTATIONS]);
  return {
    labels: withoutKeys(existingHost.labels, [...previousLabelKeys, ...ADDED_LABEL_KEYS, ...Object.keys(translated.labels)]),
    annotations: withoutKeys(existingHost.annotations, [
      ...previousAnnotationKeys,
      ...ADDED_ANNOTATION_KEYS,
      ...Object.keys(translated.annotations),
    ]),
  };
}

/**
 * `metadata` with `hostOnly` labels and annotations added; on a key both have, `metadata` wins.
 * A labels or annotations field that is not a map is left as it is. Pure.
 */
export function withHostOnlyMetadata<M extends { labels?: unknown; annotations?: unknown }>(metadata: M, hostOnly: LabelsAndAnnotations): M {
  const merge = (own: unknown, extra: StringMap): unknown => {
    if (Object.keys(extra).length === 0) return own;
    if (own === undefined) return { ...extra };
    return typeof own === 'object' && own !== null && !Array.isArray(own) ? { ...extra, ...own } : own;
  };
  const labels = merge(metadata.labels, hostOnly.labels);
  const annotations = merge(metadata.annotations, hostOnly.annotations);
  return {
    ...metadata,
    ...(labels !== undefined ? { labels } : {}),
    ...(annotations !== undefined ? { annotations } : {}),
  };
}

/**
 * Labels and annotations of a host object as the virtual object should see them: vcsync's added
 * labels and bookkeeping annotations dropped, rewritten label keys restored. A host label with one
 * of the four colliding keys as it is (e.g. a host controller's own `release`) is dropped, as
 * vcluster drops it: in the virtual object it would stand for the rewritten one. Other host-only
 * keys are kept (whether they flow back is the syncer's decision). Pure.
 */
export function virtualLabelsAndAnnotations(
  host: ObjectMetadata,
  vclusterName: string,
): { labels: Record<string, string>; annotations: Record<string, string> } {
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(host.labels ?? {})) {
    if (REWRITTEN_LABEL_KEYS.includes(key)) continue;
    labels[virtualLabelKey(key, vclusterName)] = value;
  }
  const annotations = withoutKeys(host.annotations, ADDED_ANNOTATION_KEYS);
  return { labels, annotations };
}

/** Sorted, newline-separated key list (the managed-labels / managed-annotations format). */
export function formatKeyList(keys: readonly string[]): string {
  if (keys.length <= 1) return keys[0] ?? '';
  const sorted = [...keys].sort();
  // Sorted, so a repeated key is next to its twin: keep the first of each run.
  return sorted.filter((key, i) => i === 0 || key !== sorted[i - 1]).join('\n');
}

/** Parses a {@link formatKeyList} value; absent or empty → no keys. */
export function parseKeyList(value: string | undefined): string[] {
  if (value === undefined || value === '') return [];
  return value.split('\n').filter((key) => key !== '');
}

function withoutKeys(map: StringMap | undefined, keys: readonly string[]): Record<string, string> {
  const drop = new Set(keys);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map ?? {})) if (!drop.has(key)) out[key] = value;
  return out;
}
