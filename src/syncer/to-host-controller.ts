import { isDeepStrictEqual } from 'node:util';
import { isAlreadyExists, isConflict, isNotFound } from '../kube/api-error.js';
import { collectionPath, objectPath } from '../kube/api-path.js';
import { realClock, sleep, type Clock } from '../kube/clock.js';
import type { Informer, InformerHandler } from '../kube/informer.js';
import type { KubeObject, ObjectMeta } from '../kube/kube-object.js';
import { objectKey, splitObjectKey } from '../kube/object-key.js';
import type { RateLimitingQueue } from '../kube/rate-limiting-queue.js';
import type { CallOptions } from '../kube/rest-client.js';
import { ANNOTATION_OBJECT_UID } from '../translate/keys.js';
import { PatchEvaluationError, type ReferenceImport } from '../patches/index.js';
import { controlledElsewhere } from '../translate/controlled-by.js';
import { virtualLabelsAndAnnotations } from '../translate/object-metadata.js';
import type { Translator } from '../translate/translator.js';
import { silentLogger, type Logger } from '../observe/logger.js';
import { CompetingWriterDetector, otherManagers, type CompetingWriterDetectorOptions } from './competing-writers.js';
import { desiredHostObject } from './desired-host.js';
import { syncPlan } from './sync-plan.js';
import { cachedBodyDigest, hostMatchesDesired, withHostChanges } from './host-changes.js';
import type { PatchedObject } from './object-patcher.js';
import type { SyncState } from './sync-state.js';
import type { ReferenceImporter } from './reference-importer.js';
import type { ControllerMetrics } from './metrics.js';
import { outcomeLabel, TerminalError, type Contention, type ReconcileOutcome } from './reconcile-outcome.js';
import type { SecondarySource, ToHostResource } from './to-host-resource.js';
import { WriteSummary } from './write-summary.js';

/** The calls the controller makes: writes, and a read to identify a conflicting host object; {@link RestClient} satisfies it. */
export interface ObjectWriter {
  get<T>(path: string, options?: CallOptions): Promise<T>;
  create<T>(path: string, body: T, options?: CallOptions): Promise<T>;
  update<T>(path: string, body: T, options?: CallOptions): Promise<T>;
  delete<T>(path: string, options?: CallOptions & { body?: object }): Promise<T>;
}

/** Where sync failures are reported to the tenant: Warning events on the virtual object. */
export interface EventSink {
  warning(object: KubeObject, reason: string, message: string): void;
}

/** The part of an informer a secondary source needs: handlers and cache sync. */
export interface SecondaryInformer {
  addHandler(handler: InformerHandler<KubeObject>): () => void;
  waitForCacheSync(signal: AbortSignal): Promise<boolean>;
}

/** Options of {@link ToHostController}. */
export interface ToHostControllerOptions<V extends KubeObject> {
  resource: ToHostResource<V>;
  /** Informer on the resource in the virtual cluster (all namespaces). */
  virtualInformer: Informer<V>;
  /** Informer on the resource in the host cluster, restricted to objects managed by this vcluster. */
  hostInformer: Informer<V>;
  /** Other virtual informers whose changes wake keys of this resource (e.g. Services). */
  secondary?: readonly { informer: SecondaryInformer; source: SecondarySource }[];
  /** Writes to the virtual cluster (reverse sync of labels, annotations and reverse patches). */
  virtualClient: ObjectWriter;
  /** Writes to the host cluster; should carry the host QPS/burst limit. */
  hostClient: ObjectWriter;
  queue: RateLimitingQueue;
  /** The initial configuration-derived state. */
  state: SyncState;
  /** Concurrent reconciles. Default 10 (vcluster's default). */
  workers?: number;
  /** Imports objects that `reference` patches point at. Default none: references are only rewritten. */
  importer?: ReferenceImporter;
  events: EventSink;
  metrics: ControllerMetrics;
  /** When another writer counts as competing and how repairs back off. Default: 3 changes within 60 s; 1 s doubling to 5 min. */
  contention?: Omit<CompetingWriterDetectorOptions, 'clock'>;
  /** The field manager name the host client writes as (its user agent); other managers name a competing writer. Default `vcsync`. */
  fieldManager?: string;
  clock?: Clock;
  logger?: Logger;
}

