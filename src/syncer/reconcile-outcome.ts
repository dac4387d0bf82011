/**
 * What one reconcile of a key did, as data. The controller turns each outcome into exactly one
 * queue action and one metric label, in one place (see `to-host-controller.ts`):
 * - `synced`, `unchanged`, `skipped`, `deleted` → forget the key's failures;
 * - `requeue`, `deferred` → add the key again after `afterMs` (not counted as a failure);
 * - a `contention` on an outcome → counted as competing writes, reported (log, event
 *   `CompetingWriter`) when `report` is set;
 * - a thrown error → retry with the queue's backoff, event `SyncError` on the virtual object;
 * - a thrown {@link TerminalError} → no retry until the next change, event `SyncError`.
 */
export type ReconcileOutcome =
  | { kind: 'synced'; action: 'created' | 'updated' | 'recreated' | 'virtual-updated'; contention?: Contention }
  | { kind: 'unchanged' }
  | { kind: 'skipped'; cause: SkipCause; reason: string }
  | { kind: 'deleted'; reason: string }
  | { kind: 'requeue'; afterMs: number; reason: string }
  /** Another writer keeps changing the host object: its repair waits (see `competing-writers.ts`). */
  | { kind: 'deferred'; afterMs: number; contention: Contention };

/**
 * Why a reconcile skipped its key, as a bounded metric label (the `reason` says it in words):
 * `disabled` the resource's sync is turned off; `never_synced` a key the resource never syncs
 * (default/kubernetes); `not_placed` the translator maps it nowhere on the host; `no_virtual_object`
 * nothing to sync; `excluded` the resource's rules leave it out (no Service, a selector, …);
 * `controlled_elsewhere` the virtual object or its host copy belongs to a plugin or another syncer
 * (the `vcluster.loft.sh/controlled-by` label or annotation): both sides are left alone.
 */
export type SkipCause = 'disabled' | 'never_synced' | 'not_placed' | 'no_virtual_object' | 'excluded' | 'controlled_elsewhere';

/** Every {@link SkipCause}, for metrics that start at zero. */
export const SKIP_CAUSES: readonly SkipCause[] = ['disabled', 'never_synced', 'not_placed', 'no_virtual_object', 'excluded', 'controlled_elsewhere'];

/** Another writer keeps changing a host object this controller converges: what to count and say. */
export interface Contention {
  /** The host object, `namespace/name`. */
  host: string;
  /** Foreign changes to add to `vcsync_competing_writes_total`. */
  competingWrites: number;
  /** Log a warning and record a `CompetingWriter` event (once per key per window). */
  report: boolean;
  /** The other writers' field manager names, when the server tracks managed fields. */
  otherManagers: readonly string[];
}

/** Bounded label values of the `result` label on sync metrics. */
export type OutcomeLabel =
  | 'created' | 'updated' | 'recreated' | 'virtual_updated' | 'unchanged' | 'skipped' | 'deleted' | 'requeued' | 'deferred' | 'error' | 'terminal_error';

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
    case 'deferred':
      return 'deferred';
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
