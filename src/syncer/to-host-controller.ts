import { isConflict } from '../apimachinery/index.js';
import { realClock, sleep, type Clock } from '../kube/clock.js';
import type { Informer, InformerHandler } from '../kube/informer.js';
import type { KubeObject } from '../kube/kube-object.js';
import { objectKey } from '../kube/object-key.js';
import type { RateLimitingQueue } from '../kube/rate-limiting-queue.js';
import { PatchEvaluationError } from '../patches/index.js';
import { silentLogger, type Logger } from '../observe/logger.js';
import type { ControllerMetrics } from './metrics.js';
import { outcomeLabel, TerminalError, type Contention, type ReconcileOutcome } from './reconcile-outcome.js';
import type { SecondarySource } from './to-host-resource.js';
import { SyncFailureLog } from './sync-failure-log.js';
import { WriteSummary } from './write-summary.js';

export type { ClusterWriter } from './to-host-reconciler.js';

/** Where sync failures are reported to the tenant: Warning events on the virtual object. */
export interface EventSink {
  warning(object: KubeObject, reason: string, message: string): void;
}

/** The part of an informer a secondary source needs: handlers and cache sync. */
export interface SecondaryInformer {
  addHandler(handler: InformerHandler<KubeObject>): () => void;
  waitForCacheSync(signal: AbortSignal): Promise<boolean>;
}

/**
 * What the controller asks of a reconciler ({@link ToHostReconciler} is one): converge a key, and
 * the two judgements its host event handler needs.
 */
export interface Reconciler {
  /** Converges `key` once; throws to retry with backoff, a {@link TerminalError} to stop retrying. */
  reconcile(key: string): Promise<ReconcileOutcome>;
  /** The virtual key a host object belongs to; `undefined` for none (the event is dropped). */
  keyOfHost(host: KubeObject): string | undefined;
  /** Whether a host event of `key` only reports the reconciler's own last converge (not queued). */
  isEcho(key: string, host: KubeObject): boolean;
}

/** Which objects the controller reconciles, for logs, metrics and the events it records on them. */
export interface ControlledKind {
  /** Fixed word for logs and metrics, e.g. `endpoints`. */
  readonly name: string;
  /** The config switch `sync.toHost.<configKey>.enabled` the CompetingWriter event names. Default `name`. */
  readonly configKey?: string;
  /** `apiVersion` of the virtual objects events are recorded on, e.g. `v1`. */
  readonly apiVersion: string;
  /** `kind` of the virtual objects, e.g. `Endpoints`. */
  readonly kind: string;
}

/** Options of {@link ToHostController}. */
export interface ToHostControllerOptions<V extends KubeObject> {
  kind: ControlledKind;
  reconciler: Reconciler;
  /** Informer on the resource in the virtual cluster (all namespaces). */
  virtualInformer: Informer<V>;
  /** Informer on the resource in the host cluster, restricted to objects managed by this vcluster. */
  hostInformer: Informer<V>;
  /** Other virtual informers whose changes wake keys of this resource (e.g. Services). */
  secondary?: readonly { informer: SecondaryInformer; source: SecondarySource }[];
  queue: RateLimitingQueue;
  /** Concurrent reconciles. Default 10 (vcluster's default). */
  workers?: number;
  events: EventSink;
  metrics: ControllerMetrics;
  clock?: Clock;
  logger?: Logger;
}

/** Initial syncs of at least this many keys report their progress. */
const LARGE_INITIAL_SYNC = 1000;
/** How often a large initial sync reports progress, in ms. */
const PROGRESS_INTERVAL_MS = 10_000;

/**
 * The generic to-host controller, as controller-runtime's Controller: informer handlers turn
 * virtual, host and secondary events into virtual keys, a rate-limited queue hands each key to
 * one worker at a time, and the worker calls the {@link Reconciler}. Every outcome maps to one
 * queue action and one metric in {@link ToHostController.#finish}; contention and failures are
 * logged and recorded as Warning events (`CompetingWriter`, `SyncError`) on the virtual object.
 * It knows no resource: what to converge and how is the reconciler's.
 *
 * The watch echo of the reconciler's own write is not queued (the reconciler judges it, see
 * {@link Reconciler.isEcho}); a host event that arrives while its key is being reconciled, most
 * likely the echo of the write in flight, is judged once that reconcile ends.
 */
export class ToHostController<V extends KubeObject> {
  readonly #options: ToHostControllerOptions<V>;
  readonly #kind: ControlledKind;
  readonly #reconciler: Reconciler;
  readonly #queue: RateLimitingQueue;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #workers: number;
  readonly #summary: WriteSummary;
  readonly #failures: SyncFailureLog;
  /** Keys a worker is reconciling now. */
  readonly #busy = new Set<string>();
  /** Busy keys whose host object had an event meanwhile → that host object's key: decided once the reconcile ends. */
  readonly #hostEventsWhileBusy = new Map<string, string>();
  /** True from the start of the workers until the first moment nothing is queued or in flight. */
  #initialPass = false;
  /** Keys queued when the caches synced, and when (clock ms): what the end of the initial pass reports. */
  #initialTotal = 0;
  #initialStarted = 0;

