import { setMaxListeners } from 'node:events';
import { LeaderElector, type LeaderElectorOptions, type LeaderTerm } from '../kube/leader-elector.js';
import { HealthChecks } from '../observe/health.js';
import { silentLogger, type Logger } from '../observe/logger.js';
import { leaseCheck, logLeaseProblem, type LeaseHealthContext } from './lease-health.js';
import type { Runnable } from './runnable.js';

/** Leader election for the manager: the elector's options without its callbacks, plus what to tell operators. */
export type ManagerLeaderElection = Omit<LeaderElectorOptions, 'onStartedLeading' | 'onStoppedLeading' | 'onProblemChanged' | 'leaseName' | 'namespace'> &
  LeaseHealthContext;

/** Options of {@link Manager}. */
export interface ManagerOptions {
  /**
   * Take this Lease before running leader-gated runnables, so only one replica runs them. Absent:
   * this process always leads (a single replica, `--no-leader-elect`).
   */
  leaderElection?: ManagerLeaderElection;
  /** The one health registry `/readyz`, `/livez` and `/syncz` read. Default a new, empty one. */
  health?: HealthChecks;
  /**
   * How long runnables may take to stop once stopping began, in ms; past it {@link Manager.run}
   * rejects naming the runnables still running. Default 15 000 (below the 20 s after which the
   * command exits anyway, so the report is logged first).
   */
  stopDeadlineMs?: number;
  /** Logger. Default silent. */
  logger?: Logger;
}

/** Why {@link Manager.run} ended other than by its signal: a runnable failed, or stopping took too long. */
export class ManagerError extends Error {
  /** The runnables concerned: the one that failed, or those that did not stop in time. */
  readonly runnables: readonly string[];

  constructor(message: string, runnables: readonly string[], options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ManagerError';
    this.runnables = runnables;
  }
}

/**
 * The daemon's runtime, after controller-runtime's manager: a set of {@link Runnable}s, one
 * health registry and optional leader election.
 *
 * - Runnables that do not need the leader start when {@link Manager.run} starts, on every replica.
 * - Leader-gated runnables start each time this replica takes the Lease, with a signal that aborts
 *   when it loses it (and start again on the next term); without leader election they start at once.
 *   They also get the {@link LeaderTerm}, whose `holdsLease()` their writers check before every
 *   write: false from the renew deadline on, so a leader that cannot renew stops writing before
 *   another replica can take the Lease.
 * - Stopping (the signal, or a failure) aborts the leader-gated runnables first, waits for them
 *   (and for the Lease to be released), then aborts the others: servers answer while syncers drain.
 * - A runnable that rejects stops the manager: every runnable is stopped and `run` rejects with a
 *   {@link ManagerError} naming it. Stopping longer than `stopDeadlineMs` also rejects.
 *
 * The manager registers two checks when it runs: `shutdown` (readiness; failing once stopping
 * began) and, with leader election, `leader-election` (sync health; failing while the Lease cannot
 * be taken).
 */
export class Manager {
  readonly #runnables: Runnable[] = [];
  readonly #options: ManagerOptions;
  readonly #health: HealthChecks;
  readonly #logger: Logger;
  #elector: LeaderElector | undefined;
  #running = false;
  #leading = false;

  constructor(options: ManagerOptions = {}) {
    this.#options = options;
    this.#health = options.health ?? new HealthChecks();
    this.#logger = options.logger ?? silentLogger();
  }

  /** The health registry every component adds its checks to. */
  get health(): HealthChecks {
    return this.#health;
  }

  /** True while leader-gated runnables may run: holding the Lease, or always without leader election. */
  isLeading(): boolean {
    return this.#leading;
  }

