import { ApiError, badRequest, isJsonObject } from '../apimachinery/index.js';
import { MAX_BODY_NESTING_DEPTH, resolvedNestingViolation } from './body-limits.js';
import { applyJsonPatch } from './json-patch.js';
import { applyStrategicMergePatch, type PatchStrategyTable } from './strategic-merge-patch.js';

/** The patch media types the core accepts on PATCH. */
export const PATCH_MEDIA_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'] as const;

/** One of {@link PATCH_MEDIA_TYPES}. */
export type PatchMediaType = (typeof PATCH_MEDIA_TYPES)[number];

type JsonObject = Record<string, unknown>;

/** RFC 7386 JSON merge patch: objects merge recursively, `null` deletes, anything else replaces. */
export function applyMergePatch(original: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const result: JsonObject = isJsonObject(original) ? { ...original } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

/**
 * Applies `patch` of `mediaType` to `original` (an object of a kind whose merging lists are
 * `strategies`) and returns the patched object; `original` is not mutated. Malformed patches answer 400, patches that cannot apply
 * (a failed `test`, a missing path) 422, as the real server does. A JSON patch is bounded while it
 * applies (see `json-patch.ts`: 413 past 10,000 operations, 422 past 3 MiB added), and every
 * result nesting deeper than a body may is 422: copies can nest a value inside itself level by
 * level, and the code after a patch recurses per level. The size of the result is the object
 * writer's to check, as for every write.
 */
export function applyPatch(mediaType: PatchMediaType, strategies: PatchStrategyTable, original: JsonObject, patch: unknown): JsonObject {
  let patched: unknown;
  switch (mediaType) {
    case 'application/json-patch+json':
      patched = applyJsonPatch(original, patch);
      break;
    case 'application/merge-patch+json':
      if (!isJsonObject(patch)) throw badRequest('a merge patch must be a JSON object');
      patched = applyMergePatch(original, patch);
      break;
    case 'application/strategic-merge-patch+json':
      patched = applyStrategicMergePatch(strategies, original, patch);
      break;
  }
  if (!isJsonObject(patched)) throw new ApiError('Invalid', 'the patched document is not a JSON object');
  if (resolvedNestingViolation(patched) !== undefined) {
    throw new ApiError('Invalid', `the patched object nests objects and arrays more than ${MAX_BODY_NESTING_DEPTH} levels deep; the limit is ${MAX_BODY_NESTING_DEPTH} levels, as for a request body`);
  }
  return patched;
}
