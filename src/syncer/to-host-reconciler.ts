import { isDeepStrictEqual } from 'node:util';
import { isAlreadyExists, isNotFound } from '../apimachinery/index.js';
import { collectionPath, objectPath } from '../kube/api-path.js';
import { realClock, type Clock } from '../kube/clock.js';
import type { KubeObject, ObjectMeta } from '../kube/kube-object.js';
import { objectKey, splitObjectKey } from '../kube/object-key.js';
import type { CallOptions } from '../kube/rest-client.js';
import { ANNOTATION_OBJECT_UID } from '../translate/keys.js';
import type { ReferenceImport } from '../patches/index.js';
import { controlledElsewhere } from '../translate/controlled-by.js';
import { virtualLabelsAndAnnotations } from '../translate/object-metadata.js';
import type { Translator } from '../translate/translator.js';
import { silentLogger, type Logger } from '../observe/logger.js';
import { CompetingWriterDetector, otherManagers, type CompetingWriterDetectorOptions } from './competing-writers.js';
import { desiredHostObject, ownedHostLabels } from './desired-host.js';
import { syncPlan } from './sync-plan.js';
import { cachedBodyDigest, hostMatchesDesired, withHostChanges } from './host-changes.js';
import type { PatchedObject } from './object-patcher.js';
import type { SyncState } from './sync-state.js';
import type { ReferenceImporter } from './reference-importer.js';
import { changedByOthers, ConvergeMemory, hostCacheBehind, stillConverged, virtualCacheBehind } from './converge-memory.js';
import { TerminalError, type Contention, type ReconcileOutcome } from './reconcile-outcome.js';
import type { ToHostResource } from './to-host-resource.js';
import { withPatchesNamed } from './patched-object-rejected.js';

/**
 * The calls the reconciler makes on one cluster, by API path: its writes, and the read that
 * identifies a conflicting host object. {@link RestClient} satisfies it; `fencedClient`
 * gates it on leadership. (Not the apiserver core's `ObjectWriter`, which is a server's own store.)
 */
export interface ClusterWriter {
  get<T>(path: string, options?: CallOptions): Promise<T>;
  create<T>(path: string, body: T, options?: CallOptions): Promise<T>;
  update<T>(path: string, body: T, options?: CallOptions): Promise<T>;
  delete<T>(path: string, options?: CallOptions & { body?: object }): Promise<T>;
}

/** Read access to a cache by key (`namespace/name`); an {@link Informer} satisfies it. */
export interface CacheReader<T extends KubeObject> {
  get(key: string): T | undefined;
}

/** Options of {@link ToHostReconciler}. */
export interface ToHostReconcilerOptions<V extends KubeObject> {
  /** The resource's rules: what to skip, whether to sync, the host fields. */
  resource: ToHostResource<V>;
  /** The virtual objects of the resource (all namespaces). */
  virtualCache: CacheReader<V>;
  /** The host objects of the resource managed by this vcluster. */
  hostCache: CacheReader<V>;
  /** Writes to the virtual cluster (reverse sync of labels, annotations and reverse patches). */
  virtualClient: ClusterWriter;
  /** Writes to the host cluster; should carry the host QPS/burst limit. */
  hostClient: ClusterWriter;
  /** The initial configuration-derived state. */
  state: SyncState;
  /** Imports objects that `reference` patches point at. Default none: references are only rewritten. */
  importer?: ReferenceImporter;
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

/** The virtual cache has not seen this process's last write to the virtual object (reverse sync); its watch event re-queues the key. */
const VIRTUAL_CACHE_BEHIND: ReconcileOutcome = Object.freeze({ kind: 'requeue', afterMs: 100, reason: 'the virtual cache has not seen our last write yet' });

/** The host cache holds a copy that a GET no longer finds: look again once the cache has seen the delete. */
const HOST_GONE: ReconcileOutcome = Object.freeze({ kind: 'requeue', afterMs: 100, reason: 'the host object was deleted while being read' });


/**
 * The to-host convergence of one resource, as controller-runtime's Reconciler: `reconcile(key)`
 * re-reads both caches and converges the host object (create, update, delete, recreate on UID
 * mismatch) and, when only the host side changed since the last converge, flows labels,
 * annotations and reverse patches back to the virtual object. It knows no queue, handler or
 * worker: {@link ToHostController} calls it, one call per key at a time.
 *
 * Host objects deleted while their virtual object exists are recreated (vcluster deletes the
 * virtual object instead; vcsync never deletes tenant data because of a host-side action).
 *
 * A host object changed away from the desired state by someone else (only the host moved since
 * the last converge) is repaired at once, unless another writer keeps doing it: then the key is
 * contended (see {@link CompetingWriterDetector}), its repairs are deferred with exponential
 * backoff instead of fighting, and the outcome carries the contention for the controller to report.
 *
 * It remembers, per key, the resourceVersions both sides had after its last converge: that
 * memory is how it tells "only the host moved" (reverse sync, competing writers) from its own
 * write, and {@link ToHostReconciler.isEcho} lets the controller drop the watch echoes of those
 * writes without queueing them.
 */
export class ToHostReconciler<V extends KubeObject> {
  readonly #options: ToHostReconcilerOptions<V>;
  readonly #resource: ToHostResource<V>;
  readonly #logger: Logger;
  /** The resourceVersions both sides had after this process last converged a key. */
  readonly #lastSync = new ConvergeMemory();
  readonly #contention: CompetingWriterDetector;
  readonly #fieldManager: string;
  #state: SyncState;

