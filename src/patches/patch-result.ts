import type { PatchEvaluationError } from './patch-errors.js';

/** What one patch did at one concrete location. */
export interface AppliedPatch {
  /** Index of the patch in its config list. */
  readonly patchIndex: number;
  /** The concrete location in path syntax, e.g. `subsets[0].addresses[2].ip`. */
  readonly path: string;
  /** `set`: the value was written (replaced or added); `removed`: the field or element was removed; `unchanged`: the patch ran and the value stayed the same. */
  readonly outcome: 'set' | 'removed' | 'unchanged';
}

/** A location a reverse patch did not write back, and why. */
export interface SkippedPatch {
  /** Index of the patch in its config list. */
  readonly patchIndex: number;
  /** The concrete location in path syntax. */
  readonly path: string;
  /**
   * `not-invertible`: the forward patch would not reproduce the host value from the reverse
   * result (writing it would make the two sides fight); `parent-missing`: the virtual object has
   * no array element at that location; `unknown-reference`: the translator knows no virtual
   * object for the host reference; `no-value`: a reverse-only patch's expression gave null or
   * undefined (nothing is written back).
   */
  readonly reason: 'not-invertible' | 'parent-missing' | 'unknown-reference' | 'no-value';
}

/**
 * An object a `reference` patch points at, to be imported by the syncer in `direction`
 * (`toHost`: copy the virtual object to the host under `hostName`; `fromHost`: the host object
 * `hostName` must be visible in the virtual cluster as `name`). The patch engine does no I/O.
 */
export interface ReferenceImport {
  readonly direction: 'toHost' | 'fromHost';
  readonly apiVersion: string;
  readonly kind: string;
  /** Virtual namespace ('' for cluster-scoped objects). */
  readonly namespace: string;
  /** Virtual name. */
  readonly name: string;
  readonly hostName: string;
  readonly hostNamespace: string;
}

/** Outcome of `applyPatches`: a new object, or the error for this object (nothing changed). */
export type ApplyPatchesResult<T> =
  | {
      readonly ok: true;
      /** The patched host object: a new object, sharing nothing with the inputs. */
      readonly object: T;
      /** Every location each patch ran at, in execution order. */
      readonly applied: readonly AppliedPatch[];
      /** Referenced objects the syncer must import, without duplicates. */
      readonly imports: readonly ReferenceImport[];
      /**
       * Config paths (`sync.toHost.endpoints.patches[1]`) of the patches that set or removed a
       * value of this object, in list order: what to name when the host refuses the result.
       */
      readonly changedBy: readonly string[];
    }
  | { readonly ok: false; readonly error: PatchEvaluationError };

/** Outcome of `reversePatches`: the new virtual object, or the error for this object. */
export type ReversePatchesResult<T> =
  | {
      readonly ok: true;
      /** The new virtual object (a new object even when nothing changed). */
      readonly object: T;
      /** True when at least one location was written back. */
      readonly changed: boolean;
      /** Locations written back (outcome `set`). */
      readonly applied: readonly AppliedPatch[];
      /** Host-side changes that were deliberately not written back. */
      readonly skipped: readonly SkippedPatch[];
      /** Host objects that reference patches point at, for the syncer to import (`fromHost`). */
      readonly imports: readonly ReferenceImport[];
    }
  | { readonly ok: false; readonly error: PatchEvaluationError };
