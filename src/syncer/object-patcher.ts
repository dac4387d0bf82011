import type { KubeObject } from '../kube/kube-object.js';
import type { ReferenceImport } from '../patches/index.js';

/**
 * Patches applied around the default translation. `toHost` runs on the translated host object
 * before it is compared with the existing one; `toVirtual` (reverse expressions) runs when a
 * host-side change flows back. Both return new objects and throw on evaluation failure.
 */
export interface ObjectPatcher {
  /** Whether {@link ObjectPatcher.toVirtual} can change anything (reverse, labels or reference patches). */
  readonly reverses: boolean;
  /**
   * Whether {@link ObjectPatcher.toHost} or {@link ObjectPatcher.toVirtual} may read the existing
   * host object's fields (`context.hostObject`, reverse patches): then the host cache keeps whole
   * copies, and the controller GETs any copy cached without its body.
   */
  readonly readsHost: boolean;
  toHost(input: { host: KubeObject; virtual: KubeObject; existingHost: KubeObject | undefined }): Promise<PatchedObject>;
  /** `lastSyncedHost`: the host object as last converged; fields it still holds are not host-side changes. */
  toVirtual(input: { virtual: KubeObject; host: KubeObject; lastSyncedHost: KubeObject | undefined }): Promise<KubeObject>;
}

/** A host object after the forward patches, and the referenced objects to import for it. */
export interface PatchedObject {
  object: KubeObject;
  imports: readonly ReferenceImport[];
  /** Config paths of the patches that changed the object (none when absent): named when the host refuses it. */
  changedBy?: readonly string[];
}
