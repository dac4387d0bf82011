import type { LeaderTerm } from '../kube/leader-elector.js';
import type { CheckResult } from '../observe/health.js';
import { fencedClient, type SyncClient } from './fenced-client.js';
import type { ReferenceImporter } from './reference-importer.js';
import type { SyncerMetrics } from './metrics.js';
import type { SyncState } from './sync-state.js';
import { SYNC_RESYNC_PERIOD_MS, type InformerSource, type ResourceSyncer, type SyncableResource, type SyncerContext } from './syncable-resource.js';

/** Informers for one leadership term: handed out to the syncers, run by {@link ResourceSync}. */
export interface TermInformers extends InformerSource {
  run(signal: AbortSignal): Promise<void>;
  hasSynced(): boolean;
  /** Names of the informers whose last list or watch failed. */
  disconnected(): string[];
}

/** Options of {@link ResourceSync}. */
export interface ResourceSyncOptions {
  /** The resources to sync (those enabled at start). */
  resources: readonly SyncableResource[];
  /** Their states by resource name, from the config at start. */
  states: ReadonlyMap<string, SyncState>;
  /**
   * New shared informers for one term (the manager's SharedInformerFactory), built with this
   * resync period in ms. A queue cannot restart, so each term gets new informers and syncers.
   */
  newInformers: (defaults: { resyncPeriodMs: number }) => TermInformers;
  /** Everything a syncer is built with except its state, informers, metrics and importer. */
  context: Omit<SyncerContext, 'state' | 'informers' | 'controllerMetrics' | 'importer'>;
  /** The importer of `reference` patches, on the clients of one term (they refuse writes once it ended). Default none. */
  newImporter?: (clients: { virtualClient: SyncClient; hostClient: SyncClient }) => ReferenceImporter;
  metrics: SyncerMetrics;
}

/**
 * The leader-gated runnable that syncs every registered resource: each run (a leadership term)
 * builds every resource's syncer on one set of shared informers and runs them all until the
 * signal fires. Reloaded states reach the running syncers and the next term.
 */
export class ResourceSync {
  /** Its name among the manager's runnables. */
  readonly name = 'syncer';
  /** Only the leader syncs. */
  readonly needsLeader = true;
  readonly #options: ResourceSyncOptions;
  readonly #metrics: ReadonlyMap<string, ReturnType<SyncerMetrics['controller']>>;
  #states: ReadonlyMap<string, SyncState>;
  #term: { informers: TermInformers; syncers: Map<string, ResourceSyncer> } | undefined;

  constructor(options: ResourceSyncOptions) {
    this.#options = options;
    this.#states = options.states;
    // Series exist (at zero) from the start, on standby replicas too.
    this.#metrics = new Map(options.resources.map((r) => [r.name, options.metrics.controller(r.name)]));
  }

  /**
   * Builds and runs every resource's syncer and their informers until `signal` fires, then drains.
   * Every write of the term goes through clients fenced by `term` (default: `signal` alone): none
   * is made once the term ended, and those in flight are aborted.
   */
  async run(signal: AbortSignal, term: LeaderTerm = { signal, holdsLease: () => !signal.aborted }): Promise<void> {
    const informers = this.#options.newInformers({ resyncPeriodMs: SYNC_RESYNC_PERIOD_MS });
    const { context, newImporter } = this.#options;
    const clients = { virtualClient: fencedClient(context.virtualClient, term), hostClient: fencedClient(context.hostClient, term) };
    const importer = newImporter?.(clients);
    const syncers = new Map<string, ResourceSyncer>();
    for (const resource of this.#options.resources) {
      syncers.set(
        resource.name,
        resource.build({
          ...context,
          ...clients,
          ...(importer !== undefined ? { importer } : {}),
          state: this.#state(resource.name),
          informers,
          controllerMetrics: this.#metrics.get(resource.name) ?? this.#options.metrics.controller(resource.name),
        }),
      );
    }
    this.#term = { informers, syncers };
    try {
      await Promise.all([informers.run(signal), ...[...syncers.values()].map((s) => s.run(signal))]);
    } finally {
      this.#term = undefined;
    }
  }

  /** Swaps in the states of a reloaded configuration, for the running syncers and the next term. */
  updateStates(states: ReadonlyMap<string, SyncState>): void {
    this.#states = states;
    for (const [name, syncer] of this.#term?.syncers ?? []) syncer.updateState(this.#state(name));
  }

  /** The `informers` sync check: caches synced and every watch connected; passing while not syncing (standby). */
  informersCheck(): CheckResult {
    const term = this.#term;
    if (term === undefined) return { ready: true }; // a standby replica has nothing to be ready for
    if (!term.informers.hasSynced()) return { ready: false, reason: 'caches of the virtual and host clusters not synced yet' };
    const disconnected = term.informers.disconnected();
    if (disconnected.length > 0) return { ready: false, reason: `lost the API server of informer(s) ${disconnected.join(', ')}; retrying with backoff` };
    return { ready: true };
  }

  #state(name: string): SyncState {
    const state = this.#states.get(name);
    if (state === undefined) throw new Error(`no sync state for resource ${name}`);
    return state;
  }
}