  /** Adds a runnable; names are unique. Only before {@link Manager.run}. */
  add(runnable: Runnable): void {
    if (this.#running) throw new Error(`runnable "${runnable.name}" added after the manager started`);
    if (this.#runnables.some((r) => r.name === runnable.name)) throw new Error(`runnable "${runnable.name}" is added twice`);
    this.#runnables.push(runnable);
  }

  /**
   * Runs every runnable until `signal` aborts, then stops them in order (see the class comment).
   * Resolves once all stopped; rejects with a {@link ManagerError} when a runnable failed or did
   * not stop within the deadline. Runs once.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error('the manager is already running');
    this.#running = true;
    const { stopDeadlineMs = 15_000, leaderElection: election } = this.#options;
    const leaderStop = new AbortController();
    const otherStop = new AbortController();
    for (const controller of [leaderStop, otherStop]) setMaxListeners(100, controller.signal);
    const active = new Set<string>();
    let failure: ManagerError | undefined;
    let stopping = false;
    let deadlineTimer: NodeJS.Timeout | undefined;
    let onDeadline: (error: ManagerError) => void = () => undefined;
    const deadline = new Promise<never>((_, reject) => (onDeadline = reject));
    deadline.catch(() => undefined); // observed through the race below; never an unhandled rejection

    const runOne = async (runnable: Runnable, runSignal: AbortSignal, term: LeaderTerm | undefined): Promise<void> => {
      active.add(runnable.name);
      try {
        await runnable.run(runSignal, term);
      } catch (error) {
        if (failure === undefined) {
          const reason = error instanceof Error ? error.message : String(error);
          failure = new ManagerError(`${runnable.name} failed: ${reason}`, [runnable.name], { cause: error });
          this.#logger.error({ err: error, runnable: runnable.name }, 'A runnable failed; stopping every runnable');
        }
        stop();
      } finally {
        active.delete(runnable.name);
      }
    };
    const runAll = (needsLeader: boolean, runSignal: AbortSignal, term?: LeaderTerm): Promise<unknown> =>
      Promise.all(this.#runnables.filter((r) => r.needsLeader === needsLeader).map((r) => runOne(r, runSignal, term)));
    const runLeading = async (signal: AbortSignal): Promise<void> => {
      this.#leading = true;
      // Without leader election the term lasts until stopping; with it, until the elector says the Lease may be gone.
      const term: LeaderTerm = { signal, holdsLease: () => !signal.aborted && (this.#elector?.holdsLease() ?? true) };
      try {
        await runAll(true, signal, term);
      } finally {
        this.#leading = false;
      }
    };

    this.#health.add({ name: 'shutdown', check: () => (stopping ? { ready: false, reason: 'vcsync is shutting down' } : { ready: true }) });
    if (election !== undefined) {
      const { missingNamespaceHint, ...electorOptions } = election;
      this.#elector = new LeaderElector({
        ...electorOptions,
        onStartedLeading: runLeading,
        onProblemChanged: (problem) => logLeaseProblem(this.#logger, problem, election),
      });
      const elector = this.#elector;
      this.#health.addSync({ name: 'leader-election', check: () => leaseCheck(elector.status().problem, { ...election, missingNamespaceHint }) });
    }
    const leaders = this.#elector !== undefined ? this.#elector.run(leaderStop.signal) : runLeading(leaderStop.signal);
    const others = runAll(false, otherStop.signal);

    function stop(): void {
      if (stopping) return;
      stopping = true;
      leaderStop.abort();
      // Leader-gated work drains (and the Lease is released) before servers and watchers stop.
      // Read on a later turn: a runnable that throws at once stops the manager before `leaders` is set.
      void Promise.resolve()
        .then(() => leaders)
        .catch(() => undefined) // a rejection reaches run() through Promise.all below
        .finally(() => otherStop.abort());
      deadlineTimer = setTimeout(() => {
        const names = [...active].sort();
        onDeadline(new ManagerError(`${names.join(', ')} did not stop within ${stopDeadlineMs} ms`, names));
      }, stopDeadlineMs);
      deadlineTimer.unref();
    }
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    try {
      await Promise.race([Promise.all([leaders, others]), deadline]);
    } finally {
      signal.removeEventListener('abort', stop);
      if (deadlineTimer !== undefined) clearTimeout(deadlineTimer);
    }
    if (failure !== undefined) throw failure;
  }
}
