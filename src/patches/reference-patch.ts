import type { ReferencePatch } from './compile-patches.js';
import { isJsonObject, jsonEqual } from '../apimachinery/index.js';
import { PatchEvaluationError, PatchEvaluationErrorCode } from './patch-errors.js';
import type { CompiledPath } from './patch-path.js';
import { type ConcretePath, formatConcretePath, getAtPath, holdsSameValue, matchPath, setAtPath } from './path-match.js';
import type { AppliedPatch, ReferenceImport, SkippedPatch } from './patch-result.js';

/** Identity of a referenced object on one side. */
export interface ObjectReference {
  readonly apiVersion: string;
  readonly kind: string;
  /** '' for cluster-scoped objects. */
  readonly namespace: string;
  readonly name: string;
}

/** A name and namespace on the other side. */
export interface TranslatedName {
  readonly name: string;
  readonly namespace: string;
}

/**
 * How reference patches translate names; implemented by the syncer's name translation.
 * Single-namespace mode: `toHost` returns the short form `v` + 13 base36 characters of the hash
 * and the host namespace. Multi-namespace mode: the same name and the mapped namespace.
 * Must be pure and must not throw.
 */
export interface ReferenceTranslator {
  /** The host name and namespace of a virtual object. */
  toHost(reference: ObjectReference): TranslatedName;
  /**
   * The virtual name and namespace of a host object, or undefined when it belongs to no virtual
   * object. Optional: without it, reference patches are not written back by `reversePatches`.
   */
  toVirtual?(reference: ObjectReference): TranslatedName | undefined;
}

/** Where a reference value keeps its parts, resolved against one matched value. */
interface ResolvedReference {
  readonly reference: ObjectReference;
  /** Location of the name relative to the matched value ([] when the value is the name itself). */
  readonly nameAt: ConcretePath;
  /** Location of the namespace relative to the value, when `namespacePath` found one. */
  readonly namespaceAt: ConcretePath | undefined;
}

const DEFAULT_NAME_PATH: CompiledPath = [{ kind: 'key', key: 'name' }];

/**
 * Reads the reference at one matched value: a string is the name itself; an object holds the
 * name at `namePath` (default `name`), and optionally namespace, kind and apiVersion at their
 * paths. Returns undefined when there is no name (the patch is skipped there).
 */
function resolveReference(
  patch: ReferencePatch,
  value: unknown,
  ownNamespace: string,
  objectPath: string,
): ResolvedReference | undefined {
  if (value === null) return undefined;
  const invalid = (detail: string): PatchEvaluationError =>
    new PatchEvaluationError({
      code: PatchEvaluationErrorCode.REFERENCE_INVALID,
      patchIndex: patch.index,
      configPath: `${patch.configPath}.reference`,
      objectPath,
      detail,
    });
  if (typeof value === 'string') {
    if (patch.kind === undefined) throw invalid('the value is a plain name, so kindPath cannot apply; set reference.kind');
    if (value === '') return undefined;
    const reference = { apiVersion: patch.apiVersion ?? 'v1', kind: patch.kind, namespace: ownNamespace, name: value };
    return { reference, nameAt: [], namespaceAt: undefined };
  }
  if (!isJsonObject(value)) throw invalid('a reference must be a name (string) or an object holding one');
  const nameMatch = firstString(value, patch.namePath ?? DEFAULT_NAME_PATH);
  if (nameMatch === undefined || nameMatch.value === '') return undefined;
  const namespaceMatch = patch.namespacePath === undefined ? undefined : firstString(value, patch.namespacePath);
  const kind = (patch.kindPath === undefined ? undefined : firstString(value, patch.kindPath)?.value) ?? patch.kind;
  if (kind === undefined) throw invalid('no kind found at reference.kindPath and no reference.kind set');
  const apiVersion =
    (patch.apiVersionPath === undefined ? undefined : firstString(value, patch.apiVersionPath)?.value) ??
    patch.apiVersion ??
    'v1';
  return {
    reference: { apiVersion, kind, namespace: namespaceMatch?.value ?? ownNamespace, name: nameMatch.value },
    nameAt: nameMatch.path,
    namespaceAt: namespaceMatch?.path,
  };
}

function firstString(value: unknown, path: CompiledPath): { path: ConcretePath; value: string } | undefined {
  const found = matchPath(value, path).find((match) => typeof match.value === 'string');
  return found === undefined ? undefined : { path: found.path, value: found.value as string };
}

/** The value with its name (and namespace, where it has one) replaced. */
function rewrite(resolved: ResolvedReference, value: unknown, target: TranslatedName): unknown {
  if (resolved.nameAt.length === 0) return target.name;
  const copy: unknown = structuredClone(value);
  setAtPath(copy, resolved.nameAt, target.name);
  if (resolved.namespaceAt !== undefined) setAtPath(copy, resolved.namespaceAt, target.namespace);
  return copy;
}

