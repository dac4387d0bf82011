import type { Logger } from '../observe/logger.js';
import { PatchEvaluationError } from '../patches/index.js';
import { PatchedObjectRejectedError } from './patched-object-rejected.js';

/** How the controller goes on after a failed reconcile, for the log line. */
export interface FailureFollowUp {
  /** No retry until the object changes (a terminal error). */
  readonly terminal: boolean;
  /** Retries of the key so far. */
  readonly retries: number;
}

/**
 * The log of failed reconciles: a failure is logged at warn once per change of the virtual
 * object (its resourceVersion) and of the failure itself; the same failure of the same version,
 * retried with backoff, only at debug. A patch failure is logged by where it is in the config
 * (`patch`: `sync.toHost.endpoints.patches[1].expression`), where in the object it ran
 * (`objectPath`) and the expression's own message (`reason`); a host refusal of a patched object
 * by the patches that changed it (`patches`) and the server's `reason`: neither carries vcsync's
 * stack, which says nothing about the config. Other failures are logged under `err`.
 */
export class SyncFailureLog {
  readonly #logger: Logger;
  /** The last failure logged at warn, by key: object version and failure. */
  readonly #logged = new Map<string, string>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Logs `error`, the failure of `key` at virtual `version` (undefined: no virtual object). */
  failed(key: string, version: string | undefined, error: unknown, next: FailureFollowUp): void {
    const code = (error as { code?: unknown } | null)?.code;
    const signature = JSON.stringify([version ?? '', typeof code === 'string' ? code : '', error instanceof Error ? error.message : String(error)]);
    const then = next.terminal ? 'not retrying until the object changes' : 'retrying with backoff';
    if (this.#logged.get(key) === signature) {
      this.#logger.debug({ key, retries: next.retries }, `sync failed again; ${then}`);
      return;
    }
    this.#logged.set(key, signature);
    if (error instanceof PatchEvaluationError) {
      this.#logger.warn({ key, patch: error.configPath, objectPath: error.objectPath, code: error.code, reason: error.detail, retries: next.retries }, `patch failed; ${then}`);
    } else if (error instanceof PatchedObjectRejectedError) {
      this.#logger.warn({ key, patches: error.patches, reason: error.reason, retries: next.retries }, `the host refused the patched object; ${then}`);
    } else {
      this.#logger.warn({ key, err: error, retries: next.retries }, next.terminal ? 'sync failed; not retrying until the object changes' : 'sync failed, retrying with backoff');
    }
  }

  /** `key` converged, or has nothing to sync: its next failure is logged again. */
  forget(key: string): void {
    this.#logged.delete(key);
  }
}
