/**
 * What one reconcile of a key did, as data. The controller turns each outcome into exactly one
 * queue action and one metric label, in one place (see `to-host-controller.ts`):
 * - `synced`, `unchanged`, `skipped`, `deleted` → forget the key's failures;
 * - `requeue` → add the key again after `afterMs` (not counted as a failure);
 * - a thrown error → retry with the queue's backoff, event `SyncError` on the virtual object;
 * - a thrown {@link TerminalError} → no retry until the next change, event `SyncError`.
 */
export type ReconcileOutcome =
  | { kind: 'synced'; action: 'created' | 'updated' | 'recreated' | 'virtual-updated' }
  | { kind: 'unchanged' }
  | { kind: 'skipped'; reason: string }
  | { kind: 'deleted'; reason: string }
  | { kind: 'requeue'; afterMs: number; reason: string };

/** Bounded label values of the `result` label on sync metrics. */
export type OutcomeLabel = 'created' | 'updated' | 'recreated' | 'virtual_updated' | 'unchanged' | 'skipped' | 'deleted' | 'requeued' | 'error' | 'terminal_error';

/** The metric label of an outcome. */
export function outcomeLabel(outcome: ReconcileOutcome): OutcomeLabel {
  switch (outcome.kind) {
    case 'synced':
      return outcome.action === 'virtual-updated' ? 'virtual_updated' : outcome.action;
    case 'unchanged':
      return 'unchanged';
    case 'skipped':
      return 'skipped';
    case 'deleted':
      return 'deleted';
    case 'requeue':
      return 'requeued';
  }
}

/**
 * A failure that retrying cannot fix (e.g. a host object of the same name that vcsync does not
 * own). The key is not retried with backoff; the next change to either side reconciles it again.
 */
export class TerminalError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
    this.code = code;
  }
}