  constructor(options: ToHostControllerOptions<V>) {
    this.#options = options;
    this.#kind = options.kind;
    this.#reconciler = options.reconciler;
    this.#queue = options.queue;
    this.#workers = options.workers ?? 10;
    this.#clock = options.clock ?? realClock;
    this.#logger = (options.logger ?? silentLogger()).child({ controller: options.kind.name });
    this.#summary = new WriteSummary({ logger: this.#logger, clock: this.#clock });
    this.#failures = new SyncFailureLog(this.#logger);
    options.metrics.observeManaged(() => options.hostInformer.list().length);
  }

  /** Queues every virtual key and every host copy's key: after a state change, each is converged again. */
  enqueueAll(): void {
    for (const object of this.#options.virtualInformer.list()) this.#queue.add(objectKey(object));
    for (const object of this.#options.hostInformer.list()) {
      const key = this.#reconciler.keyOfHost(object);
      if (key !== undefined) this.#queue.add(key);
    }
  }

  /**
   * Registers the handlers, waits for every cache to sync, then reconciles with `workers`
   * concurrent workers until `signal` fires; resolves after in-flight reconciles finish. The
   * informers themselves are run by the caller. Returns early (without working) if the caches
   * never sync before the signal.
   */
  async run(signal: AbortSignal): Promise<void> {
    const unregister = this.#registerHandlers();
    try {
      const informers = [this.#options.virtualInformer, this.#options.hostInformer, ...(this.#options.secondary ?? []).map((s) => s.informer)];
      for (const informer of informers) {
        if (!(await informer.waitForCacheSync(signal))) return;
      }
      const initial = this.#queue.len();
      this.#logger.info({ queued: initial, virtual: this.#options.virtualInformer.list().length }, 'caches synced, starting workers');
      this.#initialPass = true;
      this.#initialTotal = initial;
      this.#initialStarted = this.#clock.now();
      this.#endOfInitialPass();
      const workers = Array.from({ length: this.#workers }, () => this.#work(signal));
      workers.push(this.#reportInitialProgress(signal), this.#summary.run(signal));
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await this.#queue.shutDownWithDrain();
      await Promise.all(workers);
      this.#summary.flush();
    } finally {
      unregister();
      this.#queue.shutDown();
    }
  }

  /**
   * Logs the progress of a large initial pass (a restart with many objects, or a first start)
   * every {@link PROGRESS_INTERVAL_MS} until it ends; its end is logged by {@link #endOfInitialPass}.
   */
  async #reportInitialProgress(signal: AbortSignal): Promise<void> {
    if (this.#initialTotal < LARGE_INITIAL_SYNC) return;
    while (this.#initialPass) {
      if (!(await sleep(this.#clock, PROGRESS_INTERVAL_MS, signal))) return;
      if (this.#initialPass) this.#logger.info({ remaining: this.#queue.len(), total: this.#initialTotal }, 'initial sync in progress');
    }
  }

  /**
   * Records the end of the initial pass the first time nothing is queued and no reconcile runs:
   * the metric `vcsync_initial_sync_done_timestamp_seconds`, and for a large pass the log line,
   * both at that moment.
   */
  #endOfInitialPass(): void {
    if (!this.#initialPass || this.#queue.len() > 0 || this.#busy.size > 0) return;
    this.#initialPass = false;
    this.#options.metrics.initialSyncDone();
    if (this.#initialTotal >= LARGE_INITIAL_SYNC) {
      this.#logger.info({ total: this.#initialTotal, seconds: (this.#clock.now() - this.#initialStarted) / 1000 }, 'initial sync done');
    }
  }

  #registerHandlers(): () => void {
    const enqueueHost = (object: KubeObject, deleted: boolean): void => {
      const key = this.#reconciler.keyOfHost(object);
      if (key === undefined) return;
      if (!deleted && this.#busy.has(key)) {
        // Most likely the echo of the write in flight, which has not answered yet: decide after it.
        this.#hostEventsWhileBusy.set(key, objectKey(object));
        return;
      }
      if (!deleted && this.#reconciler.isEcho(key, object)) return;
      this.#queue.add(key);
    };
    const removers = [
      // The informer's key is the string its cache holds: the queue and the converge memory share it.
      this.#options.virtualInformer.addHandler({
        onAdd: (_object, _initial, key) => this.#queue.add(key),
        onUpdate: (_old, _current, key) => this.#queue.add(key),
        onDelete: (_object, key) => this.#queue.add(key),
      }),
      this.#options.hostInformer.addHandler({
        onAdd: (object) => enqueueHost(object, false),
        onUpdate: (_old, current) => enqueueHost(current, false),
        onDelete: (object) => enqueueHost(object, true),
      }),
      ...(this.#options.secondary ?? []).map(({ informer, source }) => {
        const wake = (object: KubeObject): void => {
          for (const key of source.keysFor(object)) this.#queue.add(key);
        };
        return informer.addHandler({ onAdd: wake, onUpdate: (_old, current) => wake(current), onDelete: wake });
      }),
    ];
    return () => {
      for (const remove of removers) remove();
    };
  }

  /** Queues `key` again if its host object had an event while it was reconciled that is not the echo of that reconcile's write. */
  #afterHostEventsWhileBusy(key: string): void {
    const hostKey = this.#hostEventsWhileBusy.get(key);
    if (hostKey === undefined) return;
    this.#hostEventsWhileBusy.delete(key);
    const host = this.#options.hostInformer.get(hostKey);
    if (host === undefined || !this.#reconciler.isEcho(key, host)) this.#queue.add(key);
  }

  /**
   * One worker: reconciles keys until the queue shuts down. Once `signal` fired (the leadership
   * term ended) it takes no further key, queued or retried: the writes they would make belong to
   * the next leader, and a write that the end of the term aborted is not a sync error.
   */
  async #work(signal: AbortSignal): Promise<void> {
    for (;;) {
      const key = await this.#queue.get();
      if (key === undefined) return;
      if (signal.aborted) {
        this.#queue.done(key);
        continue;
      }
      const started = this.#clock.now();
      this.#busy.add(key);
      try {
        const outcome = await this.#reconciler.reconcile(key);
        this.#finish(key, outcome, started);
      } catch (error) {
        if (signal.aborted) this.#logger.debug({ key, err: error }, 'reconcile ended with the leadership term');
        else this.#fail(key, error, started);
      } finally {
        this.#busy.delete(key);
        this.#afterHostEventsWhileBusy(key);
        this.#queue.done(key);
        this.#endOfInitialPass();
      }
    }
  }

  /** The one place an outcome becomes a queue action and a metric. */
  #finish(key: string, outcome: ReconcileOutcome, started: number): void {
    const seconds = (this.#clock.now() - started) / 1000;
    this.#options.metrics.reconciled(outcomeLabel(outcome), seconds, outcome.kind === 'skipped' ? outcome.cause : undefined);
    this.#summary.count(outcome);
    if ((outcome.kind === 'synced' || outcome.kind === 'deferred') && outcome.contention !== undefined) this.#reportContention(key, outcome.contention);
    if (outcome.kind === 'requeue' || outcome.kind === 'deferred') {
      this.#queue.addAfter(key, outcome.afterMs);
      return;
    }
    this.#queue.forget(key);
    this.#failures.forget(key);
    if (outcome.kind === 'skipped') this.#logger.debug({ key, reason: outcome.reason }, 'skipped');
    if (outcome.kind === 'deleted') this.#logger.debug({ key, reason: outcome.reason }, 'host object removed');
  }

  /** Counts competing writes; once per key per window, says so in the log and on the virtual object. */
  #reportContention(key: string, contention: Contention): void {
    this.#options.metrics.competingWrites(contention.competingWrites);
    if (!contention.report) return;
    const managers = contention.otherManagers.length > 0 ? contention.otherManagers.join(', ') : 'not reported by the server';
    this.#logger.warn(
      { key, host: contention.host, otherManagers: contention.otherManagers },
      'another writer keeps changing the host object; repairing it with backoff instead of fighting',
    );
    const virtual = this.#options.virtualInformer.get(key);
    if (virtual === undefined) return;
    this.#options.events.warning(
      { ...virtual, apiVersion: this.#kind.apiVersion, kind: this.#kind.kind },
      'CompetingWriter',
      `another writer (field managers: ${managers}) keeps changing host ${this.#kind.kind} ${contention.host}; ` +
        'vcsync repairs it with growing delays instead of fighting. If it is the virtual cluster\'s own syncer, ' +
        `turn off sync.toHost.${this.#kind.configKey ?? this.#kind.name}.enabled in the virtual cluster's configuration (vcsync syncs ${this.#kind.configKey ?? this.#kind.name} instead)`,
    );
  }

  #fail(key: string, error: unknown, started: number): void {
    const seconds = (this.#clock.now() - started) / 1000;
    const terminal = error instanceof TerminalError;
    this.#options.metrics.reconciled(terminal ? 'terminal_error' : 'error', seconds);
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof PatchEvaluationError) this.#options.metrics.patchFailed();
    if (isConflict(error)) {
      // Someone wrote between our cache read and our write: normal under concurrency.
      this.#logger.debug({ key, err: error }, 'conflict, retrying');
      this.#queue.addRateLimited(key);
      return;
    }
    const virtual = this.#options.virtualInformer.get(key);
    if (virtual !== undefined) {
      this.#options.events.warning({ ...virtual, apiVersion: this.#kind.apiVersion, kind: this.#kind.kind }, 'SyncError', message);
    }
    this.#failures.failed(key, virtual?.metadata?.resourceVersion, error, { terminal, retries: this.#queue.numRequeues(key) });
    if (terminal) {
      this.#queue.forget(key);
      return;
    }
    this.#queue.addRateLimited(key);
  }
}
