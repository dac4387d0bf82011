/**
 * State tables for to-host syncers, as vcluster's SyncTest: each row gives the virtual and host
 * objects before, the key to reconcile, the outcome, and the virtual and host objects after. The
 * row runs through the resource's real {@link ToHostReconciler}, built from its
 * {@link ToHostDefinition} (its rules, its cache transforms), over in-memory clusters that play
 * the API servers (resourceVersions, uids, AlreadyExists, Conflict, NotFound, uid preconditions)
 * and whose caches are always caught up. No queue, informer or socket.
 *
 * Use, for a resource with definition `def` whose secondary informers are named `S`:
 *
 *   syncTable<MyKind, S>('my resource', def, [
 *     { name: 'created on the host', virtual: [mine('a')], host: [], key: 'default/a',
 *       outcome: { kind: 'synced', action: 'created' }, hostAfter: [hostCopy('a')] },
 *     …
 *   ]);
 *
 * - `virtual` / `host`: objects of the resource's own type on each side; `secondary`: virtual
 *   objects of each secondary informer, by the name the definition gives it (e.g. `services`).
 *   Missing `resourceVersion`s and virtual `uid`s are filled in (`'1'`, `uid-<name>`).
 * - `outcome`: matched with `toMatchObject` (give `kind` and what matters); `error`: the code of
 *   the {@link TerminalError} (or the message of another error) the reconcile throws instead.
 * - `virtualAfter` / `hostAfter`: the objects of the resource's type on each side afterwards, in
 *   any order, compared without `uid`, `resourceVersion` and `creationTimestamp`; leave one out
 *   to require that side unchanged.
 * - `writes`: the writes in order (`host create`, `host update`, `host delete`, `virtual update`);
 *   checked when given.
 * - `afterFirstSync`: for rows about what the syncer remembers (reverse sync, drift): the key is
 *   reconciled once (converging both sides), this edits the clusters (as another writer would),
 *   then the row's reconcile runs and is checked; `writes` then counts only the second one.
 * - Hosts live in namespace {@link TABLE_HOST_NAMESPACE} of virtual cluster {@link TABLE_VCLUSTER};
 *   `state` overrides parts of the default state (enabled, no patches).
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/index.js';
import { ApiError } from '../../src/apimachinery/index.js';
import { objectPath, type ResourceType } from '../../src/kube/api-path.js';
import type { KubeObject } from '../../src/kube/kube-object.js';
import { hostCopyTransform } from '../../src/syncer/host-copy-cache.js';
import type { ReconcileOutcome } from '../../src/syncer/reconcile-outcome.js';
import type { SyncState } from '../../src/syncer/sync-state.js';
import { ToHostReconciler, type CacheReader, type ClusterWriter } from '../../src/syncer/to-host-reconciler.js';
import type { ToHostDefinition } from '../../src/syncer/to-host-syncer.js';
import { LABEL_MANAGED_BY } from '../../src/translate/keys.js';
import { createTranslator } from '../../src/translate/translator.js';
import { passThrough } from './hand-filled-cache.js';

/** The virtual cluster's name in every table. */
export const TABLE_VCLUSTER = 'vc';
/** The host namespace in every table. */
export const TABLE_HOST_NAMESPACE = 'host-ns';

/** One row of a state table; see the file's header. */
export interface SyncTableRow<S extends string> {
  name: string;
  virtual: readonly KubeObject[];
  secondary?: Partial<Record<S, readonly KubeObject[]>>;
  host: readonly KubeObject[];
  key: string;
  outcome?: Partial<ReconcileOutcome> & Record<string, unknown>;
  error?: string;
  virtualAfter?: readonly KubeObject[];
  hostAfter?: readonly KubeObject[];
  writes?: readonly string[];
  afterFirstSync?: (sides: TableSides) => void;
  state?: Partial<SyncState>;
}

/** The two in-memory clusters of a row, for `afterFirstSync` edits. */
export interface TableSides {
  virtual: MemoryCluster;
  host: MemoryCluster;
}

function apiError(code: number, reason: string, message: string, verb: string, path: string): ApiError {
  return new ApiError({ httpStatus: code, status: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message }, verb, path });
}

/**
 * One side's objects, keyed by API path, answering as an API server does for the calls the
 * reconciler makes; records every write as `<side> <verb>`.
 */
export class MemoryCluster implements ClusterWriter {
  readonly #side: string;
  readonly #objects = new Map<string, KubeObject>();
  readonly #writes: string[];
  #version = 100;
  #uid = 0;

  constructor(side: string, writes: string[]) {
    this.#side = side;
    this.#writes = writes;
  }