/** The outcome when the host already has our copy but the host cache has not caught up. */
const CACHE_LAG: ReconcileOutcome = Object.freeze({ kind: 'requeue', afterMs: 100, reason: 'the host cache has not seen the host object yet' });

/** The host cache has not seen this process's last write to the host object; its watch event re-queues the key. */
const HOST_CACHE_BEHIND: ReconcileOutcome = Object.freeze({ kind: 'requeue', afterMs: 100, reason: 'the host cache has not seen our last write yet' });

/** The host cache holds a copy that a GET no longer finds: look again once the cache has seen the delete. */
const HOST_GONE: ReconcileOutcome = Object.freeze({ kind: 'requeue', afterMs: 100, reason: 'the host object was deleted while being read' });

/** Initial syncs of at least this many keys report their progress. */
const LARGE_INITIAL_SYNC = 1000;
/** How often a large initial sync reports progress, in ms. */
const PROGRESS_INTERVAL_MS = 10_000;

interface LastSync {
  virtualResourceVersion: string;
  hostResourceVersion: string;
  /** The state it was converged with: a reloaded configuration may want a different host object. */
  state: SyncState;
  /** Whether that converge imported referenced objects (a later reconcile re-imports them). */
  imported: boolean;
  /** The host resourceVersion our last update replaced (else the one converged before): a host cache one write behind still shows it. */
  previousHostResourceVersion: string;
  /** The host object as last converged, kept only while reverse patches need it (memory). */
  host: KubeObject | undefined;
}

/**
 * The generic virtual → host controller. Informer handlers only enqueue virtual keys; workers
 * re-read both caches and converge the host object (create, update, delete, recreate on UID
 * mismatch) and, when only the host side changed since the last sync, flow labels, annotations
 * and reverse patches back to the virtual object. One worker per key at a time (the queue's
 * guarantee); every outcome maps to one queue action and one metric in {@link #finish}.
 *
 * Host objects deleted while their virtual object exists are recreated (vcluster deletes the
 * virtual object instead; vcsync never deletes tenant data because of a host-side action).
 *
 * A host object changed away from the desired state by someone else (only the host moved since
 * the last sync) is repaired at once, unless another writer keeps doing it: then the key is
 * contended (see {@link CompetingWriterDetector}), its repairs are deferred with exponential
 * backoff instead of fighting, and the contention is counted, logged and recorded as a Warning
 * event `CompetingWriter` on the virtual object.
 */
export class ToHostController<V extends KubeObject> {
  readonly #options: ToHostControllerOptions<V>;
  readonly #resource: ToHostResource<V>;
  readonly #queue: RateLimitingQueue;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #workers: number;
  /** The resourceVersions both sides had after this process last converged a key. */
  readonly #lastSync = new Map<string, LastSync>();
  readonly #contention: CompetingWriterDetector;
  readonly #fieldManager: string;
  readonly #summary: WriteSummary;
  /** Keys a worker is reconciling now. */
  readonly #busy = new Set<string>();
  /** Busy keys whose host object had an event meanwhile → that host object's key: decided once the reconcile ends. */
  readonly #hostEventsWhileBusy = new Map<string, string>();
  #state: SyncState;

  constructor(options: ToHostControllerOptions<V>) {
    this.#options = options;
    this.#resource = options.resource;
    this.#queue = options.queue;
    this.#state = options.state;
    this.#workers = options.workers ?? 10;
    this.#clock = options.clock ?? realClock;
    this.#logger = (options.logger ?? silentLogger()).child({ controller: options.resource.name });
    this.#contention = new CompetingWriterDetector({ ...options.contention, clock: this.#clock });
    this.#fieldManager = options.fieldManager ?? 'vcsync';
    this.#summary = new WriteSummary({ logger: this.#logger, clock: this.#clock });
    options.metrics.observeManaged(() => options.hostInformer.list().length);
  }

