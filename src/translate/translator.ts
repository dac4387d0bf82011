import type { VclusterConfig } from '../config/schema.js';
import { shortHostName, singleNamespaceHostName, type ObjectRef } from './host-names.js';
import { ANNOTATION_OBJECT_NAME, ANNOTATION_OBJECT_NAMESPACE, LABEL_MANAGED_BY } from './keys.js';
import { hostLabelSelector, hostSelectorMap, type LabelSelector } from './label-selector.js';
import { createNamespaceMapper, type NamespaceMapper } from './namespace-mapper.js';
import {
  hostMetadata,
  virtualLabelsAndAnnotations,
  type ObjectMetadata,
  type StringMap,
  type TranslatedMetadata,
} from './object-metadata.js';
import { TranslateError, TranslateErrorCode } from './translate-error.js';

/**
 * Where a virtual namespace's objects go on the host.
 * - `shared`: the virtual cluster's own host namespace, names rewritten
 *   (`name-x-namespace-x-vcluster`): single-namespace mode, and unmapped namespaces in
 *   multi-namespace mode when `mappingsOnly` is false.
 * - `mapped`: the namespace given by `mappings.byName`, names unchanged.
 * - not synced: multi-namespace mode with `mappingsOnly: true` and no matching mapping (or a
 *   mapping that yields an invalid name); `reason` says which.
 */
export type NamespacePlacement =
  | { readonly synced: true; readonly namespace: string; readonly placement: 'shared' | 'mapped' }
  | { readonly synced: false; readonly reason: string };

/** Where one virtual object goes on the host, or why it is not synced. */
export type HostPlacement =
  | { readonly synced: true; readonly ref: ObjectRef; readonly placement: 'shared' | 'mapped' }
  | { readonly synced: false; readonly reason: string };

/** Input of {@link Translator.hostMetadata}. */
export interface ObjectMetadataInput {
  /** The virtual object's metadata; `name` and `namespace` are required for a synced object. */
  readonly virtual: ObjectMetadata;
  /** Go-style kind for the `object-kind` annotation, e.g. `/v1, Kind=Endpoints`. */
  readonly kind: string;
  /** The current host object's metadata, if it exists (keeps host-only keys, drops stale ones). */
  readonly existingHost?: ObjectMetadata;
  /** Virtual annotation keys never copied to the host. */
  readonly excludedAnnotations?: readonly string[];
}

/** Result of {@link Translator.hostMetadata}. */
export type HostMetadataResult =
  | { readonly synced: true; readonly metadata: TranslatedMetadata; readonly placement: 'shared' | 'mapped' }
  | { readonly synced: false; readonly reason: string };

/**
 * Translates identities and metadata between the virtual cluster and the host for one virtual
 * cluster and one configuration. Every method is pure: no I/O, no clock, inputs never modified,
 * results are new objects; none throws. Build one with {@link createTranslator}; rebuild it when
 * the configuration changes.
 */
export interface Translator {
  /** `single-namespace` (default) or `multi-namespace` (`sync.toHost.namespaces.enabled`). */
  readonly mode: 'single-namespace' | 'multi-namespace';
  /** The virtual cluster's name. */
  readonly vclusterName: string;
  /** The virtual cluster's own host namespace (the shared namespace). */
  readonly hostNamespace: string;

  /** Where objects of `virtualNamespace` go: the shared namespace, a mapped one, or nowhere. */
  hostNamespaceFor(virtualNamespace: string): NamespacePlacement;

  /**
   * The host name and namespace of a namespaced virtual object: shared placement →
   * `safeConcatName(name, "x", namespace, "x", vcluster)` in the host namespace; mapped placement
   * → the same name in the mapped namespace; or not synced.
   */
  hostRef(virtual: ObjectRef): HostPlacement;

  /**
   * The virtual object a host object stands for, read from its object-name and object-namespace
   * annotations and accepted only when the object {@link Translator.isManaged} (the annotations
   * translate back to the object's own name and namespace). `undefined` otherwise.
   */
  virtualRef(host: ObjectMetadata): ObjectRef | undefined;

  /**
   * True when the host object was written for this virtual cluster: its managed-by label equals
   * the vcluster name and its object-name/object-namespace annotations translate (by
   * {@link Translator.hostRef}) to exactly its own name and namespace, which also puts it in the
   * right host namespace. Objects with missing or tampered annotations are not managed.
   */
  isManaged(host: ObjectMetadata): boolean;

  /**
   * How a reference to another virtual object (`name` in `namespace`) is written on the host:
   * shared placement → the short `v` + 13 base36 name in the host namespace; mapped placement →
   * the unchanged name in the mapped namespace; or not synced.
   */
  referenceRef(target: ObjectRef): HostPlacement;

  /**
   * Translates a label selector written in `virtualNamespace`: keys rewritten like labels; in the
   * shared placement it also requires the managed-by and namespace labels, so it selects only
   * host objects from that virtual namespace.
   */
  hostLabelSelector(selector: LabelSelector, virtualNamespace: string): LabelSelector;

  /** Same as {@link Translator.hostLabelSelector} for a plain selector map (e.g. Service `spec.selector`). */
  hostSelectorMap(selector: StringMap, virtualNamespace: string): Record<string, string>;

  /**
   * The whole host metadata (name, namespace, labels, annotations) of a virtual object; see
   * `hostMetadata()` in object-metadata.ts for the label and annotation rules.
   */
  hostMetadata(input: ObjectMetadataInput): HostMetadataResult;