  /** Stores `object` of `type` as it is (the row's starting state). */
  put(type: ResourceType, object: KubeObject): void {
    const meta = object.metadata ?? {};
    this.#objects.set(objectPath(type, meta.namespace, meta.name ?? ''), object);
  }

  /** Replaces the stored object of `type` at `namespace/name` by `edit(object)` with a new resourceVersion, as another writer would. */
  modify(type: ResourceType, namespace: string, name: string, edit: (object: KubeObject) => KubeObject): void {
    const path = objectPath(type, namespace, name);
    const current = this.#objects.get(path);
    if (current === undefined) throw new Error(`no ${path} to modify`);
    const edited = edit(structuredClone(current));
    this.#objects.set(path, { ...edited, metadata: { ...edited.metadata, resourceVersion: this.#nextVersion() } });
  }

  /** The stored objects of `type`, in every namespace. */
  list(type: ResourceType): KubeObject[] {
    return [...this.#objects.entries()].filter(([path, o]) => path === objectPath(type, o.metadata?.namespace, o.metadata?.name ?? '')).map(([, o]) => o);
  }

  /** A cache of `type` that is always caught up: `transform` applied to what is stored, `filter` choosing what the watch selects. */
  cache<T extends KubeObject>(type: ResourceType, transform: (object: KubeObject) => KubeObject, filter: (object: KubeObject) => boolean = () => true): CacheReader<T> {
    return {
      get: (key: string): T | undefined => {
        const [namespace, name] = key.split('/');
        const object = this.#objects.get(objectPath(type, namespace, name ?? ''));
        return object !== undefined && filter(object) ? (transform(object) as T) : undefined;
      },
    };
  }

  get<T>(path: string): Promise<T> {
    const object = this.#objects.get(path);
    if (object === undefined) return Promise.reject(apiError(404, 'NotFound', `${path} not found`, 'GET', path));
    return Promise.resolve(structuredClone(object) as T);
  }

  create<T>(path: string, body: T): Promise<T> {
    this.#writes.push(`${this.#side} create`);
    const object = body as KubeObject;
    const objectAt = `${path}/${encodeURIComponent(object.metadata?.name ?? '')}`;
    if (this.#objects.has(objectAt)) return Promise.reject(apiError(409, 'AlreadyExists', `${objectAt} already exists`, 'POST', path));
    const stored = { ...object, metadata: { ...object.metadata, uid: `${this.#side}-uid-${++this.#uid}`, resourceVersion: this.#nextVersion() } };
    this.#objects.set(objectAt, stored);
    return Promise.resolve(structuredClone(stored) as T);
  }

  update<T>(path: string, body: T): Promise<T> {
    this.#writes.push(`${this.#side} update`);
    const current = this.#objects.get(path);
    const object = body as KubeObject;
    if (current === undefined) return Promise.reject(apiError(404, 'NotFound', `${path} not found`, 'PUT', path));
    if (object.metadata?.resourceVersion !== current.metadata?.resourceVersion) {
      return Promise.reject(apiError(409, 'Conflict', `${path}: the object has been modified`, 'PUT', path));
    }
    const stored = { ...object, metadata: { ...object.metadata, uid: current.metadata?.uid, resourceVersion: this.#nextVersion() } };
    this.#objects.set(path, stored);
    return Promise.resolve(structuredClone(stored) as T);
  }

  delete<T>(path: string, options?: { body?: object }): Promise<T> {
    this.#writes.push(`${this.#side} delete`);
    const current = this.#objects.get(path);
    if (current === undefined) return Promise.reject(apiError(404, 'NotFound', `${path} not found`, 'DELETE', path));
    const uid = (options?.body as { preconditions?: { uid?: string } } | undefined)?.preconditions?.uid;
    if (uid !== undefined && uid !== current.metadata?.uid) return Promise.reject(apiError(409, 'Conflict', `${path}: uid precondition failed`, 'DELETE', path));
    this.#objects.delete(path);
    return Promise.resolve(structuredClone(current) as T);
  }

  #nextVersion(): string {
    this.#version += 1;
    return String(this.#version);
  }
}

/** `object` without the fields a server assigns, for comparing. */
function withoutServerFields(object: KubeObject): KubeObject {
  const metadata = { ...object.metadata };
  delete metadata.uid;
  delete metadata.resourceVersion;
  delete metadata.creationTimestamp;
  return { ...object, metadata };
}

/** Objects sorted by namespace/name, without server fields. */
function comparable(objects: readonly KubeObject[]): KubeObject[] {
  const key = (o: KubeObject): string => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  return objects.map(withoutServerFields).sort((a, b) => key(a).localeCompare(key(b)));
}

/** `object` with the fields a row may leave out filled in: a resourceVersion, and for a virtual object a uid. */
function filled(object: KubeObject, side: 'virtual' | 'host'): KubeObject {
  const meta = object.metadata ?? {};
  return {
    ...object,
    metadata: {
      ...meta,
      resourceVersion: meta.resourceVersion ?? '1',
      ...(side === 'virtual' ? { uid: meta.uid ?? `uid-${meta.name ?? ''}` } : {}),
    },
  };
}

/**
 * Runs every row of `rows` as one test of a `describe(title)` block: the reconciler of
 * `definition` over in-memory clusters holding the row's objects, then the checks the row asks.
 */
export function syncTable<V extends KubeObject, S extends string = never>(title: string, definition: ToHostDefinition<V, S>, rows: readonly SyncTableRow<S>[]): void {
  describe(title, () => {
    for (const row of rows) {
      it(row.name, async () => {
        const writes: string[] = [];
        const sides: TableSides = { virtual: new MemoryCluster('virtual', writes), host: new MemoryCluster('host', writes) };
        const translator = createTranslator({ vclusterName: TABLE_VCLUSTER, hostNamespace: TABLE_HOST_NAMESPACE, config: defaultConfig() });
        const state: SyncState = { enabled: true, translator, patcher: passThrough, ...row.state };
        const lookups = {} as Record<S, CacheReader<KubeObject>>;
        for (const name of Object.keys(definition.secondary) as S[]) {
          const source = definition.secondary[name];
          for (const object of row.secondary?.[name] ?? []) sides.virtual.put(source.type, filled(object, 'virtual'));
          lookups[name] = sides.virtual.cache(source.type, (o) => source.transform?.apply(o) ?? o);
        }
        const resource = definition.rules(lookups);
        for (const object of row.virtual) sides.virtual.put(resource.type, filled(object, 'virtual'));
        for (const object of row.host) sides.host.put(resource.type, filled(object, 'host'));
        const virtualTransform = definition.virtual.transform;
        const hostTransform = (definition.host.transform ?? hostCopyTransform)(() => state.patcher.readsHost);
        // What the host informer selects: the host namespace, objects labelled managed-by this vcluster.
        const selected = (o: KubeObject): boolean =>
          o.metadata?.namespace === TABLE_HOST_NAMESPACE && o.metadata.labels?.[LABEL_MANAGED_BY] === TABLE_VCLUSTER;
        const reconciler = new ToHostReconciler<V>({
          resource,
          virtualCache: sides.virtual.cache<V>(resource.type, (o) => virtualTransform?.apply(o) ?? o),
          hostCache: sides.host.cache<V>(resource.type, (o) => hostTransform.apply(o), selected),
          virtualClient: sides.virtual,
          hostClient: sides.host,
          state,
        });
        const virtualBefore = comparable(sides.virtual.list(resource.type));
        const hostBefore = comparable(sides.host.list(resource.type));

        if (row.afterFirstSync !== undefined) {
          await reconciler.reconcile(row.key);
          row.afterFirstSync(sides);
          writes.length = 0;
        }
        let outcome: ReconcileOutcome | undefined;
        let thrown: unknown;
        try {
          outcome = await reconciler.reconcile(row.key);
        } catch (error) {
          thrown = error;
        }
        if (row.error !== undefined) {
          expect(thrown, 'the reconcile to throw').toBeDefined();
          const code = (thrown as { code?: unknown }).code;
          expect(typeof code === 'string' && thrown instanceof Error && thrown.name === 'TerminalError' ? code : (thrown as Error).message).toBe(row.error);
        } else {
          if (thrown !== undefined) throw thrown;
          expect(outcome).toMatchObject(row.outcome ?? {});
        }
        if (row.afterFirstSync === undefined) {
          expect(comparable(sides.virtual.list(resource.type)), 'virtual objects after').toEqual(row.virtualAfter !== undefined ? comparable(row.virtualAfter) : virtualBefore);
          expect(comparable(sides.host.list(resource.type)), 'host objects after').toEqual(row.hostAfter !== undefined ? comparable(row.hostAfter) : hostBefore);
        } else {
          if (row.virtualAfter !== undefined) expect(comparable(sides.virtual.list(resource.type)), 'virtual objects after').toEqual(comparable(row.virtualAfter));
          if (row.hostAfter !== undefined) expect(comparable(sides.host.list(resource.type)), 'host objects after').toEqual(comparable(row.hostAfter));
        }
        if (row.writes !== undefined) expect(writes).toEqual(row.writes);
      });
    }
  });
}
