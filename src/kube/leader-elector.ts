import { Registry } from 'prom-client';
import { isAlreadyExists, isConflict, isNamespaceNotFound, isNotFound } from '../apimachinery/index.js';
import { LeadershipEndedError } from './kube-errors.js';
import { CoreResources, collectionPath, objectPath } from './api-path.js';
import { Backoff } from './backoff.js';
import { realClock, sleep, type Clock, type TimerHandle } from './clock.js';
import type { KubeObject } from './kube-object.js';
import { KubeMetrics } from './metrics.js';
import type { CallOptions } from './rest-client.js';
import { silentLogger, type Logger } from '../observe/logger.js';

/** A coordination.k8s.io/v1 Lease, as far as leader election uses it. */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    /** MicroTime (RFC 3339 with microseconds). */
    acquireTime?: string;
    /** MicroTime (RFC 3339 with microseconds). */
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/**
 * Why attempts to take or renew the Lease fail, classified by the API's Status (never by message
 * text). Retrying continues either way; the classification is what health checks and logs show.
 */
export type LeaseProblem =
  /** The Lease's namespace does not exist: no attempt can succeed until someone creates it. */
  | { kind: 'namespaceMissing'; namespace: string }
  /** Any other failed request (no answer, Forbidden, server error, …); `message` says which. */
  | { kind: 'requestFailed'; message: string };

/** What {@link LeaderElector.status} reports. */
export interface LeaderElectionStatus {
  /** True while this process holds the Lease. */
  leading: boolean;
  /** The holder identity last observed on the Lease (`''` when none). */
  holder: string;
  /** Why the last attempt failed; undefined after a successful request. */
  problem: LeaseProblem | undefined;
}

/**
 * What leader-gated work is given for one leadership term: the term's signal, and the check its
 * writers make before every write (writes must stop by the renew deadline, see
 * {@link LeaderElector.holdsLease}).
 */
export interface LeaderTerm {
  /** Aborts when the term ends: the Lease lost or not renewed in time, or stopping. */
  readonly signal: AbortSignal;
  /** True while this term may still write; false from the renew deadline on, even before `signal` aborted. */
  holdsLease(): boolean;
}

/** The calls leader election makes; {@link RestClient} provides them. */
export interface LeaseClient {
  get<T>(path: string, options?: CallOptions): Promise<T>;
  create<T>(path: string, body: T, options?: CallOptions): Promise<T>;
  update<T>(path: string, body: T, options?: CallOptions): Promise<T>;
}

/** Options of {@link LeaderElector}. */
export interface LeaderElectorOptions {
  /** Client of the cluster holding the Lease. Required. */
  client: LeaseClient;
  /** Lease name. Required. */
  leaseName: string;
  /** Lease namespace. Required. */
  namespace: string;
  /** This process' identity, unique among candidates (e.g. the pod name). Required. */
  identity: string;
  /** How long a lease counts as held after its last observed renewal, in ms. Default 15 000. */
  leaseDurationMs?: number;
  /** The leader gives up if it cannot renew for this long, in ms (< leaseDurationMs). Default 10 000. */
  renewDeadlineMs?: number;
  /** Wait between acquire or renew attempts, in ms. Default 2000. */
  retryPeriodMs?: number;
  /**
   * Longest wait between acquire attempts while they fail, in ms: failed attempts back off
   * exponentially from `retryPeriodMs` up to this (jittered by up to 20%). Default 30 000.
   */
  maxRetryBackoffMs?: number;
  /** Called when this process becomes leader; `signal` aborts when leadership ends. May be async. Required. */
  onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called after leadership ended and `onStartedLeading`'s work has settled. Default none. */
  onStoppedLeading?: () => void;
  /** Called when the observed holder changes (including to this process). Default none. */
  onNewLeader?: (identity: string) => void;
  /**
   * Called when the classification of failures changes: a {@link LeaseProblem} appears, changes
   * kind (or namespace), or clears (`undefined`) after a successful request. Not called for
   * every failed retry, so a listener may log each call once. Default none.
   */
  onProblemChanged?: (problem: LeaseProblem | undefined) => void;
  /** Randomness in [0, 1) that spreads acquire attempts of candidates (up to +20% of the retry period). Default `Math.random`. */
  random?: () => number;
  /** Time source. Default the real clock. */
  clock?: Clock;
  /** Logger. Default silent. */
  logger?: Logger;
  /** Metrics sink. Default a private registry. */
  metrics?: KubeMetrics;
}

