import type { ResourceType } from '../kube/api-path.js';
import type { KubeObject } from '../kube/kube-object.js';
import type { Translator } from '../translate/translator.js';

/** Whether a virtual object should exist on the host, and if not, why (for logs and metrics). */
export type SyncDecision = { sync: true } | { sync: false; reason: string };

/**
 * The rules of one resource, what the generic {@link ToHostReconciler} asks of it. A new resource
 * is a new folder with one of these, its pure translation, and a `ToHostDefinition` whose `rules`
 * returns it (see the header of resources.ts), not a copy of the reconciler or its wiring.
 */
export interface ToHostResource<V extends KubeObject> {
  /** Fixed word for logs, metrics and the queue name, e.g. `endpoints`. */
  readonly name: string;
  /** Its section's key under `sync.toHost` as messages name it, e.g. `endpointSlices`. Default `name`. */
  readonly configKey?: string;
  /** The API type on both sides (the same type: the syncer copies objects of one kind). */
  readonly type: ResourceType;
  /** `apiVersion` written on host objects, e.g. `v1`. */
  readonly apiVersion: string;
  /** `kind` written on host objects, e.g. `Endpoints`. */
  readonly kind: string;
  /** Virtual annotations never copied to the host. */
  readonly excludedAnnotations: readonly string[];
  /**
   * Why this syncer never touches the virtual key (`namespace/name`), e.g. `default/kubernetes`;
   * `undefined` for every key it may sync.
   */
  ignores(key: string): string | undefined;
  /**
   * Whether the virtual object should be on the host right now. May read the secondary caches
   * the resource was built with (e.g. Services for Endpoints). When it says no, a host copy this
   * syncer wrote earlier is deleted.
   */
  decide(virtual: V): SyncDecision;
  /**
   * The host object's fields other than `apiVersion`, `kind` and `metadata`, from the virtual
   * object. Pure. These fields flow only virtual → host: host drift is overwritten.
   */
  hostFields(virtual: V, translator: Translator): Record<string, unknown>;
  /**
   * Labels the resource sets on the host copy after the translation and the patches (same key:
   * this value wins, so no patch can change it), e.g. a label whose value must name a host
   * object. Pure. They are the resource's own: a host-side change of one of these keys never
   * flows back to the virtual object. Default none.
   */
  hostLabels?(virtual: V, translator: Translator): Readonly<Record<string, string>>;
  /**
   * Why the host copy `host` (as the host cache has it) cannot be updated to `desired` and must be
   * deleted and created again (a field the API server does not let change, such as an
   * EndpointSlice's addressType); `undefined` when an update will do. Default: always an update.
   */
  recreateReason?(host: V, desired: KubeObject): string | undefined;
  /**
   * When a host object of the copy's name exists that this virtual cluster did not write (and no
   * plugin controls): `true` deletes it (uid precondition) and creates the copy, as vcluster's
   * EndpointSlices syncer does; absent or `false` leaves it alone and reports a terminal
   * `SyncError`.
   */
  readonly replacesForeignHostObject?: boolean;
  /**
   * `true`: while the resource's sync is switched off, the host copies it wrote are deleted (as if
   * every virtual object were gone), because something else takes their place on the host and a
   * stale copy would stand beside it (EndpointSlices: the host mirroring controller slices the
   * Endpoints copies once they lose skip-mirror). Absent or `false`: a switched-off sync writes and
   * deletes nothing.
   */
  readonly removesCopiesWhenOff?: boolean;
}

/** A secondary virtual informer whose changes wake keys of the primary resource. */
export interface SecondarySource {
  /** Keys (`namespace/name`) of the primary resource affected by a change to `object`. */
  keysFor(object: KubeObject): string[];
}
