import type { PatchPlan } from './compile-patches.js';
import { applyLabelsPatch, type LabelTranslator } from './label-selector-patch.js';
import { PatchEvaluationError, PatchEvaluationErrorCode } from './patch-errors.js';
import type { AppliedPatch, ApplyPatchesResult, ReferenceImport } from './patch-result.js';
import type { PatchSandbox } from './patch-sandbox.js';
import { applyReferencePatch, type ReferenceTranslator } from './reference-patch.js';
import { runForwardExpressions } from './forward-expressions.js';

/** What evaluating patches needs besides the plan; built once in the syncer's wiring. */
export interface PatchEnvironment {
  /** Where expressions run. */
  readonly sandbox: PatchSandbox;
  /** Name translation for `reference` patches. */
  readonly references: ReferenceTranslator;
  /** Label key translation for `labels` patches. */
  readonly labels: LabelTranslator;
}

/** A Kubernetes object as plain JSON data. */
export type PatchableObject = Record<string, unknown>;

/** Inputs of {@link applyPatches}. None of them is modified. */
export interface ApplyPatchesInput<T extends PatchableObject> {
  /** The host object produced by the syncer's default translation: what the patches change. */
  readonly object: T;
  /**
   * The virtual object being synced: `context.virtualObject`, and the namespace in which
   * references without `namespacePath` resolve. null when unavailable.
   */
  readonly virtualObject: PatchableObject | null;
  /** The host object as it exists in the host cluster now (`context.hostObject`); null before it is created. */
  readonly hostObject: PatchableObject | null;
  /**
   * Build `applied`, a record per location a patch ran at (`vcsync preview`, tests). Default
   * false: the syncer does not read them, and `applied` is empty.
   */
  readonly record?: boolean;
}

/**
 * Applies a plan in the sync direction (virtual → host) to one translated object and returns a
 * new object; the inputs are never modified. The new object is copy-on-write: it shares the
 * parts no patch wrote with `input.object`, so treat both as immutable.
 *
 * Order: `reference` and `labels` patches first (they complete the name translation), in list
 * order; then every `expression` patch in list order, each one seeing the result of the previous
 * ones, in one sandbox call per stage of patches with overlapping paths (usually one; see
 * `PatchPlan.stages` and forward-expressions.ts).
 *
 * Expression semantics, per location the path matches (see `path-match.ts`):
 * - a location matches only when every segment of the path exists there, the last one included
 *   (a path that is not in the object is not applied), so a patch never adds a field;
 * - the expression gets `value` (a private copy), `valueExists` (always true, kept for
 *   expressions written for it) and `context` (`vcluster`, `hostObject`, `virtualObject` -
 *   deeply frozen - and the concrete `path`; the per-object parts only when some expression of
 *   the plan reads them, see `contextReads`);
 * - the result replaces the value; `null` or `undefined` removes it: a map key is deleted, an
 *   array element is removed and later elements move down (all locations of one patch are
 *   evaluated before its removals, so `context.path` indices refer to the array as the patch
 *   found it);
 * - `metadata.name` / `metadata.namespace` are never matched, and a patch that changes them
 *   (e.g. by replacing `metadata`) fails the object.
 *
 * A failure of any patch fails the whole object (no partial result): `{ ok: false, error }`.
 */
export async function applyPatches<T extends PatchableObject>(
  plan: PatchPlan,
  input: ApplyPatchesInput<T>,
  env: PatchEnvironment,
): Promise<ApplyPatchesResult<T>> {
  const record = input.record ?? false;
  // Reference and labels patches write in place: they get a copy. Expression patches copy on write.
  const working = plan.hostPatches.length === 0 ? input.object : (structuredClone(input.object) as PatchableObject);
  const applied: AppliedPatch[] = [];
  const imports: ReferenceImport[] = [];
  const changed = new Set<number>();
  const noteChanges = (results: readonly AppliedPatch[]): void => {
    for (const result of results) if (result.outcome !== 'unchanged') changed.add(result.patchIndex);
  };
  const virtualNamespace = namespaceOf(input.virtualObject) ?? namespaceOf(input.object) ?? '';
  try {
    for (const patch of plan.hostPatches) {
      if (patch.mode === 'reference') {
        const result = applyReferencePatch(patch, working, virtualNamespace, env.references);
        noteChanges(result.applied);
        if (record) applied.push(...result.applied);
        imports.push(...result.imports);
      } else {
        const result = applyLabelsPatch(patch, working, env.labels);
        noteChanges(result);
        if (record) applied.push(...result);
      }
    }
  } catch (error: unknown) {
    if (error instanceof PatchEvaluationError) return { ok: false, error };
    throw error;
  }
  const run = await runForwardExpressions(plan, env.sandbox, {
    object: working,
    hostObject: input.hostObject,
    virtualObject: input.virtualObject,
    record,
  });
  if (!run.ok) return run;
  const object = run.object;
  applied.push(...run.applied);
  if (!sameIdentity(input.object, object)) return { ok: false, error: protectedFieldError(plan) };
  for (const index of run.changed) changed.add(index);
  const changedBy = plan.patches.filter((patch) => changed.has(patch.index)).map((patch) => patch.configPath);
  return { ok: true, object: object as T, applied, imports: dedupe(imports), changedBy };
}

/** The object's `metadata.namespace`, when it has one. */
export function namespaceOf(object: PatchableObject | null): string | undefined {
  const metadata = object?.['metadata'];
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const namespace = (metadata as Record<string, unknown>)['namespace'];
  return typeof namespace === 'string' ? namespace : undefined;
}

/** True when both objects have the same `metadata.name` and `metadata.namespace`. */
export function sameIdentity(before: PatchableObject, after: PatchableObject): boolean {
  const read = (object: PatchableObject, field: string): unknown => {
    const metadata = object['metadata'];
    return typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>)[field] : undefined;
  };
  return read(before, 'name') === read(after, 'name') && read(before, 'namespace') === read(after, 'namespace');
}

/** The error for a plan that changed `metadata.name` / `metadata.namespace`. */
export function protectedFieldError(plan: PatchPlan): PatchEvaluationError {
  return new PatchEvaluationError({
    code: PatchEvaluationErrorCode.PROTECTED_FIELD,
    patchIndex: -1,
    configPath: plan.configPath,
    objectPath: 'metadata',
    detail: 'the patches changed metadata.name or metadata.namespace, which only the syncer sets',
  });
}

/** Removes repeated imports (same direction and identity), keeping the first. */
export function dedupe(imports: readonly ReferenceImport[]): ReferenceImport[] {
  const seen = new Set<string>();
  return imports.filter((item) => {
    const key = JSON.stringify([item.direction, item.apiVersion, item.kind, item.namespace, item.name, item.hostName, item.hostNamespace]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
