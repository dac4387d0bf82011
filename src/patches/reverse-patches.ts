import { dedupe, namespaceOf, protectedFieldError, sameIdentity, type PatchableObject, type PatchEnvironment } from './apply-patches.js';
import type { PatchPlan } from './compile-patches.js';
import { reverseLabelsPatch } from './label-selector-patch.js';
import { PatchEvaluationError } from './patch-errors.js';
import type { AppliedPatch, ReferenceImport, ReversePatchesResult, SkippedPatch } from './patch-result.js';
import { reverseReferencePatch } from './reference-patch.js';
import { runProgram } from './run-program.js';

/** Inputs of {@link reversePatches}. None of them is modified. */
export interface ReversePatchesInput<T extends PatchableObject> {
  /** The virtual object as it is now. */
  readonly virtualObject: T;
  /** The host object as it is now (after a host-side change). */
  readonly hostObject: PatchableObject;
  /**
   * The host object as the syncer last wrote or saw it. A location holding the same value there
   * is not a host-side change and is never written back, so an edit made in the virtual cluster
   * is not overwritten by the stale host value. null or absent: every difference counts as a
   * host-side change.
   */
  readonly lastSyncedHostObject?: PatchableObject | null;
}

/**
 * Writes host-side changes of patched fields back into the virtual object (host → virtual) and
 * returns the new virtual object; the inputs are never modified.
 *
 * Which patches: expression patches with a `reverseExpression`, `labels` patches (keys translated
 * back) and `reference` patches (when the translator has `toVirtual`). Patches are reversed
 * independently, each at the same path on both sides (the path names a field the default
 * translation copies unchanged).
 *
 * For every location `p` the patch's path matches in the host object, with host value `h`:
 * 1. skip if `lastSyncedHostObject` holds `h` at `p` (not a host-side change);
 * 2. skip if the virtual value `v` at `p` exists and forward(`v`) = `h` (already in sync);
 * 3. `c` = reverse(`h`) (`reverseExpression` with `value` = `h`);
 * 4. write `c` at `p` only if forward(`c`) = `h` (deep JSON equality); otherwise report the
 *    location as `skipped: not-invertible` and write nothing.
 *
 * A reverse-only patch (no `expression`: a one-way host → virtual transform) replaces steps 2-4:
 * `c` = reverse(`h`) is written at `p` unless the virtual value already is `c` (null or undefined
 * writes nothing: `skipped: no-value`).
 *
 * Hence the round-trip contract (for patches with both expressions): applying the forward patches to the returned virtual object
 * reproduces `h` at every written location, and calling `reversePatches` again with the returned
 * object is a no-op (`changed: false`) - no ping-pong between the two sides. Removals on the host
 * are not written back (the forward direction restores them). A failure fails the whole object.
 */
export async function reversePatches<T extends PatchableObject>(
  plan: PatchPlan,
  input: ReversePatchesInput<T>,
  env: PatchEnvironment,
): Promise<ReversePatchesResult<T>> {
  const lastSynced = input.lastSyncedHostObject ?? null;
  let working = structuredClone(input.virtualObject) as PatchableObject;
  const applied: AppliedPatch[] = [];
  const skipped: SkippedPatch[] = [];
  const imports: ReferenceImport[] = [];
  if (plan.expressionPatches.some((patch) => patch.reverseExpression !== undefined)) {
    const run = await runProgram(plan, env.sandbox, {
      object: working,
      hostObject: input.hostObject,
      virtualObject: input.virtualObject,
      lastSyncedHostObject: lastSynced,
    });
    if (!run.ok) return run;
    working = run.output.object as PatchableObject;
    applied.push(...run.output.applied);
    skipped.push(...run.output.skipped);
  }
  try {
    for (const patch of plan.hostPatches) {
      if (patch.mode === 'labels') {
        const result = reverseLabelsPatch(patch, working, input.hostObject, lastSynced, env.labels);
        applied.push(...result.applied);
        skipped.push(...result.skipped);
      } else {
        const result = reverseReferencePatch(
          patch,
          {
            working,
            hostObject: input.hostObject,
            lastSyncedHostObject: lastSynced,
            virtualNamespace: namespaceOf(input.virtualObject) ?? '',
            hostNamespace: namespaceOf(input.hostObject) ?? '',
          },
          env.references,
        );
        applied.push(...result.applied);
        skipped.push(...result.skipped);
        imports.push(...result.imports);
      }
    }
  } catch (error: unknown) {
    if (error instanceof PatchEvaluationError) return { ok: false, error };
    throw error;
  }
  if (!sameIdentity(input.virtualObject, working)) return { ok: false, error: protectedFieldError(plan) };
  return { ok: true, object: working as T, changed: applied.length > 0, applied, skipped, imports: dedupe(imports) };
}