type Callbacks = 'onStoppedLeading' | 'onNewLeader' | 'onProblemChanged';
type Resolved = Readonly<Required<Omit<LeaderElectorOptions, Callbacks>>> & Readonly<Pick<LeaderElectorOptions, Callbacks>>;

function withDefaults(options: LeaderElectorOptions): Resolved {
  const resolved = {
    ...options,
    leaseDurationMs: options.leaseDurationMs ?? 15_000,
    renewDeadlineMs: options.renewDeadlineMs ?? 10_000,
    retryPeriodMs: options.retryPeriodMs ?? 2_000,
    maxRetryBackoffMs: options.maxRetryBackoffMs ?? 30_000,
    random: options.random ?? Math.random,
    clock: options.clock ?? realClock,
    logger: (options.logger ?? silentLogger()).child({ lease: `${options.namespace}/${options.leaseName}`, identity: options.identity }),
    metrics: options.metrics ?? new KubeMetrics(new Registry()),
  };
  if (resolved.renewDeadlineMs >= resolved.leaseDurationMs) {
    throw new RangeError('leader election: renewDeadlineMs must be smaller than leaseDurationMs');
  }
  if (resolved.retryPeriodMs >= resolved.renewDeadlineMs) {
    throw new RangeError('leader election: retryPeriodMs must be smaller than renewDeadlineMs');
  }
  if (resolved.maxRetryBackoffMs < resolved.retryPeriodMs) {
    throw new RangeError('leader election: maxRetryBackoffMs must not be smaller than retryPeriodMs');
  }
  return Object.freeze(resolved);
}

/** What one attempt to take or renew the Lease came to. */
type Attempt =
  /** `renewedAtMs`: the renewTime written (taken before the request was sent), by this process' clock. */
  | { kind: 'held'; renewedAtMs: number }
  | { kind: 'heldByOther' }
  | { kind: 'lostRace' }
  | { kind: 'failed'; problem: LeaseProblem };

/** Two problems count as the same (no new notification) when kind and namespace agree. */
function sameProblem(a: LeaseProblem | undefined, b: LeaseProblem | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.kind === 'namespaceMissing' && b.kind === 'namespaceMissing') return a.namespace === b.namespace;
  return a.kind === b.kind;
}

/** Kubernetes MicroTime: RFC 3339 in UTC with six fractional digits. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease, after client-go's LeaderElector. Writes
 * use optimistic concurrency (the Lease's resourceVersion), so of several candidates exactly
 * one wins each round. Expiry is judged from when this process last saw the Lease change, by
 * its own clock, never from the timestamps written by others (clocks may be skewed).
 *
 * {@link LeaderElector.run} loops: acquire (retrying every `retryPeriodMs`) → lead (calls
 * `onStartedLeading(signal)`, renews every `retryPeriodMs`) → on failing to renew for
 * `renewDeadlineMs`, aborts the leading signal, waits for that work to settle, calls
 * `onStoppedLeading` and goes back to acquiring. When `run`'s signal aborts it does the same,
 * then releases the Lease (empty holder) so another candidate can take over at once.
 *
 * Failed acquire attempts back off exponentially (up to `maxRetryBackoffMs`) and are classified
 * as a {@link LeaseProblem}: a Lease whose namespace does not exist can never be taken, which
 * {@link LeaderElector.status} and `onProblemChanged` report once instead of a warning per retry.
 */
