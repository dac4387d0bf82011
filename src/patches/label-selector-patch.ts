import type { LabelsPatch } from './compile-patches.js';
import { isJsonObject, jsonEqual } from '../apimachinery/index.js';
import { PatchEvaluationError, PatchEvaluationErrorCode } from './patch-errors.js';
import { formatConcretePath, getAtPath, holdsSameValue, matchPath, setAtPath } from './path-match.js';
import type { AppliedPatch, SkippedPatch } from './patch-result.js';

/**
 * How `labels` patches translate label keys; implemented by the syncer's label translation
 * (which rewrites a few reserved keys and keeps the others). Must be pure and must not throw.
 */
export interface LabelTranslator {
  /** The host key of a virtual label key. */
  toHostKey(key: string): string;
  /** The virtual key of a host label key (the inverse of `toHostKey`). */
  toVirtualKey(key: string): string;
}

/**
 * Translates the keys of a label selector: `{ matchLabels, matchExpressions }` (other fields are
 * kept) or a plain label map. Values are never changed. `null` stays `null`.
 * Throws {@link PatchEvaluationError} when the value is neither.
 */
export function translateSelector(
  value: unknown,
  translateKey: (key: string) => string,
  patch: LabelsPatch,
  objectPath: string,
): unknown {
  if (value === null) return null;
  const invalid = (detail: string): PatchEvaluationError =>
    new PatchEvaluationError({
      code: PatchEvaluationErrorCode.LABELS_INVALID,
      patchIndex: patch.index,
      configPath: `${patch.configPath}.labels`,
      objectPath,
      detail,
    });
  if (!isJsonObject(value)) throw invalid('a labels patch needs a label selector ({ matchLabels, matchExpressions }) or a label map');
  const isSelector = Object.hasOwn(value, 'matchLabels') || Object.hasOwn(value, 'matchExpressions');
  if (!isSelector) return translateMap(value, translateKey);
  const out: Record<string, unknown> = structuredClone(value);
  const matchLabels = value['matchLabels'];
  if (matchLabels !== undefined && matchLabels !== null) {
    if (!isJsonObject(matchLabels)) throw invalid('matchLabels must be a map of label keys to values');
    out['matchLabels'] = translateMap(matchLabels, translateKey);
  }
  const expressions = value['matchExpressions'];
  if (expressions !== undefined && expressions !== null) {
    if (!Array.isArray(expressions)) throw invalid('matchExpressions must be a list');
    out['matchExpressions'] = expressions.map((requirement: unknown) => {
      if (!isJsonObject(requirement) || typeof requirement['key'] !== 'string') {
        throw invalid('each matchExpressions entry needs a string key');
      }
      return { ...structuredClone(requirement), key: translateKey(requirement['key']) };
    });
  }
  return out;
}

function translateMap(map: Record<string, unknown>, translateKey: (key: string) => string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(map)) {
    Object.defineProperty(out, translateKey(key), { value: structuredClone(item), writable: true, enumerable: true, configurable: true });
  }
  return out;
}

/** Applies one labels patch to the mutable host object `working` (virtual → host keys). */
export function applyLabelsPatch(patch: LabelsPatch, working: unknown, translator: LabelTranslator): AppliedPatch[] {
  const applied: AppliedPatch[] = [];
  const toHost = (key: string): string => translator.toHostKey(key);
  for (const match of matchPath(working, patch.path)) {
    const path = formatConcretePath(match.path);
    const translated = translateSelector(match.value, toHost, patch, path);
    const changed = !jsonEqual(translated, match.value);
    if (changed) setAtPath(working, match.path, translated);
    applied.push({ patchIndex: patch.index, path, outcome: changed ? 'set' : 'unchanged' });
  }
  return applied;
}

/**
 * Writes host-side changes of a selector back into the virtual object `working` with virtual
 * keys, only where translating forward again reproduces the host value (no ping-pong) and the
 * host value differs from `lastSyncedHostObject` (null: every difference counts).
 */
export function reverseLabelsPatch(
  patch: LabelsPatch,
  working: unknown,
  hostObject: unknown,
  lastSyncedHostObject: unknown,
  translator: LabelTranslator,
): { applied: AppliedPatch[]; skipped: SkippedPatch[] } {
  const applied: AppliedPatch[] = [];
  const skipped: SkippedPatch[] = [];
  const toHost = (key: string): string => translator.toHostKey(key);
  const toVirtual = (key: string): string => translator.toVirtualKey(key);
  for (const match of matchPath(hostObject, patch.path)) {
    if (holdsSameValue(lastSyncedHostObject, match.path, match.value)) continue;
    const path = formatConcretePath(match.path);
    const current = getAtPath(working, match.path);
    if (current.exists && jsonEqual(translateSelector(current.value, toHost, patch, path), match.value)) continue;
    const candidate = translateSelector(match.value, toVirtual, patch, path);
    if (!jsonEqual(translateSelector(candidate, toHost, patch, path), match.value)) {
      skipped.push({ patchIndex: patch.index, path, reason: 'not-invertible' });
      continue;
    }
    if (!setAtPath(working, match.path, candidate)) {
      skipped.push({ patchIndex: patch.index, path, reason: 'parent-missing' });
      continue;
    }
    applied.push({ patchIndex: patch.index, path, outcome: 'set' });
  }
  return { applied, skipped };
}
