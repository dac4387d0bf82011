import { Counter, type Registry } from 'prom-client';

/**
 * The patch sandbox's metrics (one module for the component, present from the start at zero).
 * `PatchSandbox` takes the callbacks through its options; the daemon registers them.
 */
export class SandboxMetrics {
  readonly #abandoned: Counter;

  constructor(registry: Registry) {
    this.#abandoned = new Counter({
      name: 'vcsync_patch_sandbox_workers_abandoned_total',
      help: 'Patch sandbox workers killed and replaced because a crossing did not answer within twice --sandbox-timeout-ms (an expression that never reached a time-limit check); each failed its objects with PATCH_EVAL_TIMEOUT.',
      registers: [registry],
    });
  }

  /** For `PatchSandboxOptions.onAbandoned`. */
  readonly workerAbandoned = (): void => {
    this.#abandoned.inc();
  };
}