export class LeaderElector {
  readonly #options: Resolved;
  readonly #path: string;
  #observed: Lease | undefined;
  #observedAtMs = 0;
  #observedHolder = '';
  #leading = false;
  /** Aborts the current term's work; undefined between terms. */
  #leadership: AbortController | undefined;
  /** When the current term must have stopped writing: last renewal's renewTime + renewDeadlineMs. */
  #fenceAtMs = 0;
  #running = false;
  #problem: LeaseProblem | undefined;

  constructor(options: LeaderElectorOptions) {
    this.#options = withDefaults(options);
    this.#path = objectPath(CoreResources.leases, options.namespace, options.leaseName);
    this.#options.metrics.initLeaderElection(options.leaseName);
  }

  /** True while this process holds the lease. */
  isLeader(): boolean {
    return this.#leading;
  }

  /**
   * True while this process leads and its renew deadline since the last successful renewal has
   * not passed, by the clock, now. Writers of leading work check it before each write: past the
   * deadline it answers false (and ends the term) even if the timer that ends the term at that
   * moment has not run yet.
   */
  holdsLease(): boolean {
    const leadership = this.#leadership;
    if (leadership === undefined || leadership.signal.aborted) return false;
    if (this.#options.clock.now() < this.#fenceAtMs) return true;
    this.#pastFence();
    return false;
  }

  /** The holder identity last observed on the Lease (`''` when none). */
  get observedLeader(): string {
    return this.#observedHolder;
  }

  /** Leadership, the observed holder and the current {@link LeaseProblem}, for health checks. */
  status(): LeaderElectionStatus {
    return { leading: this.#leading, holder: this.#observedHolder, problem: this.#problem };
  }

  /** Runs the election until `signal` aborts; resolves after leading work settled and the lease was released. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error('leader elector is already running');
    this.#running = true;
    try {
      while (!signal.aborted) {
        const acquiredAtMs = await this.#acquire(signal);
        if (acquiredAtMs === undefined) break;
        if (signal.aborted) {
          // Stopped while the winning attempt was being answered: never lead, hand the Lease back.
          await this.#release();
          break;
        }
        await this.#lead(signal, acquiredAtMs);
      }
    } finally {
      this.#running = false;
    }
  }

  /** Tries until it holds the Lease (answers the renewTime it wrote) or `signal` aborts (undefined). */
  async #acquire(signal: AbortSignal): Promise<number | undefined> {
    const { clock, retryPeriodMs, maxRetryBackoffMs, logger, random } = this.#options;
    logger.debug('Trying to acquire the lease');
    const backoff = new Backoff({ initialMs: retryPeriodMs, maxMs: maxRetryBackoffMs, jitter: 0.2, random });
    while (!signal.aborted) {
      const attempt = await this.#tryAcquireOrRenew(signal);
      if (attempt.kind === 'held') return attempt.renewedAtMs;
      if (attempt.kind !== 'failed') backoff.reset();
      const delayMs = attempt.kind === 'failed' ? backoff.next() : retryPeriodMs * (1 + 0.2 * random());
      await sleep(clock, delayMs, signal);
    }
    return undefined;
  }

  /**
   * One term. The fence: leading work must have stopped writing by `renewDeadlineMs` after the
   * renewTime of the last successful renewal (taken before that request was sent), which is
   * before any other candidate can see the Lease expire (`leaseDurationMs` after it observed that
   * renewal). A timer aborts the term's signal at the fence, aborting a renewal still in flight
   * with it; {@link LeaderElector.holdsLease} answers false from the fence on even before that
   * timer ran (a busy event loop), so writers that check it never write late.
   */
  async #lead(signal: AbortSignal, acquiredAtMs: number): Promise<void> {
    const { clock, retryPeriodMs, renewDeadlineMs, logger, metrics, leaseName } = this.#options;
    const leadership = new AbortController();
    const stopLeading = (): void => leadership.abort();
    signal.addEventListener('abort', stopLeading, { once: true });
    this.#leadership = leadership;
    this.#leading = true;
    metrics.setLeader(leaseName, true);
    logger.info('Became leader');
    let fence: TimerHandle | undefined;
    const fenceAt = (renewedAtMs: number): void => {
      this.#fenceAtMs = renewedAtMs + renewDeadlineMs;
      if (fence !== undefined) clock.clearTimer(fence);
      fence = clock.setTimer(() => this.#pastFence(), this.#fenceAtMs - clock.now());
    };
    fenceAt(acquiredAtMs);
    const work = this.#startWork(leadership.signal);
    while (!leadership.signal.aborted) {
      await sleep(clock, retryPeriodMs, leadership.signal);
      if (leadership.signal.aborted) break;
      const attempt = await this.#tryAcquireOrRenew(leadership.signal);
      if (attempt.kind === 'held' && this.holdsLease()) fenceAt(attempt.renewedAtMs);
      else if (attempt.kind === 'heldByOther') {
        logger.warn({ holder: this.#observedHolder }, 'Another candidate holds the lease; stopping leading');
        break;
      }
    }
    if (fence !== undefined) clock.clearTimer(fence);
    leadership.abort();
    signal.removeEventListener('abort', stopLeading);
    await work;
    this.#leading = false;
    this.#leadership = undefined;
    metrics.setLeader(leaseName, false);
    if (signal.aborted) await this.#release();
    logger.info('Stopped leading');
    this.#notify(() => this.#options.onStoppedLeading?.());
  }

  /** Ends the term at its fence (by the timer, or by the first {@link LeaderElector.holdsLease} that sees it passed). */
  #pastFence(): void {
    const leadership = this.#leadership;
    if (leadership === undefined || leadership.signal.aborted) return;
    const { renewDeadlineMs, logger } = this.#options;
    logger.warn({ renewDeadlineMs }, 'Could not renew the lease before the deadline; stopping leading');
    leadership.abort(new LeadershipEndedError(`this replica stopped leading: the Lease was not renewed within the renew deadline (${renewDeadlineMs} ms); the replica that takes it syncs instead`));
  }

  async #startWork(signal: AbortSignal): Promise<void> {
    try {
      await this.#options.onStartedLeading(signal);
    } catch (err) {
      this.#options.logger.error({ err }, 'Leading work failed');
    }
  }

  /** One round: create the Lease, renew it, or take it over when expired. */
  async #tryAcquireOrRenew(signal: AbortSignal): Promise<Attempt> {
    const attempt = await this.#attempt(signal);
    if (attempt.kind === 'failed') {
      if (!signal.aborted) this.#setProblem(attempt.problem);
    } else {
      this.#setProblem(undefined);
    }
    return attempt;
  }

