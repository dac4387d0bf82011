import type { ConfigValidator } from '../config/check-config.js';
import type { ConfigSection } from '../config/config-section.js';
import type { VclusterConfig } from '../config/schema.js';
import type { ResourceType } from '../kube/api-path.js';
import type { Informer, NamedTransform } from '../kube/informer.js';
import type { KubeObject } from '../kube/kube-object.js';
import type { KubeMetrics } from '../kube/metrics.js';
import type { ListerWatcher } from '../kube/reflector.js';
import type { Logger } from '../observe/logger.js';
import type { ControllerMetrics } from './metrics.js';
import type { ReferenceImporter } from './reference-importer.js';
import type { BuildSyncStateOptions, BuildSyncStateResult, SyncState } from './sync-state.js';
import type { EventSink, ClusterWriter } from './to-host-controller.js';
import type { ToHostResource } from './to-host-resource.js';

/** Every cached object is reconciled again this often, in ms (drift repair without events): 1 h. */
export const SYNC_RESYNC_PERIOD_MS = 3_600_000;

/** Which watch a syncer needs and what it keeps of it; two syncers asking for the same share one informer. */
export interface InformerRequest {
  /** Name of the informer (metrics label, health checks); the first request's name is kept. */
  name: string;
  cluster: 'virtual' | 'host';
  resource: ResourceType;
  /** Namespace to watch; `''` or absent watches all namespaces. */
  namespace?: string;
  /** Label selector; absent selects everything. */
  labelSelector?: string;
  /** What the cache keeps of each object: only what the syncer reads. Absent: objects are cached whole. */
  transform?: NamedTransform;
}

/** Where syncers get their informers; whoever provides it runs them (the manager's shared informers). */
export interface InformerSource {
  informer<T extends KubeObject>(request: InformerRequest): Informer<T>;
}

/** What {@link SyncableResource.build} is given: clients, this resource's state, shared informers. */
export interface SyncerContext {
  virtualClient: ListerWatcher & ClusterWriter;
  hostClient: ListerWatcher & ClusterWriter;
  /** The vcluster's name: host objects are selected by `vcluster.loft.sh/managed-by=<name>`. */
  vclusterName: string;
  /** Host namespace to watch; `''` watches all namespaces (multi-namespace mode). */
  hostWatchNamespace: string;
  /** This resource's state, from its {@link SyncableResource.buildState}. */
  state: SyncState;
  events: EventSink;
  importer?: ReferenceImporter;
  /** Concurrent reconciles. */
  workers?: number;
  informers: InformerSource;
  kubeMetrics: KubeMetrics;
  controllerMetrics: ControllerMetrics;
  logger: Logger;
}

/** A built syncer of one resource; its informers are run by the {@link InformerSource}'s owner. */
export interface ResourceSyncer {
  /** Reconciles until `signal` fires (after the caches synced), then drains. */
  run(signal: AbortSignal): Promise<void>;
  /** Swaps in the state of a reloaded configuration; the next reconciles use it. */
  updateState(state: SyncState): void;
}

/**
 * One resource vcsync can sync, as vcluster's register.go lists its syncers: everything `start`,
 * `dev`, `preview` and `validate` need to know about it. A new resource is one folder exporting
 * one of these, added to `SYNCABLE_RESOURCES` (src/syncer/resources.ts).
 */
export interface SyncableResource extends ResourceDeclaration {
  /** Fixed word for logs, metrics and the queue, e.g. `endpoints`. */
  readonly name: string;
  /** The `kind` of the virtual objects it syncs; `vcsync preview` picks the resource by it. */
  readonly kind: string;
  /**
   * Whether this daemon runs the resource's syncer at all, decided once at start. A switch that a
   * reload may flip (as `sync.toHost.endpoints.enabled`) belongs in the state, not here.
   */
  enabled(config: VclusterConfig): boolean;
  /**
   * Its config checks beyond its section's own (`config.validators`, which compile its patches);
   * `validate`, start and reloads run them.
   */
  readonly validators: readonly ConfigValidator[];
  /** Its configuration-derived state (translator, compiled patches), or the patch errors. */
  buildState(options: BuildSyncStateOptions): BuildSyncStateResult;
  /** Wires its informers (from `context.informers`), queue and controller. No I/O. */
  build(context: SyncerContext): ResourceSyncer;
  /**
   * The resource as `vcsync preview` runs it, with no caches: its rules read the secondary objects
   * from `inputs` (every object given to preview, virtual namespace defaulted), and when the input
   * holds none of their kind, decide as if those objects allowed the sync (for Endpoints: a Service
   * of the same name without a selector exists).
   */
  previewResource(inputs: readonly KubeObject[]): ToHostResource<KubeObject>;
}

/** Every config check of `resources`, in order: what `validate`, start and every reload run. */
export function resourceValidators(resources: readonly SyncableResource[]): ConfigValidator[] {
  return resources.flatMap((resource) => resource.validators);
}

/** One RBAC rule, as written in a Role's or ClusterRole's `rules`. */
export interface RbacRule {
  /** API groups, `''` for the core group. */
  readonly apiGroups: readonly string[];
  /** Resource names (plural), e.g. `endpoints`. */
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/**
 * What a resource's syncer needs of each cluster's API; the deploy manifests' rules are generated
 * from these (`npm run generate`, checked by a test).
 */
export interface RbacNeeds {
  /** Virtual cluster, all namespaces: get/list/watch of its type and secondary types, and its write-back verbs. */
  readonly virtual: readonly RbacRule[];
  /** Host cluster, the host namespace (or every mapped namespace): what it writes there. */
  readonly host: readonly RbacRule[];
}

/**
 * What the registry knows of a resource without running it: its name (the metrics label), its
 * config section and its RBAC needs. Every {@link SyncableResource} is one; a resource whose
 * syncer is not registered yet may be declared alone, so its section is checked and defaulted.
 */
export interface ResourceDeclaration {
  /** Fixed word for logs, metrics (the `controller` label) and the queue, e.g. `endpoints`. */
  readonly name: string;
  /** Its section `sync.toHost.<key>`: schema fragment, defaults, rules, validators. */
  readonly config: ConfigSection;
  /** What it needs of the virtual and the host API. */
  readonly rbac: RbacNeeds;
}
