import type { KubeObject } from '../kube/kube-object.js';
import type { ReferenceImport } from '../patches/index.js';
import type { SyncState } from './sync-state.js';

/** What a reconciler remembers of its last converge of one key. */
export interface Converge {
  virtualResourceVersion: string;
  hostResourceVersion: string;
  /** The state it was converged with: a reloaded configuration may want a different host object. */
  state: SyncState;
  /** Whether that converge imported referenced objects (a later reconcile re-imports them). */
  imported: boolean;
  /** The host resourceVersion our last update replaced (else the one converged before): a host cache one write behind still shows it. */
  previousHostResourceVersion: string;
  /** The virtual resourceVersion our last update of the virtual object replaced (reverse sync), if that converge wrote it: a virtual cache one write behind still shows it. */
  previousVirtualResourceVersion: string;
  /** The host object as last converged, kept only while reverse patches need it (memory). */
  host: KubeObject | undefined;
}

/** The resourceVersions a converge's updates wrote over, on each side (see {@link ConvergeMemory.remember}). */
export interface Replaced {
  readonly host?: string;
  readonly virtual?: string;
}

/**
 * The converges a reconciler made, by virtual key: how it tells "only the host moved" (a host
 * change to flow back or repair) from its own write, and a host cache that has not seen that
 * write yet. In memory only: a restarted process remembers nothing and converges in full once.
 */
export class ConvergeMemory {
  readonly #byKey = new Map<string, Converge>();

  /** The last converge of `key`, if this process made one (and did not forget it since). */
  get(key: string): Converge | undefined {
    return this.#byKey.get(key);
  }

  /** Forgets `key` (deleted, skipped, or taken over by another syncer). */
  delete(key: string): void {
    this.#byKey.delete(key);
  }

  /**
   * Records a converge. `replaced.host` is the resourceVersion of the host copy an update wrote
   * over: the copy a lagging host cache may still show, even when nothing was remembered before (a
   * lost create answer, a restart). Without it, the previous converge's host version stands in.
   * `replaced.virtual` is the resourceVersion of the virtual object this converge updated (reverse
   * sync): until the virtual cache has seen that update it still shows the replaced version.
   */
  remember(key: string, virtual: KubeObject, host: KubeObject, state: SyncState, imports: readonly ReferenceImport[], replaced: Replaced = {}): void {
    const hostResourceVersion = host.metadata?.resourceVersion ?? '';
    const virtualResourceVersion = virtual.metadata?.resourceVersion ?? '';
    const last = this.#byKey.get(key);
    this.#byKey.set(key, {
      virtualResourceVersion,
      hostResourceVersion,
      state,
      imported: imports.length > 0,
      previousHostResourceVersion:
        replaced.host ?? (last?.hostResourceVersion === hostResourceVersion ? last.previousHostResourceVersion : (last?.hostResourceVersion ?? '')),
      previousVirtualResourceVersion:
        replaced.virtual ?? (last?.virtualResourceVersion === virtualResourceVersion ? last.previousVirtualResourceVersion : ''),
      host: state.patcher.reverses ? host : undefined,
    });
  }
}

/**
 * Neither object moved since this process last converged the key with this state, and that
 * converge imported nothing: e.g. the watch echo of our own write. Nothing the desired host object
 * is computed from changed (the secondary objects only decide whether to sync, checked before),
 * so translating, patching and comparing again would only confirm it.
 */
export function stillConverged(last: Converge | undefined, virtual: KubeObject, host: KubeObject, state: SyncState): boolean {
  return (
    last !== undefined &&
    last.state === state &&
    !last.imported &&
    last.virtualResourceVersion === virtual.metadata?.resourceVersion &&
    last.hostResourceVersion === host.metadata?.resourceVersion
  );
}

/**
 * The host cache still shows the copy this process replaced in its last write, and the virtual
 * object has not moved: the difference is our own write in flight, not a host change, so it must
 * neither flow back to the virtual object nor be written over with a stale resourceVersion.
 */
export function hostCacheBehind(last: Converge | undefined, virtual: KubeObject, host: KubeObject): boolean {
  if (last === undefined || last.virtualResourceVersion !== virtual.metadata?.resourceVersion) return false;
  const version = host.metadata?.resourceVersion;
  return version !== last.hostResourceVersion && version === last.previousHostResourceVersion;
}

/**
 * The virtual cache still shows the object this process replaced when it last wrote the virtual
 * side (a host change flowed back): acting on it would write the host from the tenant's object as
 * it was before that change, dropping what just flowed back. Its watch event re-queues the key.
 */
export function virtualCacheBehind(last: Converge | undefined, virtual: KubeObject): boolean {
  if (last === undefined || last.previousVirtualResourceVersion === '') return false;
  const version = virtual.metadata?.resourceVersion;
  return version !== last.virtualResourceVersion && version === last.previousVirtualResourceVersion;
}

/**
 * Only the host object moved since this process last converged the key, to a version it did not
 * write itself: someone else changed it.
 */
export function changedByOthers(last: Converge | undefined, virtual: KubeObject, host: KubeObject): boolean {
  if (last === undefined || last.virtualResourceVersion !== virtual.metadata?.resourceVersion) return false;
  // A host cache one write behind never gets here (see hostCacheBehind).
  return host.metadata?.resourceVersion !== last.hostResourceVersion;
}