  /**
   * The virtual metadata a managed host object maps back to: name and namespace from
   * {@link Translator.virtualRef}, labels with vcsync's added ones dropped and rewritten keys
   * restored, annotations without vcsync's bookkeeping. `undefined` when the object is not managed.
   */
  virtualMetadata(host: ObjectMetadata): TranslatedMetadata | undefined;
}

/** Options of {@link createTranslator}. */
export interface TranslatorOptions {
  /** The virtual cluster's name (label values, name suffixes). Required, non-empty. */
  readonly vclusterName: string;
  /** The virtual cluster's own host namespace (the shared namespace). Required, non-empty. */
  readonly hostNamespace: string;
  /** The merged configuration; reads `sync.toHost.namespaces`. */
  readonly config: VclusterConfig;
}

/**
 * Builds the translator the configuration asks for: single-namespace unless
 * `sync.toHost.namespaces.enabled`. Throws a {@link TranslateError} when the options are empty or
 * the namespace mappings break a rule once `${name}` is replaced by the vcluster name.
 */
export function createTranslator(options: TranslatorOptions): Translator {
  const { vclusterName, hostNamespace, config } = options;
  if (vclusterName === '' || hostNamespace === '') {
    throw new TranslateError(
      TranslateErrorCode.INVALID_OPTIONS,
      'createTranslator needs a non-empty vclusterName and hostNamespace',
    );
  }
  const namespaces = config.sync.toHost.namespaces;
  const mapper: NamespaceMapper | undefined = namespaces.enabled
    ? createNamespaceMapper({ byName: namespaces.mappings.byName, vclusterName, reservedHostNamespace: hostNamespace })
    : undefined;
  const mappingsOnly = namespaces.mappingsOnly;

  const hostNamespaceFor = (virtualNamespace: string): NamespacePlacement => {
    if (mapper === undefined) return { synced: true, namespace: hostNamespace, placement: 'shared' };
    const mapped = mapper.toHost(virtualNamespace);
    if (mapped.mapped) return { synced: true, namespace: mapped.namespace, placement: 'mapped' };
    if (mappingsOnly) return { synced: false, reason: `${mapped.reason} and mappingsOnly is true: not synced` };
    return { synced: true, namespace: hostNamespace, placement: 'shared' };
  };

  const hostRef = (virtual: ObjectRef): HostPlacement => {
    const placement = hostNamespaceFor(virtual.namespace);
    if (!placement.synced) return placement;
    const name =
      placement.placement === 'shared'
        ? singleNamespaceHostName(virtual.name, virtual.namespace, vclusterName)
        : virtual.name;
    return { synced: true, ref: { name, namespace: placement.namespace }, placement: placement.placement };
  };

  const virtualRef = (host: ObjectMetadata): ObjectRef | undefined => {
    if (host.labels?.[LABEL_MANAGED_BY] !== vclusterName) return undefined;
    const name = host.annotations?.[ANNOTATION_OBJECT_NAME];
    const namespace = host.annotations?.[ANNOTATION_OBJECT_NAMESPACE];
    if (name === undefined || name === '' || namespace === undefined || namespace === '') return undefined;
    const expected = hostRef({ name, namespace });
    if (!expected.synced || expected.ref.name !== host.name || expected.ref.namespace !== host.namespace) {
      return undefined;
    }
    return { name, namespace };
  };

  const scopeFor = (virtualNamespace: string) => {
    const placement = hostNamespaceFor(virtualNamespace);
    return placement.synced && placement.placement === 'shared' ? { vclusterName, virtualNamespace } : undefined;
  };

  return Object.freeze({
    mode: mapper === undefined ? 'single-namespace' : 'multi-namespace',
    vclusterName,
    hostNamespace,
    hostNamespaceFor,
    hostRef,
    virtualRef,
    isManaged: (host: ObjectMetadata) => virtualRef(host) !== undefined,
    referenceRef: (target: ObjectRef): HostPlacement => {
      const placement = hostNamespaceFor(target.namespace);
      if (!placement.synced) return placement;
      const name =
        placement.placement === 'shared' ? shortHostName(target.name, target.namespace, vclusterName) : target.name;
      return { synced: true, ref: { name, namespace: placement.namespace }, placement: placement.placement };
    },
    hostLabelSelector: (selector: LabelSelector, virtualNamespace: string) =>
      hostLabelSelector(selector, vclusterName, scopeFor(virtualNamespace)),
    hostSelectorMap: (selector: StringMap, virtualNamespace: string) =>
      hostSelectorMap(selector, vclusterName, scopeFor(virtualNamespace)),
    hostMetadata: (input: ObjectMetadataInput): HostMetadataResult => {
      const { name, namespace } = input.virtual;
      if (name === undefined || name === '' || namespace === undefined || namespace === '') {
        return { synced: false, reason: 'the virtual object has no name or namespace' };
      }
      const placement = hostRef({ name, namespace });
      if (!placement.synced) return placement;
      const metadata = hostMetadata({
        virtual: input.virtual,
        hostRef: placement.ref,
        vclusterName,
        kind: input.kind,
        ...(input.existingHost !== undefined ? { existingHost: input.existingHost } : {}),
        ...(input.excludedAnnotations !== undefined ? { excludedAnnotations: input.excludedAnnotations } : {}),
      });
      return { synced: true, metadata, placement: placement.placement };
    },
    virtualMetadata: (host: ObjectMetadata): TranslatedMetadata | undefined => {
      const ref = virtualRef(host);
      if (ref === undefined) return undefined;
      return { name: ref.name, namespace: ref.namespace, ...virtualLabelsAndAnnotations(host, vclusterName) };
    },
  });
}
