import { setMaxListeners } from 'node:events';
import type { Informer, NamedTransform } from '../kube/informer.js';
import type { KubeObject } from '../kube/kube-object.js';
import { RateLimitingWorkQueue } from '../kube/rate-limiting-queue.js';
import type { ResourceType } from '../kube/api-path.js';
import { LABEL_MANAGED_BY } from '../translate/keys.js';
import { hostCopyTransform } from './host-copy-cache.js';
import type { SyncState } from './sync-state.js';
import type { ResourceSyncer, SyncerContext } from './syncable-resource.js';
import { ToHostController } from './to-host-controller.js';
import { ToHostReconciler, type CacheReader } from './to-host-reconciler.js';
import type { SecondarySource, ToHostResource } from './to-host-resource.js';
import { VirtualKeyIndex } from './virtual-key-index.js';

/**
 * A virtual informer besides the resource's own: its rules read its objects (through the lookup
 * {@link ToHostDefinition.rules} is handed) and its changes wake keys of the resource (e.g. a
 * Service created after its Endpoints decides their sync). Watched in every virtual namespace.
 */
export interface SecondaryDefinition {
  /**
   * Keys (`namespace/name`) of the resource a change to `object` wakes; `index` finds them by the
   * value the definition's `virtual.indexBy` gives (empty without one).
   */
  keysFor(object: KubeObject, index: { keysOf(value: string): string[] }): string[];
  /** The informer's name (metrics label, health checks), e.g. `virtual-services`. */
  readonly name: string;
  /** The API type it watches. */
  readonly type: ResourceType;
  /** What its cache keeps of each object: only what the rules read. Absent: objects are cached whole. */
  readonly transform?: NamedTransform;
}

/**
 * Everything the generic to-host syncer needs to know of one resource: its rules and which
 * caches they read. {@link toHostSyncer} builds the informers, the reconciler, the queue and the
 * controller from it; a resource declares, it does not wire.
 *
 * - The virtual informer watches `rules.type` in every virtual namespace, named
 *   `virtual.name`, keeping what `virtual.transform` keeps (translation, patches and reverse sync
 *   read the object, so usually everything but managedFields).
 * - The host informer watches the same type in the host namespace(s), only objects labelled
 *   `vcluster.loft.sh/managed-by=<vcluster>`, named `host.name`; its cache keeps each copy's
 *   metadata and a digest of its body, the whole body while patches read it.
 * - Each secondary informer, keyed by the name the rules use for it (e.g. `services`), is handed
 *   to `rules` as a {@link CacheReader}.
 *
 * `S` names the secondary informers; a resource without any uses the default `never` and `{}`.
 */
export interface ToHostDefinition<V extends KubeObject, S extends string = never> {
  /**
   * The virtual informer's name, what its cache keeps, and the value each object is indexed by for
   * the secondary sources (e.g. the Service a slice names; absent: no index).
   */
  readonly virtual: { readonly name: string; readonly transform?: NamedTransform; readonly indexBy?: (object: V) => string | undefined };
  /**
   * The host informer's name, and what its cache keeps of a copy (default {@link hostCopyTransform}:
   * metadata and a digest of the body, the whole body while `keepBodies()`, i.e. while patches read it).
   */
  readonly host: { readonly name: string; readonly transform?: (keepBodies: () => boolean) => NamedTransform };
  /** The secondary virtual informers, by the name the rules read them under. */
  readonly secondary: Readonly<Record<S, SecondaryDefinition>>;
  /** The resource's rules, reading the secondary caches through `lookups`. Called once per build (and by preview with lookups of its inputs). */
  rules(lookups: Readonly<Record<S, CacheReader<KubeObject>>>): ToHostResource<V>;
}

/** A built to-host syncer: the {@link ResourceSyncer} the daemon runs, and its parts for tests and memory accounting. */
export interface ToHostSyncer<V extends KubeObject> extends ResourceSyncer {
  readonly reconciler: ToHostReconciler<V>;
  readonly controller: ToHostController<V>;
  /** Its caches by informer name (read-only: owned and run by the context's informer source). */
  readonly informers: ReadonlyMap<string, Informer<KubeObject>>;
  /** The index of the virtual cache by the definition's `virtual.indexBy`; absent without one. */
  readonly index: VirtualKeyIndex<V> | undefined;
}

/**
 * Turns a resource definition into its {@link SyncableResource.build}: requests the informers
 * from `context.informers` (whose owner runs them), and wires the {@link ToHostReconciler} on
 * their caches and the {@link ToHostController} on their events, with the context's clients,
 * state, importer, events, metrics and worker count. No I/O until `run`.
 */
