/**
 * The patch engine: compiles `sync.toHost.<resource>.patches` once into a plan, and applies it to
 * objects in either direction, with expressions running in an isolated-vm sandbox. Pure logic:
 * no I/O besides the sandbox isolate; reference imports are returned as data.
 */
export { applyPatches, type ApplyPatchesInput, type PatchableObject, type PatchEnvironment } from './apply-patches.js';
export {
  compilePatches,
  configPathSegments,
  formatConfigPath,
  type CompiledPatch,
  type CompilePatchesOptions,
  type CompilePatchesResult,
  type ExpressionPatch,
  type LabelsPatch,
  type PatchEntry,
  type PatchPlan,
  type PatchReferenceEntry,
  type ReferencePatch,
  type VClusterContext,
} from './compile-patches.js';
export { checkExpression, type ExpressionCheckResult } from './expression-check.js';
export { translateSelector, type LabelTranslator } from './label-selector-patch.js';
export {
  PatchErrorCode,
  PatchEvaluationError,
  PatchEvaluationErrorCode,
  type ConfigPathSegments,
  type PatchError,
  type PatchErrorCodeValue,
  type PatchEvaluationErrorCodeValue,
} from './patch-errors.js';
export { formatPatchPath, parsePatchPath, type CompiledPath, type PathSegment } from './patch-path.js';
export type { AppliedPatch, ApplyPatchesResult, ReferenceImport, ReversePatchesResult, SkippedPatch } from './patch-result.js';
export { PatchSandbox, type PatchSandboxOptions, type SandboxProgram } from './patch-sandbox.js';
export { formatConcretePath, matchPath, type ConcretePath, type PathMatch } from './path-match.js';
export type { ObjectReference, ReferenceTranslator, TranslatedName } from './reference-patch.js';
export { reversePatches, type ReversePatchesInput } from './reverse-patches.js';
