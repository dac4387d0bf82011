import { Counter, Gauge, type Registry } from 'prom-client';
import { CountingHistogram } from '../observe/counting-histogram.js';
import { PendingCounts } from '../observe/pending-counts.js';
import { SKIP_CAUSES, type OutcomeLabel, type SkipCause } from './reconcile-outcome.js';

const OUTCOMES: readonly OutcomeLabel[] = [
  'created', 'updated', 'recreated', 'virtual_updated', 'unchanged', 'skipped', 'deleted', 'requeued', 'deferred', 'error', 'terminal_error',
];

/** The metrics of one syncer controller, labelled by the controller's fixed name. */
export interface ControllerMetrics {
  /** Counts one reconcile by result (and a skip by its cause) and observes its duration. */
  reconciled(result: OutcomeLabel, seconds: number, skipCause?: SkipCause): void;
  /**
   * Reports the number of host objects this controller manages through `count`, read at scrape
   * time (counting on every event would cost O(n) per event, O(n²) over an initial sync).
   */
  observeManaged(count: () => number): void;
  /** Counts a failed patch evaluation (the object is retried with backoff). */
  patchFailed(): void;
  /** Counts `count` changes by another writer to host objects found contended. */
  competingWrites(count: number): void;
  /** Records that the first pass over the keys queued at start ended (every one reconciled once), now. */
  initialSyncDone(): void;
}

/**
 * All syncer metrics, registered once per process on the injected registry. Every series exists
 * (at zero) as soon as a controller is registered, so dashboards and alerts see them from start.
 */
export class SyncerMetrics {
  readonly #operations: Counter<'controller' | 'result'>;
  readonly #skips: Counter<'controller' | 'cause'>;
  readonly #duration: CountingHistogram<'controller'>;
  /** Reconciles by result, counted per call in plain numbers and added to the counter when scraped. */
  readonly #pendingOperations = new PendingCounts<'controller' | 'result'>();
  readonly #managed: Gauge<'controller'>;
  readonly #patchErrors: Counter<'controller'>;
  readonly #competingWrites: Counter<'controller'>;
  readonly #initialSyncDone: Gauge<'controller'>;
  readonly #managedSources = new Map<string, () => number>();

  constructor(registry: Registry) {
    const registers = [registry];
    const pendingOperations = this.#pendingOperations;
    this.#operations = new Counter({
      name: 'vcsync_sync_operations_total',
      help: 'Reconciles of a virtual object, by controller and result.',
      labelNames: ['controller', 'result'],
      registers,
      collect(): void {
        pendingOperations.flush(this);
      },
    });
    this.#skips = new Counter({
      name: 'vcsync_sync_skips_total',
      help: 'Reconciles that skipped their key, by controller and cause (disabled, never_synced, not_placed, no_virtual_object, excluded, controlled_elsewhere).',
      labelNames: ['controller', 'cause'],
      registers,
    });
    this.#duration = new CountingHistogram({
      name: 'vcsync_reconcile_duration_seconds',
      help: 'Time to reconcile one key, including API writes.',
      labelNames: ['controller'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const managedSources = this.#managedSources;
    this.#managed = new Gauge({
      name: 'vcsync_managed_objects',
      help: 'Host objects written by this syncer that exist now, by controller.',
      labelNames: ['controller'],
      registers,
      collect() {
        for (const [controller, count] of managedSources) this.labels(controller).set(count());
      },
    });
    this.#patchErrors = new Counter({
      name: 'vcsync_patch_errors_total',
      help: 'Patch evaluations that failed (expression error, timeout, memory limit), by controller.',
      labelNames: ['controller'],
      registers,
    });
    this.#competingWrites = new Counter({
      name: 'vcsync_competing_writes_total',
      help: 'Changes by another writer to host objects this syncer manages, counted once the object is contended (another writer changed it repeatedly within a minute); their repairs back off.',
      labelNames: ['controller'],
      registers,
    });
    this.#initialSyncDone = new Gauge({
      name: 'vcsync_initial_sync_done_timestamp_seconds',
      help: 'Unix time at which the first pass over the keys queued when the caches synced ended: every virtual and host object of the start reconciled once, nothing queued or in flight. 0 until then.',
      labelNames: ['controller'],
      registers,
    });
  }

  /** The metrics of controller `name` (a fixed word such as `endpoints`). */
  controller(name: string): ControllerMetrics {
    for (const result of OUTCOMES) this.#operations.labels(name, result).inc(0);
    // One reconcile per synced object: its result count and duration skip prom-client's per-call label lookups.
    const operations = new Map(OUTCOMES.map((result) => [result, this.#pendingOperations.entry({ controller: name, result })]));
    const duration = this.#duration.series({ controller: name });
    for (const cause of SKIP_CAUSES) this.#skips.labels(name, cause).inc(0);
    this.#managed.labels(name).set(0);
    this.#patchErrors.labels(name).inc(0);
    this.#competingWrites.labels(name).inc(0);
    this.#initialSyncDone.labels(name).set(0);
    return {
      reconciled: (result, seconds, skipCause) => {
        const count = operations.get(result);
        if (count !== undefined) count.pending += 1;
        else this.#operations.labels(name, result).inc();
        if (skipCause !== undefined) this.#skips.labels(name, skipCause).inc();
        duration.observe(seconds);
      },
      observeManaged: (count) => this.#managedSources.set(name, count),
      patchFailed: () => this.#patchErrors.labels(name).inc(),
      competingWrites: (count) => {
        if (count > 0) this.#competingWrites.labels(name).inc(count);
      },
      initialSyncDone: () => this.#initialSyncDone.labels(name).set(Date.now() / 1000),
    };
  }
}
