import type { LeaseProblem } from '../kube/leader-elector.js';
import type { CheckResult } from '../observe/health.js';
import type { Logger } from '../observe/logger.js';

/** Where the Lease lives and what an operator can do when its namespace is missing. */
export interface LeaseHealthContext {
  leaseName: string;
  namespace: string;
  /**
   * What else fixes a missing namespace besides creating it, as two sentence endings: `check` for
   * the health check (e.g. `pass --host-namespace … naming the virtual cluster's namespace`), `log`
   * for the one log line.
   */
  missingNamespaceHint: { check: string; log: string };
}

/** The `leader-election` sync check: failing, with what to do, while the Lease cannot be taken. */
export function leaseCheck(problem: LeaseProblem | undefined, context: LeaseHealthContext): CheckResult {
  if (problem === undefined) return { ready: true }; // leading, or standing by behind a live holder
  if (problem.kind === 'namespaceMissing') {
    return {
      ready: false,
      reason: `host namespace ${context.namespace} does not exist, so the Lease ${context.leaseName} cannot be taken and nothing is synced: create the namespace, or ${context.missingNamespaceHint.check}`,
    };
  }
  return { ready: false, reason: `the Lease ${context.leaseName} cannot be taken or renewed: ${problem.message}; retrying with backoff` };
}

/**
 * Logs the one line an operator needs when the Lease's namespace is missing (the elector calls
 * this once per change of problem, not per retry), and that it is resolved once it is.
 */
export function logLeaseProblem(logger: Logger, problem: LeaseProblem | undefined, context: LeaseHealthContext): void {
  if (problem?.kind === 'namespaceMissing') {
    logger.error(
      { hostNamespace: context.namespace },
      `The host namespace does not exist, so vcsync cannot take its Lease and syncs nothing: create the namespace, or ${context.missingNamespaceHint.log}. Retrying with backoff`,
    );
  } else if (problem === undefined) {
    logger.info({ hostNamespace: context.namespace }, 'The Lease can be written again');
  }
}
