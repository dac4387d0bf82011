import type { LeaderTerm } from '../kube/leader-elector.js';

/**
 * One long-running part of the daemon, as controller-runtime's `Runnable` with
 * `NeedLeaderElection()`: the {@link Manager} calls `run` once per start (a leader-gated runnable
 * once per leadership term) and aborts `signal` to stop it.
 */
export interface Runnable {
  /** Fixed word for logs, errors and stop reports, e.g. `syncer`, `metrics-server`. Unique per manager. */
  readonly name: string;
  /**
   * True when only the replica holding the Lease may run it (it writes, as the syncer does);
   * false when every replica runs it (servers, config watchers).
   */
  readonly needsLeader: boolean;
  /**
   * Works until `signal` aborts, then drains and resolves. Rejecting means the runnable failed:
   * the manager stops every runnable and reports the failure. Resolving before the signal is
   * allowed (the part had nothing more to do). A leader-gated runnable also gets its term, whose
   * `holdsLease()` its writers check before every write (`signal` is the term's signal).
   */
  run(signal: AbortSignal, term?: LeaderTerm): Promise<void>;
}