  /** Replaces the configuration-derived state and re-syncs every virtual and host object. */
  updateState(state: SyncState): void {
    this.#state = state;
    this.#enqueueAll();
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
      const workers = Array.from({ length: this.#workers }, () => this.#work(signal));
      workers.push(this.#reportInitialSync(initial, signal), this.#summary.run(signal));
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
   * Logs progress of the initial sync when it is large (a restart with many objects, or a first
   * start), every {@link PROGRESS_INTERVAL_MS}, and once when the queue first drains.
   */
  async #reportInitialSync(initial: number, signal: AbortSignal): Promise<void> {
    if (initial < LARGE_INITIAL_SYNC) return;
    const started = this.#clock.now();
    while (this.#queue.len() > 0) {
      if (!(await sleep(this.#clock, PROGRESS_INTERVAL_MS, signal))) return;
      this.#logger.info({ remaining: this.#queue.len(), total: initial }, 'initial sync in progress');
    }
    this.#logger.info({ total: initial, seconds: Math.round((this.#clock.now() - started) / 1000) }, 'initial sync done');
  }

  /** Reconciles one virtual key once and returns what happened (exposed for tests and preview). */
  async reconcile(key: string): Promise<ReconcileOutcome> {
    const state = this.#state;
    const cachedVirtual = this.#options.virtualInformer.get(key);
    const plan = syncPlan(this.#resource, state, key, cachedVirtual);
    if (plan.kind === 'skip') {
      if (plan.cause === 'controlled_elsewhere') this.#forget(key);
      return { kind: 'skipped', cause: plan.cause, reason: plan.reason };
    }
    const hostRef = plan.hostRef;
    const cached = this.#options.hostInformer.get(`${hostRef.namespace}/${hostRef.name}`);
    const ours = cached !== undefined && this.#isOurs(cached, state.translator, key);
    // A copy of ours that a plugin or another syncer took over is theirs now (vcluster's excludePhysical).
    const hostElsewhere = cached !== undefined && ours ? controlledElsewhere(cached.metadata, this.#resource.name) : undefined;
    if (hostElsewhere !== undefined) {
      this.#forget(key);
      return { kind: 'skipped', cause: 'controlled_elsewhere', reason: `the host copy: ${hostElsewhere}: left alone on both sides` };
    }

    if (plan.kind === 'remove') {
      this.#forget(key);
      if (cached !== undefined && ours) {
        await this.#deleteHost(cached, key, plan.reason);
        return { kind: 'deleted', reason: plan.reason };
      }
      return { kind: 'skipped', cause: plan.cause, reason: plan.reason };
    }
    const virtual = plan.virtual;
    const { namespace, name } = splitObjectKey(key);

    if (cached !== undefined && !ours) throw this.#notManaged(hostRef, state, key);

    if (cached !== undefined && cached.metadata?.annotations?.[ANNOTATION_OBJECT_UID] !== virtual.metadata?.uid) {
      // The virtual object was deleted and recreated while we were not looking: its host copy
      // belongs to the old incarnation.
      await this.#deleteHost(cached, key, 'the virtual object was recreated (uid changed)');
      const created = await this.#createHost(virtual, state);
      if (created === undefined) return CACHE_LAG;
      this.#remember(key, virtual, created.object, state, created.imports);
      return { kind: 'synced', action: 'recreated' };
    }

    if (cached === undefined) {
      const created = await this.#createHost(virtual, state);
      if (created === undefined) return CACHE_LAG;
      this.#remember(key, virtual, created.object, state, created.imports);
      return { kind: 'synced', action: 'created' };
    }

    const last = this.#lastSync.get(key);
    if (this.#stillConverged(last, virtual, cached, state)) {
      this.#contention.settled(key);
      return { kind: 'unchanged' };
    }
    // Patches read the host object's fields: a copy cached without its body is read whole.
    const host = state.patcher.readsHost && cachedBodyDigest(cached) !== undefined ? await this.#readHost(hostRef.namespace, hostRef.name) : cached;
    if (host === undefined) return HOST_GONE;

    let current = virtual;
    let virtualUpdated = false;
    if (this.#hostCacheBehind(last, virtual, host)) return HOST_CACHE_BEHIND;
    if (
      last !== undefined &&
      last.virtualResourceVersion === virtual.metadata?.resourceVersion &&
      last.hostResourceVersion !== host.metadata?.resourceVersion
    ) {
      const reversed = await this.#virtualFromHost(virtual, host, last.host, state);
      if (!isDeepStrictEqual(reversed, virtual)) {
        current = await this.#options.virtualClient.update(this.#path(namespace, name), reversed);
        virtualUpdated = true;
        this.#logger.info({ key, host: `${hostRef.namespace}/${hostRef.name}` }, 'updated virtual object from host changes');
      }
    }

    const { object: desired, imports } = await this.#desiredHost(current, host, state);
    if (hostMatchesDesired(host, desired)) {
      await this.#import(imports, host, state);
      this.#remember(key, current, host, state, imports);
      this.#contention.settled(key);
      return virtualUpdated ? { kind: 'synced', action: 'virtual-updated' } : { kind: 'unchanged' };
    }
    const recreate = this.#resource.recreateReason?.(host, desired);
    if (recreate !== undefined) {
      await this.#deleteHost(host, key, recreate);
      const created = await this.#createHost(current, state);
      if (created === undefined) return CACHE_LAG;
      this.#remember(key, current, created.object, state, created.imports);
      return { kind: 'synced', action: 'recreated' };
    }
    let contention: Contention | undefined;
    if (this.#changedByOthers(last, virtual, host)) {
      const verdict = this.#contention.observe(key, host.metadata?.resourceVersion ?? '');
      if (verdict.contended) {
        // The cache keeps no managedFields: who the other writers are is read when it is reported.
        const managers = verdict.report ? await this.#otherManagers(hostRef.namespace, hostRef.name) : [];
        contention = { host: `${hostRef.namespace}/${hostRef.name}`, competingWrites: verdict.competingWrites, report: verdict.report, otherManagers: managers };
      }
      if (verdict.action === 'defer' && contention !== undefined) return { kind: 'deferred', afterMs: verdict.afterMs, contention };
    }
    const body: KubeObject = {
      ...desired,
      metadata: { ...desired.metadata, uid: host.metadata?.uid, resourceVersion: host.metadata?.resourceVersion },
    };
    const updated = await this.#options.hostClient.update(this.#path(hostRef.namespace, hostRef.name), body);
    await this.#import(imports, updated, state);
    this.#remember(key, current, updated, state, imports, host.metadata?.resourceVersion ?? '');
    this.#logger.debug({ key, host: `${hostRef.namespace}/${hostRef.name}` }, 'updated host object');
    return contention !== undefined ? { kind: 'synced', action: 'updated', contention } : { kind: 'synced', action: 'updated' };
  }

  /**
   * Neither object moved since this process last converged the key with this state, and that
   * converge imported nothing: e.g. the watch echo of our own write. Nothing the desired host object
   * is computed from changed (the secondary objects only decide whether to sync, checked before),
   * so translating, patching and comparing again would only confirm it.
   */
  #stillConverged(last: LastSync | undefined, virtual: KubeObject, host: KubeObject, state: SyncState): boolean {
    return (
      last !== undefined &&
      last.state === state &&
      !last.imported &&
      last.virtualResourceVersion === virtual.metadata?.resourceVersion &&
      last.hostResourceVersion === host.metadata?.resourceVersion
    );
  }

  /**
   * The host cache still shows the copy this process replaced in its last write, and the virtual
   * object has not moved: the difference is our own write in flight, not a host change, so it must
   * neither flow back to the virtual object nor be written over with a stale resourceVersion.
   */
  #hostCacheBehind(last: LastSync | undefined, virtual: V, host: V): boolean {
    if (last === undefined || last.virtualResourceVersion !== virtual.metadata?.resourceVersion) return false;
    const version = host.metadata?.resourceVersion;
    return version !== last.hostResourceVersion && version === last.previousHostResourceVersion;
  }

  /**
   * Only the host object moved since this process last converged the key, to a version it did not
   * write itself: someone else changed it.
   */
  #changedByOthers(last: LastSync | undefined, virtual: V, host: V): boolean {
    if (last === undefined || last.virtualResourceVersion !== virtual.metadata?.resourceVersion) return false;
    // A host cache one write behind never gets here (see #hostCacheBehind).
    return host.metadata?.resourceVersion !== last.hostResourceVersion;
  }

  #forget(key: string): void {
    this.#lastSync.delete(key);
    this.#contention.forget(key);
  }

  #isOurs(host: V, translator: Translator, key: string): boolean {
    if (host.metadata === undefined || !translator.isManaged(host.metadata)) return false;
    const ref = translator.virtualRef(host.metadata);
    return ref !== undefined && `${ref.namespace}/${ref.name}` === key;
  }

  #desiredHost(virtual: V, existing: V | undefined, state: SyncState): Promise<PatchedObject> {
    return desiredHostObject(this.#resource, state, virtual, existing);
  }

  /**
   * The virtual object as the host side now says it should be: labels, annotations, reverse
   * patches. A host label or annotation counts as a host-side change only when it differs from
   * what the current virtual object itself would write (translation and forward patches): a value
   * the syncer wrote, e.g. a forward-patched one, is never copied back into the tenant's object.
   */
  async #virtualFromHost(virtual: V, host: V, lastSyncedHost: KubeObject | undefined, state: SyncState): Promise<V> {
    const actual = state.translator.virtualMetadata(host.metadata ?? {});
    if (actual === undefined) return virtual;
    const { object: written } = await this.#desiredHost(virtual, undefined, state);
    const expected = virtualLabelsAndAnnotations(written.metadata ?? {}, state.translator.vclusterName);
    const excluded = new Set(this.#resource.excludedAnnotations);
    const ownLabels = new Set(Object.keys(this.#resource.hostLabels?.(virtual, state.translator) ?? {}));
    const labels = withHostChanges(virtual.metadata?.labels, expected.labels, actual.labels, ownLabels);
    const annotations = withHostChanges(virtual.metadata?.annotations, expected.annotations, actual.annotations, excluded);
    const metadata: ObjectMeta = { ...virtual.metadata };
    if (Object.keys(labels).length > 0) metadata.labels = labels;
    else delete metadata.labels;
    if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
    else delete metadata.annotations;
    const withMetadata = { ...virtual, metadata } as V;
    return (await state.patcher.toVirtual({ virtual: withMetadata, host, lastSyncedHost })) as V;
  }

  /**
   * Creates the host copy; resolves with it and the references it imported. Resolves `undefined` when a copy of ours already exists that the host
   * cache has not seen yet (the caller requeues: not a failure); throws a terminal error when the
   * name is taken by an object this vcluster did not write.
   */
  async #createHost(virtual: V, state: SyncState): Promise<{ object: KubeObject; imports: readonly ReferenceImport[] } | undefined> {
    const { object: desired, imports } = await this.#desiredHost(virtual, undefined, state);
    const ref = desired.metadata ?? {};
    try {
      const created = await this.#options.hostClient.create(collectionPath(this.#resource.type, ref.namespace ?? ''), desired);
      this.#logger.debug({ key: objectKey(virtual), host: `${ref.namespace}/${ref.name}` }, 'created host object');
      await this.#import(imports, created, state);
      return { object: created, imports };
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      // Either our cache has not seen our own object yet (retry once it has), or the name is taken
      // by an object this vcluster did not write: the host informer only watches managed objects,
      // so it would never see that one, and retrying cannot help.
      const key = objectKey(virtual);
      const existing = await this.#readHost(ref.namespace ?? '', ref.name ?? '');
      if (existing !== undefined && !this.#isOurs(existing, state.translator, key)) {
        if (this.#resource.replacesForeignHostObject !== true || controlledElsewhere(existing.metadata, this.#resource.name) !== undefined) {
          throw this.#notManaged({ namespace: ref.namespace ?? '', name: ref.name ?? '' }, state, key);
        }
        const replaced = await this.#replaceForeign(existing, desired, key);
        if (replaced === undefined) return undefined;
        await this.#import(imports, replaced, state);
        return { object: replaced, imports };
      }
      return undefined;
    }
  }

  /**
   * Deletes `foreign`, a host object of the copy's name that this virtual cluster did not write
   * (uid precondition: never a newer object), and creates `desired` in its place. Resolves
   * `undefined` when the name is taken again meanwhile (the caller requeues).
   */
  async #replaceForeign(foreign: V, desired: KubeObject, key: string): Promise<KubeObject | undefined> {
    const meta = foreign.metadata ?? {};
    await this.#deleteHost(foreign, key, 'a host object of the same name not written by this virtual cluster');
    this.#logger.warn({ key, host: `${meta.namespace}/${meta.name}`, uid: meta.uid }, 'replaced a host object of the same name that this virtual cluster did not write');
    try {
      return await this.#options.hostClient.create(collectionPath(this.#resource.type, meta.namespace ?? ''), desired);
    } catch (error) {
      if (isAlreadyExists(error)) return undefined;
      throw error;
    }
  }

  /** The field managers other than ours of the host object `namespace/name`, as the server has it now. */
  async #otherManagers(namespace: string, name: string): Promise<string[]> {
    const host = await this.#readHost(namespace, name);
    return host === undefined ? [] : otherManagers(host, this.#fieldManager);
  }

  async #readHost(namespace: string, name: string): Promise<V | undefined> {
    try {
      return await this.#options.hostClient.get<V>(this.#path(namespace, name));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  #notManaged(hostRef: { namespace: string; name: string }, state: SyncState, key: string): TerminalError {
    return new TerminalError(
      'HostObjectNotManaged',
      `host ${this.#resource.kind} ${hostRef.namespace}/${hostRef.name} exists but was not written by virtual cluster ` +
        `${state.translator.vclusterName}; delete or rename it on the host so ${key} can be synced`,
    );
  }

  async #import(imports: readonly ReferenceImport[], owner: KubeObject, state: SyncState): Promise<void> {
    if (imports.length === 0) return;
    if (this.#options.importer === undefined) return;
    await this.#options.importer.importAll(imports, { ...owner, apiVersion: this.#resource.apiVersion, kind: this.#resource.kind }, state.translator);
  }

  /** Deletes our copy of virtual `key` (uid precondition: never a newer object of the same name). */
  async #deleteHost(host: V, key: string, reason: string): Promise<void> {
    const meta = host.metadata ?? {};
    try {
      await this.#options.hostClient.delete(this.#path(meta.namespace ?? '', meta.name ?? ''), {
        body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: meta.uid } },
      });
      this.#logger.debug({ key, host: `${meta.namespace}/${meta.name}`, reason }, 'deleted host object');
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
  }