  async #attempt(signal: AbortSignal): Promise<Attempt> {
    const { client, clock, identity, renewDeadlineMs, logger } = this.#options;
    const leaseDurationMs = this.#options.leaseDurationMs;
    const attempt = new AbortController();
    const timer = clock.setTimer(() => attempt.abort(new Error('lease request timed out')), renewDeadlineMs);
    const stop = (): void => attempt.abort(signal.reason);
    if (signal.aborted) attempt.abort(signal.reason);
    else signal.addEventListener('abort', stop, { once: true });
    const options: CallOptions = { signal: attempt.signal };
    const now = clock.now();
    try {
      let current: Lease;
      try {
        current = await client.get<Lease>(this.#path, options);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        const created = await client.create<Lease>(collectionPath(CoreResources.leases, this.#options.namespace), this.#leaseBody(undefined, now), options);
        this.#observe(created, clock.now());
        return { kind: 'held', renewedAtMs: now };
      }
      this.#observe(current, now);
      const holder = current.spec?.holderIdentity ?? '';
      // The holder's own view of the duration wins over ours, as in client-go.
      const durationMs = (current.spec?.leaseDurationSeconds ?? leaseDurationMs / 1000) * 1000;
      if (holder !== '' && holder !== identity && this.#observedAtMs + durationMs > now) return { kind: 'heldByOther' };
      const updated = await client.update<Lease>(this.#path, this.#leaseBody(current, now), options);
      this.#observe(updated, clock.now());
      return { kind: 'held', renewedAtMs: now };
    } catch (err) {
      if (isConflict(err) || isAlreadyExists(err)) {
        logger.debug('Lost a race for the lease');
        return { kind: 'lostRace' };
      }
      if (isNamespaceNotFound(err)) {
        // Reported once through onProblemChanged and status(); a warning per retry would bury it.
        logger.debug({ err }, 'The namespace of the lease does not exist');
        return { kind: 'failed', problem: { kind: 'namespaceMissing', namespace: this.#options.namespace } };
      }
      if (!signal.aborted) logger.warn({ err }, 'Lease request failed');
      return { kind: 'failed', problem: { kind: 'requestFailed', message: err instanceof Error ? err.message : String(err) } };
    } finally {
      clock.clearTimer(timer);
      signal.removeEventListener('abort', stop);
    }
  }

  #leaseBody(current: Lease | undefined, now: number): Lease {
    const { identity, leaseName, namespace, leaseDurationMs } = this.#options;
    const spec = current?.spec ?? {};
    const holding = spec.holderIdentity === identity;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { ...(current?.metadata ?? {}), name: leaseName, namespace },
      spec: {
        holderIdentity: identity,
        leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
        acquireTime: holding && spec.acquireTime !== undefined ? spec.acquireTime : microTime(now),
        renewTime: microTime(now),
        leaseTransitions: current === undefined ? 0 : holding ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
      },
    };
  }

  /** Records `lease` as observed at `nowMs` when it differs from what was last seen. */
  #observe(lease: Lease, nowMs: number): void {
    const before = this.#observed;
    const changed =
      before === undefined ||
      before.metadata?.resourceVersion !== lease.metadata?.resourceVersion ||
      before.spec?.holderIdentity !== lease.spec?.holderIdentity ||
      before.spec?.renewTime !== lease.spec?.renewTime;
    if (!changed) return;
    this.#observed = lease;
    this.#observedAtMs = nowMs;
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder !== this.#observedHolder) {
      this.#observedHolder = holder;
      if (holder !== '') this.#notify(() => this.#options.onNewLeader?.(holder));
    }
  }