  constructor(options: ToHostReconcilerOptions<V>) {
    this.#options = options;
    this.#resource = options.resource;
    this.#state = options.state;
    this.#logger = (options.logger ?? silentLogger()).child({ controller: options.resource.name });
    this.#contention = new CompetingWriterDetector({ ...options.contention, clock: options.clock ?? realClock });
    this.#fieldManager = options.fieldManager ?? 'vcsync';
  }

  /** The resource's rules it reconciles with. */
  get resource(): ToHostResource<V> {
    return this.#resource;
  }

  /** Replaces the configuration-derived state; the next reconciles use it (every key is converged again with it). */
  updateState(state: SyncState): void {
    this.#state = state;
  }

  /** The virtual key (`namespace/name`) a host object is the copy of, by its annotations; `undefined` for none. */
  keyOfHost(host: KubeObject): string | undefined {
    const ref = host.metadata !== undefined ? this.#state.translator.virtualRef(host.metadata) : undefined;
    return ref === undefined ? undefined : `${ref.namespace}/${ref.name}`;
  }

  /**
   * Whether a host event of `key` only reports what this reconciler last converged (the watch
   * echo of its own write, or a resync) with the current state and virtual object: reconciling
   * it would only confirm the converge, so the caller need not queue it.
   */
  isEcho(key: string, host: KubeObject): boolean {
    const last = this.#lastSync.get(key);
    if (last === undefined) return false;
    const virtual = this.#options.virtualCache.get(key);
    return virtual !== undefined && stillConverged(last, virtual, host, this.#state);
  }

  /**
   * Converges virtual `key` once and says what happened; throws to retry with backoff, a
   * {@link TerminalError} when retrying cannot help. Reads both caches, never the queue.
   */
  async reconcile(key: string): Promise<ReconcileOutcome> {
    const state = this.#state;
    const cachedVirtual = this.#options.virtualCache.get(key);
    const plan = syncPlan(this.#resource, state, key, cachedVirtual);
    if (plan.kind === 'skip') {
      if (plan.cause === 'controlled_elsewhere') this.#forget(key);
      return { kind: 'skipped', cause: plan.cause, reason: plan.reason };
    }
    const hostRef = plan.hostRef;
    const cached = this.#options.hostCache.get(`${hostRef.namespace}/${hostRef.name}`);
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
      this.#lastSync.remember(key, virtual, created.object, state, created.imports);
      return { kind: 'synced', action: 'recreated' };
    }

    if (cached === undefined) {
      const created = await this.#createHost(virtual, state);
      if (created === undefined) return CACHE_LAG;
      this.#lastSync.remember(key, virtual, created.object, state, created.imports);
      return { kind: 'synced', action: 'created' };
    }

    const last = this.#lastSync.get(key);
    if (virtualCacheBehind(last, virtual)) return VIRTUAL_CACHE_BEHIND;
    if (stillConverged(last, virtual, cached, state)) {
      this.#contention.settled(key);
      return { kind: 'unchanged' };
    }
    // Patches read the host object's fields: a copy cached without its body is read whole.
    const host = state.patcher.readsHost && cachedBodyDigest(cached) !== undefined ? await this.#readHost(hostRef.namespace, hostRef.name) : cached;
    if (host === undefined) return HOST_GONE;

    let current = virtual;
    let virtualUpdated = false;
    // The virtual resourceVersion a reverse write below replaces (a lagging virtual cache still shows it).
    let replacedVirtual: string | undefined;
    if (hostCacheBehind(last, virtual, host)) return HOST_CACHE_BEHIND;
    if (
      last !== undefined &&
      last.virtualResourceVersion === virtual.metadata?.resourceVersion &&
      last.hostResourceVersion !== host.metadata?.resourceVersion
    ) {
      const reversed = await this.#virtualFromHost(virtual, host, last.host, state);
      if (!isDeepStrictEqual(reversed, virtual)) {
        current = await this.#options.virtualClient.update(this.#path(namespace, name), reversed);
        virtualUpdated = true;
        replacedVirtual = virtual.metadata?.resourceVersion ?? '';
        this.#logger.info({ key, host: `${hostRef.namespace}/${hostRef.name}` }, 'updated virtual object from host changes');
      }
    }

    const { object: desired, imports, changedBy } = await this.#desiredHost(current, host, state);
    if (hostMatchesDesired(host, desired)) {
      await this.#import(imports, host, state);
      this.#lastSync.remember(key, current, host, state, imports, { virtual: replacedVirtual });
      this.#contention.settled(key);
      return virtualUpdated ? { kind: 'synced', action: 'virtual-updated' } : { kind: 'unchanged' };
    }
    const recreate = this.#resource.recreateReason?.(host, desired);
    if (recreate !== undefined) {
      await this.#deleteHost(host, key, recreate);
      const created = await this.#createHost(current, state);
      if (created === undefined) return CACHE_LAG;
      this.#lastSync.remember(key, current, created.object, state, created.imports, { virtual: replacedVirtual });
      return { kind: 'synced', action: 'recreated' };
    }
    let contention: Contention | undefined;
    if (changedByOthers(last, virtual, host)) {
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
    const updated = await this.#hostWrite(changedBy, () => this.#options.hostClient.update(this.#path(hostRef.namespace, hostRef.name), body));
    await this.#import(imports, updated, state);
    this.#lastSync.remember(key, current, updated, state, imports, { host: host.metadata?.resourceVersion ?? '', virtual: replacedVirtual });
    if (this.#logger.isLevelEnabled('debug')) this.#logger.debug({ key, host: `${hostRef.namespace}/${hostRef.name}` }, 'updated host object');
    return contention !== undefined ? { kind: 'synced', action: 'updated', contention } : { kind: 'synced', action: 'updated' };
  }

  #forget(key: string): void {
    this.#lastSync.delete(key);
    this.#contention.forget(key);
  }

  #isOurs(host: V, translator: Translator, key: string): boolean {
    if (host.metadata === undefined) return false;
    // virtualRef accepts exactly the objects isManaged does.
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
    // Labels the resource or the state owns are vcsync's on the host: a host-side value never reaches the tenant.
    const ownLabels = new Set(Object.keys(ownedHostLabels(this.#resource, state, virtual)));
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
    const { object: desired, imports, changedBy } = await this.#desiredHost(virtual, undefined, state);
    const ref = desired.metadata ?? {};
    try {
      const created = await this.#hostWrite(changedBy, () => this.#options.hostClient.create(collectionPath(this.#resource.type, ref.namespace ?? ''), desired));
      if (this.#logger.isLevelEnabled('debug')) this.#logger.debug({ key: objectKey(virtual), host: `${ref.namespace}/${ref.name}` }, 'created host object');
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
        const replaced = await this.#hostWrite(changedBy, () => this.#replaceForeign(existing, desired, key));
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

  /**
   * Runs a host write of an object the patches `changedBy` produced: a refusal of the object
   * itself then names those patches (see {@link withPatchesNamed}).
   */
  #hostWrite<T>(changedBy: readonly string[] | undefined, write: () => Promise<T>): Promise<T> {
    // Not an async function: the write path of every synced object goes through here.
    return write().catch((error: unknown) => {
      throw withPatchesNamed(error, changedBy);
    });
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

  #path(namespace: string, name: string): string {
    return objectPath(this.#resource.type, namespace, name);
  }
}