  /**
   * Records a converge. `replaced` is the resourceVersion of the host copy an update wrote over:
   * the copy a lagging host cache may still show, even when nothing was remembered before (a lost
   * create answer, a restart). Without it, the previous converge's host version stands in.
   */
  #remember(key: string, virtual: KubeObject, host: KubeObject, state: SyncState, imports: readonly ReferenceImport[], replaced?: string): void {
    const hostResourceVersion = host.metadata?.resourceVersion ?? '';
    const last = this.#lastSync.get(key);
    this.#lastSync.set(key, {
      virtualResourceVersion: virtual.metadata?.resourceVersion ?? '',
      hostResourceVersion,
      state,
      imported: imports.length > 0,
      previousHostResourceVersion:
        replaced ?? (last?.hostResourceVersion === hostResourceVersion ? last.previousHostResourceVersion : (last?.hostResourceVersion ?? '')),
      host: state.patcher.reverses ? host : undefined,
    });
  }

  #path(namespace: string, name: string): string {
    return objectPath(this.#resource.type, namespace, name);
  }

  #registerHandlers(): () => void {
    const enqueue = (object: KubeObject): void => this.#queue.add(objectKey(object));
    const enqueueHost = (object: KubeObject, deleted: boolean): void => {
      const ref = object.metadata !== undefined ? this.#state.translator.virtualRef(object.metadata) : undefined;
      if (ref === undefined) return;
      const key = `${ref.namespace}/${ref.name}`;
      if (!deleted && this.#busy.has(key)) {
        // Most likely the echo of the write in flight, which has not answered yet: decide after it.
        this.#hostEventsWhileBusy.set(key, objectKey(object));
        return;
      }
      if (!deleted && this.#isEcho(key, object)) return;
      this.#queue.add(key);
    };
    const removers = [
      this.#options.virtualInformer.addHandler({ onAdd: enqueue, onUpdate: (_old, current) => enqueue(current), onDelete: enqueue }),
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

  /**
   * A host event that only reports what this process last converged (the watch echo of its own
   * write, or a resync): the key is not queued at all, which saves the queue's and the reconcile's
   * work for every object of a bulk sync. An echo that arrives before our write's answer (a
   * devcluster sends it first) is decided once that reconcile ends (see #afterHostEventsWhileBusy).
   */
  #isEcho(key: string, host: KubeObject): boolean {
    const last = this.#lastSync.get(key);
    if (last === undefined) return false;
    const virtual = this.#options.virtualInformer.get(key);
    return virtual !== undefined && this.#stillConverged(last, virtual, host, this.#state);
  }

  /** Queues `key` again if its host object had an event while it was reconciled that is not the echo of that reconcile's write. */
  #afterHostEventsWhileBusy(key: string): void {
    const hostKey = this.#hostEventsWhileBusy.get(key);
    if (hostKey === undefined) return;
    this.#hostEventsWhileBusy.delete(key);
    const host = this.#options.hostInformer.get(hostKey);
    if (host === undefined || !this.#isEcho(key, host)) this.#queue.add(key);
  }

  #enqueueAll(): void {
    for (const object of this.#options.virtualInformer.list()) this.#queue.add(objectKey(object));
    for (const object of this.#options.hostInformer.list()) {
      const ref = object.metadata !== undefined ? this.#state.translator.virtualRef(object.metadata) : undefined;
      if (ref !== undefined) this.#queue.add(`${ref.namespace}/${ref.name}`);
    }
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
        const outcome = await this.reconcile(key);
        this.#finish(key, outcome, started);
      } catch (error) {
        if (signal.aborted) this.#logger.debug({ key, err: error }, 'reconcile ended with the leadership term');
        else this.#fail(key, error, started);
      } finally {
        this.#busy.delete(key);
        this.#afterHostEventsWhileBusy(key);
        this.#queue.done(key);
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
      { ...virtual, apiVersion: this.#resource.apiVersion, kind: this.#resource.kind },
      'CompetingWriter',
      `another writer (field managers: ${managers}) keeps changing host ${this.#resource.kind} ${contention.host}; ` +
        'vcsync repairs it with growing delays instead of fighting. If it is the virtual cluster\'s own syncer, ' +
        `turn off sync.toHost.${this.#resource.name}.enabled in the virtual cluster's configuration (vcsync syncs ${this.#resource.name} instead)`,
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
      this.#options.events.warning({ ...virtual, apiVersion: this.#resource.apiVersion, kind: this.#resource.kind }, 'SyncError', message);
    }
    if (terminal) {
      this.#logger.warn({ key, err: error }, 'sync failed; not retrying until the object changes');
      this.#queue.forget(key);
      return;
    }
    this.#logger.warn({ key, err: error, retries: this.#queue.numRequeues(key) }, 'sync failed, retrying with backoff');
    this.#queue.addRateLimited(key);
  }
}
