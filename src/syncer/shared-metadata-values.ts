import type { ObjectMeta } from '../kube/kube-object.js';
import {
  ANNOTATION_MANAGED_ANNOTATIONS,
  ANNOTATION_MANAGED_LABELS,
  ANNOTATION_OBJECT_HOST_NAME,
  ANNOTATION_OBJECT_HOST_NAMESPACE,
  ANNOTATION_OBJECT_KIND,
  ANNOTATION_OBJECT_NAMESPACE,
  LABEL_MANAGED_BY,
  LABEL_NAMESPACE,
} from '../translate/keys.js';

/** The longest value kept for sharing, in characters (a label value is at most 63). */
const MAX_SHARED_LENGTH = 512;

/** Options of {@link SharedMetadataValues}. */
export interface SharedMetadataValuesOptions {
  /** Label keys whose values repeat across objects and are shared. Default none. */
  labelKeys?: readonly string[];
  /** Annotation keys whose values repeat across objects and are shared. Default none. */
  annotationKeys?: readonly string[];
  /** Annotation keys whose value is usually the object's own name: when it is, the name's string is used. Default none. */
  nameAnnotationKeys?: readonly string[];
  /** Distinct values kept; a value first seen beyond this many is left as it is. Default 4096. */
  maxValues?: number;
}

/**
 * One copy of each metadata value that repeats across the objects of a cache: the namespace, and
 * the values of the label and annotation keys given, which vcsync writes with the same value on
 * many host copies (the virtual cluster's name and namespaces, the object kind, the lists of
 * managed keys). A decoded object holds its own copy of every string longer than a few
 * characters: `discovery.k8s.io/v1, Kind=EndpointSlice` costs 56 bytes per cached object, shared
 * it costs a pointer. An annotation that repeats the object's own name (the host name vcsync
 * records) is given the name's string. Bounded: after `maxValues` distinct values, new ones are not kept (values of
 * keys that repeat stay few; unique ones are not asked for).
 */
export class SharedMetadataValues {
  readonly #values = new Map<string, string>();
  readonly #labelKeys: readonly string[];
  readonly #annotationKeys: readonly string[];
  readonly #nameAnnotationKeys: readonly string[];
  readonly #maxValues: number;

  constructor(options: SharedMetadataValuesOptions = {}) {
    this.#labelKeys = options.labelKeys ?? [];
    this.#annotationKeys = options.annotationKeys ?? [];
    this.#nameAnnotationKeys = options.nameAnnotationKeys ?? [];
    this.#maxValues = options.maxValues ?? 4096;
  }

  /** How many distinct values are kept. */
  get size(): number {
    return this.#values.size;
  }

  /** The kept copy of `value` (kept now when there is room and it is short), or `value` itself. */
  share(value: string): string {
    // Kept values outlive their objects: a long one (anyone who can write a host object can set
    // these keys) is not kept, so the table stays under maxValues × MAX_SHARED_LENGTH characters.
    if (value.length > MAX_SHARED_LENGTH) return value;
    const kept = this.#values.get(value);
    if (kept !== undefined) return kept;
    if (this.#values.size < this.#maxValues) this.#values.set(value, value);
    return value;
  }

  /**
   * `metadata` with its namespace and the values of the keys given replaced by their shared
   * copies (or by its name's string): equal field by field, a new object (and new label and annotation maps where a value
   * was shared). The input is not modified.
   */
  metadata(metadata: ObjectMeta): ObjectMeta {
    const shared: ObjectMeta = { ...metadata };
    if (typeof metadata.namespace === 'string') shared.namespace = this.share(metadata.namespace);
    const labels = this.#sharedValues(metadata.labels, this.#labelKeys, [], undefined);
    if (labels !== undefined) shared.labels = labels;
    const annotations = this.#sharedValues(metadata.annotations, this.#annotationKeys, this.#nameAnnotationKeys, metadata.name);
    if (annotations !== undefined) shared.annotations = annotations;
    return shared;
  }

  /**
   * A copy of `map` with the values of `keys` shared and those of `nameKeys` that equal `name`
   * given `name` itself, or undefined when it has none of them.
   */
  #sharedValues(
    map: Record<string, string> | undefined,
    keys: readonly string[],
    nameKeys: readonly string[],
    name: string | undefined,
  ): Record<string, string> | undefined {
    if (map === undefined || map === null) return undefined;
    let copy: Record<string, string> | undefined;
    for (const key of keys) {
      const value = map[key];
      if (typeof value !== 'string' || !Object.hasOwn(map, key)) continue;
      // A spread copy keeps the decoded map's compact layout; assigning over existing keys keeps it too.
      copy ??= { ...map };
      copy[key] = this.share(value);
    }
    if (name === undefined) return copy;
    for (const key of nameKeys) {
      if (map[key] !== name || !Object.hasOwn(map, key)) continue;
      copy ??= { ...map };
      copy[key] = name;
    }
    return copy;
  }
}

/** The label keys vcsync writes on every host copy with values that repeat across copies. */
export const HOST_SHARED_LABEL_KEYS: readonly string[] = Object.freeze([LABEL_MANAGED_BY, LABEL_NAMESPACE]);

/** The annotation keys vcsync writes on every host copy whose value is usually the copy's own name. */
export const HOST_NAME_ANNOTATION_KEYS: readonly string[] = Object.freeze([ANNOTATION_OBJECT_HOST_NAME]);

/** The annotation keys vcsync writes on every host copy with values that repeat across copies. */
export const HOST_SHARED_ANNOTATION_KEYS: readonly string[] = Object.freeze([
  ANNOTATION_OBJECT_NAMESPACE,
  ANNOTATION_OBJECT_KIND,
  ANNOTATION_OBJECT_HOST_NAMESPACE,
  ANNOTATION_MANAGED_ANNOTATIONS,
  ANNOTATION_MANAGED_LABELS,
]);