  /** Gives the lease up (empty holder, 1 s duration) if this process still holds it. Best effort. */
  async #release(): Promise<void> {
    const { client, clock, identity, renewDeadlineMs, logger } = this.#options;
    const observed = this.#observed;
    if (observed?.spec?.holderIdentity !== identity) return;
    const now = clock.now();
    const released: Lease = {
      ...observed,
      spec: { ...observed.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(now), acquireTime: microTime(now) },
    };
    const attempt = new AbortController();
    const timer = clock.setTimer(() => attempt.abort(new Error('lease release timed out')), renewDeadlineMs);
    try {
      const updated = await client.update<Lease>(this.#path, released, { signal: attempt.signal });
      this.#observe(updated, clock.now());
      logger.info('Released the lease');
    } catch (err) {
      // Releasing only speeds up the hand-over; if it fails the lease simply expires.
      logger.warn({ err }, 'Could not release the lease; it will expire instead');
    } finally {
      clock.clearTimer(timer);
    }
  }

  #setProblem(problem: LeaseProblem | undefined): void {
    const changed = !sameProblem(this.#problem, problem);
    this.#problem = problem;
    if (changed) this.#notify(() => this.#options.onProblemChanged?.(problem));
  }

  #notify(callback: () => void): void {
    try {
      callback();
    } catch (err) {
      this.#options.logger.error({ err }, 'Leader election callback threw');
    }
  }
}