export function toHostSyncer<V extends KubeObject, S extends string = never>(definition: ToHostDefinition<V, S>): (context: SyncerContext) => ToHostSyncer<V> {
  return (context) => {
    // The state of the moment: the host cache keeps bodies while its patches read them.
    let state: SyncState = context.state;
    const secondaryNames = Object.keys(definition.secondary) as S[];
    // The rules get their lookups before the informers exist (the virtual informer's type is the
    // rules'), so that informers are requested in the order health checks list them: virtual,
    // secondary, host.
    const secondaryInformers = new Map<S, Informer<KubeObject>>();
    const lookups = {} as Record<S, CacheReader<KubeObject>>;
    for (const name of secondaryNames) lookups[name] = { get: (key) => secondaryInformers.get(name)?.get(key) };
    const resource = definition.rules(lookups);
    const virtualInformer = context.informers.informer<V>({
      name: definition.virtual.name,
      cluster: 'virtual',
      resource: resource.type,
      ...(definition.virtual.transform !== undefined ? { transform: definition.virtual.transform } : {}),
    });
    const indexBy = definition.virtual.indexBy;
    const index = indexBy === undefined ? undefined : new VirtualKeyIndex<V>(indexBy);
    // Before the controller's handlers (added when it runs): a secondary event reads an index that has seen every virtual event delivered.
    if (index !== undefined) virtualInformer.addHandler(index.handler);
    const indexReader = { keysOf: (value: string): string[] => index?.keysOf(value) ?? [] };
    const secondary = secondaryNames.map((name) => {
      const declared: SecondaryDefinition = definition.secondary[name];
      const source: SecondarySource = { keysFor: (object) => declared.keysFor(object, indexReader) };
      const informer = context.informers.informer<KubeObject>({
        name: declared.name,
        cluster: 'virtual',
        resource: declared.type,
        ...(declared.transform !== undefined ? { transform: declared.transform } : {}),
      });
      secondaryInformers.set(name, informer);
      return { informer, source };
    });
    const hostInformer = context.informers.informer<V>({
      name: definition.host.name,
      cluster: 'host',
      resource: resource.type,
      namespace: context.hostWatchNamespace,
      labelSelector: `${LABEL_MANAGED_BY}=${context.vclusterName}`,
      transform: (definition.host.transform ?? hostCopyTransform)(() => state.patcher.readsHost),
    });
    const reconciler = new ToHostReconciler<V>({
      resource,
      virtualCache: virtualInformer,
      hostCache: hostInformer,
      virtualClient: context.virtualClient,
      hostClient: context.hostClient,
      state,
      logger: context.logger,
      ...(context.importer !== undefined ? { importer: context.importer } : {}),
    });
    const controller = new ToHostController<V>({
      kind: resource,
      reconciler,
      virtualInformer,
      hostInformer,
      secondary: secondary.map(({ informer, source }) => ({ informer, source })),
      queue: new RateLimitingWorkQueue({ name: resource.name, metrics: context.kubeMetrics }),
      events: context.events,
      metrics: context.controllerMetrics,
      logger: context.logger,
      ...(context.workers !== undefined ? { workers: context.workers } : {}),
    });
    const informers = new Map<string, Informer<KubeObject>>([
      [virtualInformer.name, virtualInformer as unknown as Informer<KubeObject>],
      ...secondary.map(({ informer }): [string, Informer<KubeObject>] => [informer.name, informer]),
      [hostInformer.name, hostInformer as unknown as Informer<KubeObject>],
    ]);
    return {
      reconciler,
      controller,
      informers,
      index,
      updateState(next: SyncState): void {
        state = next;
        reconciler.updateState(next);
        controller.enqueueAll();
      },
      async run(signal: AbortSignal): Promise<void> {
        // Every worker and wait of this run listens on one signal: a signal of its own with a
        // raised bound (not 0, so a listener leaked per request would still warn) keeps Node's
        // MaxListenersExceededWarning away without touching the caller's signal.
        const run = new AbortController();
        setMaxListeners(100, run.signal);
        const stop = (): void => run.abort(signal.reason);
        if (signal.aborted) stop();
        else signal.addEventListener('abort', stop, { once: true });
        try {
          await controller.run(run.signal);
        } finally {
          signal.removeEventListener('abort', stop);
        }
      },
    };
  };
}