/** Forward translation of one reference value; undefined when the value names nothing. */
function forwardValue(
  patch: ReferencePatch,
  value: unknown,
  ownNamespace: string,
  objectPath: string,
  translator: ReferenceTranslator,
): { value: unknown; imported: ReferenceImport } | undefined {
  const resolved = resolveReference(patch, value, ownNamespace, objectPath);
  if (resolved === undefined) return undefined;
  const host = translator.toHost(resolved.reference);
  return {
    value: rewrite(resolved, value, host),
    imported: { direction: 'toHost', ...resolved.reference, hostName: host.name, hostNamespace: host.namespace },
  };
}

/**
 * Applies one reference patch to the mutable host object `working` (virtual → host): rewrites
 * every matched reference to its host name and lists the referenced objects to import.
 * `virtualNamespace` is the namespace references without `namespacePath` resolve in.
 * Throws {@link PatchEvaluationError} for a value that cannot be a reference.
 */
export function applyReferencePatch(
  patch: ReferencePatch,
  working: unknown,
  virtualNamespace: string,
  translator: ReferenceTranslator,
): { applied: AppliedPatch[]; imports: ReferenceImport[] } {
  const applied: AppliedPatch[] = [];
  const imports: ReferenceImport[] = [];
  for (const match of matchPath(working, patch.path)) {
    const path = formatConcretePath(match.path);
    const result = forwardValue(patch, match.value, virtualNamespace, path, translator);
    if (result === undefined) continue;
    const changed = !jsonEqual(result.value, match.value);
    if (changed) setAtPath(working, match.path, result.value);
    applied.push({ patchIndex: patch.index, path, outcome: changed ? 'set' : 'unchanged' });
    imports.push(result.imported);
  }
  return { applied, imports };
}

/** Inputs of {@link reverseReferencePatch}. */
export interface ReverseReferenceInput {
  /** The virtual object being rebuilt (mutable). */
  readonly working: unknown;
  readonly hostObject: unknown;
  /** The host object as last synced; locations equal there are not host-side changes. null: none known. */
  readonly lastSyncedHostObject: unknown;
  readonly virtualNamespace: string;
  readonly hostNamespace: string;
}

/**
 * Writes host-side changes of reference fields back into the virtual object (host → virtual):
 * the host name is translated with `translator.toVirtual`, and written only when translating it
 * forward again reproduces the host value (no ping-pong). Does nothing without `toVirtual`.
 */
export function reverseReferencePatch(
  patch: ReferencePatch,
  input: ReverseReferenceInput,
  translator: ReferenceTranslator,
): { applied: AppliedPatch[]; skipped: SkippedPatch[]; imports: ReferenceImport[] } {
  const applied: AppliedPatch[] = [];
  const skipped: SkippedPatch[] = [];
  const imports: ReferenceImport[] = [];
  const toVirtual = translator.toVirtual?.bind(translator);
  if (toVirtual === undefined) return { applied, skipped, imports };
  for (const match of matchPath(input.hostObject, patch.path)) {
    if (holdsSameValue(input.lastSyncedHostObject, match.path, match.value)) continue;
    const path = formatConcretePath(match.path);
    const current = getAtPath(input.working, match.path);
    if (current.exists) {
      const forward = forwardValue(patch, current.value, input.virtualNamespace, path, translator);
      if (forward !== undefined && jsonEqual(forward.value, match.value)) continue;
    }
    const resolved = resolveReference(patch, match.value, input.hostNamespace, path);
    if (resolved === undefined) continue;
    const virtual = toVirtual(resolved.reference);
    if (virtual === undefined) {
      skipped.push({ patchIndex: patch.index, path, reason: 'unknown-reference' });
      continue;
    }
    const candidate = rewrite(resolved, match.value, virtual);
    const roundTrip = forwardValue(patch, candidate, input.virtualNamespace, path, translator);
    if (roundTrip === undefined || !jsonEqual(roundTrip.value, match.value)) {
      skipped.push({ patchIndex: patch.index, path, reason: 'not-invertible' });
      continue;
    }
    if (!setAtPath(input.working, match.path, candidate)) {
      skipped.push({ patchIndex: patch.index, path, reason: 'parent-missing' });
      continue;
    }
    applied.push({ patchIndex: patch.index, path, outcome: 'set' });
    imports.push({
      direction: 'fromHost',
      apiVersion: resolved.reference.apiVersion,
      kind: resolved.reference.kind,
      namespace: virtual.namespace,
      name: virtual.name,
      hostName: resolved.reference.name,
      hostNamespace: resolved.reference.namespace,
    });
  }
  return { applied, skipped, imports };
}

