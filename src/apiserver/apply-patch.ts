import fastJsonPatch from 'fast-json-patch';
import { ApiError, badRequest } from './api-error.js';
import { applyStrategicMergePatch, type PatchStrategyTable } from './strategic-merge-patch.js';
import { isJsonObject } from './kind-strategy.js';

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

function applyJsonPatch(original: JsonObject, patch: unknown): unknown {
  if (!Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  for (const [index, operation] of patch.entries()) {
    if (!isJsonObject(operation) || typeof operation['op'] !== 'string' || typeof operation['path'] !== 'string') {
      throw badRequest(`invalid JSON patch operation at index ${index}: each operation needs "op" and "path"`);
    }
  }
  try {
    return fastJsonPatch.applyPatch(original, patch as fastJsonPatch.Operation[], true, false, true).newDocument;
  } catch (error: unknown) {
    const message = error instanceof Error ? error.message.split('\n')[0] ?? error.message : String(error);
    throw new ApiError('Invalid', `the server rejected our request due to an error in our request: ${message}`, undefined, { cause: error });
  }
}

/**
 * Applies `patch` of `mediaType` to `original` (an object of a kind whose merging lists are
 * `strategies`) and returns the patched object; `original` is not mutated. Malformed patches answer 400, patches that cannot apply
 * (a failed `test`, a missing path) 422, as the real server does.
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
  return patched;
}
