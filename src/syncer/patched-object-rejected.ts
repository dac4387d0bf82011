import { isBadRequest, isInvalid } from '../apimachinery/index.js';

/**
 * The host API server refused (422 Invalid or 400 BadRequest) an object that patches had changed:
 * the patches are the likely cause, so the message names them after the server's own reason,
 * e.g. `… spec.x: Invalid value …; the host refused the object as changed by the patch
 * sync.toHost.endpoints.patches[1]: check what it writes`. Retried with backoff like any write
 * failure; the next change of the object or of the config may fix it.
 */
export class PatchedObjectRejectedError extends Error {
  /** Stable code of the syncer's error catalogue. */
  readonly code = 'SYNC_PATCHED_OBJECT_REJECTED';
  /** Config paths of the patches that changed the refused object, in list order. */
  readonly patches: readonly string[];
  /** The server's reason, as its Status message says it. */
  readonly reason: string;

  constructor(cause: unknown, patches: readonly string[]) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    const which = patches.length === 1 ? `the patch ${patches[0] ?? ''}: check what it writes` : `the patches ${patches.join(', ')}: check what they write`;
    super(`${reason}; the host refused the object as changed by ${which}`, { cause });
    this.name = 'PatchedObjectRejectedError';
    this.patches = patches;
    this.reason = reason;
  }
}

/**
 * `error` from a host write of an object `changedBy` these patches: a {@link PatchedObjectRejectedError}
 * when the server refused the object itself and patches changed it, else `error` unchanged.
 */
export function withPatchesNamed(error: unknown, changedBy: readonly string[] | undefined): unknown {
  if (changedBy === undefined || changedBy.length === 0) return error;
  return isInvalid(error) || isBadRequest(error) ? new PatchedObjectRejectedError(error, changedBy) : error;
}
