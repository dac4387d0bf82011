import { ApiError, isJsonObject, type JsonObject } from '../apimachinery/index.js';
import { type ObjectChange, type ObjectWriter, type ResourceType, rfc3339, storeFailure } from '../apiserver/index.js';
import { NAMESPACE_FINALIZER, namespaceFinalizers } from './namespace-lifecycle.js';
import type { StoreController } from './store-controllers.js';
import type { Store, StoredObject } from './storage/types.js';

/** What {@link NamespaceController} works on. */
export interface NamespaceControllerInit {
  store: Store;
  writer: ObjectWriter;
  namespaces: ResourceType;
  /** Every namespaced resource type: the contents to delete. */
  namespaced: readonly ResourceType[];
  /** Wall clock in ms since the epoch (condition transition times). */
  now: () => number;
}

/** One status condition of a Namespace. */
interface NamespaceCondition {
  type: string;
  status: 'True' | 'False';
  lastTransitionTime?: string;
  reason: string;
  message: string;
}

/** The five deletion conditions, in the real controller's order, with their "all is well" form. */
const SETTLED_CONDITIONS: readonly NamespaceCondition[] = [
  { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
  { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
  { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
  { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'All content successfully removed' },
  { type: 'NamespaceFinalizersRemaining', status: 'False', reason: 'ContentHasNoFinalizers', message: 'All content-preserving finalizers finished' },
];

/** What is left in a namespace after a pass: instances per resource, instances per finalizer. */
interface Remaining {
  byResource: Map<string, number>;
  byFinalizer: Map<string, number>;
}

/**
 * The conditions a Terminating namespace shows after a pass of the namespace controller (`remaining`
 * what the pass could not delete yet), as the real namespace condition updater writes them;
 * `previous` keeps the transition time of conditions that did not change. Pure.
 */
export function namespaceConditions(remaining: Remaining, previous: readonly NamespaceCondition[], now: string): NamespaceCondition[] {
  const counted = (counts: Map<string, number>, format: (name: string, count: number) => string): string =>
    [...counts.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, count]) => format(name, count))
      .join(', ');
  return SETTLED_CONDITIONS.map((settled) => {
    let condition = { ...settled };
    if (settled.type === 'NamespaceContentRemaining' && remaining.byResource.size > 0) {
      condition = { type: settled.type, status: 'True', reason: 'SomeResourcesRemain', message: `Some resources are remaining: ${counted(remaining.byResource, (resource, count) => `${resource} has ${count} resource instances`)}` };
    }
    if (settled.type === 'NamespaceFinalizersRemaining' && remaining.byFinalizer.size > 0) {
      condition = {
        type: settled.type,
        status: 'True',
        reason: 'SomeFinalizersRemain',
        message: `Some content in the namespace has finalizers remaining: ${counted(remaining.byFinalizer, (finalizer, count) => `${finalizer} in ${count} resource instances`)}`,
      };
    }
    const before = previous.find((old) => old.type === settled.type);
    const unchanged = before !== undefined && before.status === condition.status && before.lastTransitionTime !== undefined;
    return { type: condition.type, status: condition.status, lastTransitionTime: unchanged ? before.lastTransitionTime : now, reason: condition.reason, message: condition.message };
  });
}

/**
 * The namespace controller of kube-controller-manager, as a devcluster controller: for a
 * Terminating namespace that still has the `kubernetes` finalizer, it deletes every object in
 * it (Background propagation, so objects with finalizers stay until those are removed), writes
 * the deletion conditions, and once nothing is left removes the `kubernetes` finalizer as the
 * finalize subresource does, which deletes the namespace when no other finalizer holds it. It
 * looks again whenever an object in a Terminating namespace changes or goes.
 */
export class NamespaceController implements StoreController {
  readonly name = 'namespace-controller';
  readonly #init: NamespaceControllerInit;
  readonly #terminating = new Set<string>();

  /** Does no I/O. */
  constructor(init: NamespaceControllerInit) {
    this.#init = init;
  }

  observe(event: ObjectChange): readonly string[] {
    if (event.resource === this.#init.namespaces.id) {
      const name = event.object.metadata.name;
      if (event.type === 'DELETED' || event.object.metadata['deletionTimestamp'] === undefined) {
        this.#terminating.delete(name);
        return [];
      }
      this.#terminating.add(name);
      return [name];
    }
    const namespace = event.object.metadata.namespace ?? '';
    return this.#terminating.has(namespace) && event.type !== 'ADDED' ? [namespace] : [];
  }

  async reconcile(name: string): Promise<void> {
    const { store, writer, namespaces, namespaced } = this.#init;
    const namespace = store.get({ resource: namespaces.id, namespace: '', name });
    if (namespace === undefined || namespace.metadata['deletionTimestamp'] === undefined) return;
    if (!namespaceFinalizers(namespace as JsonObject).includes(NAMESPACE_FINALIZER)) return;
    const remaining: Remaining = { byResource: new Map(), byFinalizer: new Map() };
    for (const type of namespaced) {
      for (const object of store.list(type.id, name).items) {
        if (object.metadata['deletionTimestamp'] !== undefined) continue;
        await writer.delete(type, name, object.metadata.name, { dryRun: false, propagationPolicy: 'Background' }).catch((error: unknown) => {
          // Deleted meanwhile (by the garbage collector or a client): nothing left to do.
          if (!(error instanceof ApiError && error.reason === 'NotFound')) throw error;
        });
      }
      const left = store.list(type.id, name).items;
      if (left.length > 0) remaining.byResource.set(`${type.plural}.${type.group}`, left.length);
      for (const object of left) {
        const finalizers = object.metadata['finalizers'];
        for (const finalizer of Array.isArray(finalizers) ? finalizers : []) remaining.byFinalizer.set(String(finalizer), (remaining.byFinalizer.get(String(finalizer)) ?? 0) + 1);
      }
    }
    const latest = await this.#writeConditions(name, remaining);
    if (remaining.byResource.size === 0 && latest !== undefined) await this.#finalize(latest);
  }

  /** Writes the deletion conditions through the status subresource; answers the namespace as stored. */
  async #writeConditions(name: string, remaining: Remaining): Promise<StoredObject | undefined> {
    const { store, writer, namespaces, now } = this.#init;
    const current = store.get({ resource: namespaces.id, namespace: '', name });
    if (current === undefined) return undefined;
    const status = isJsonObject(current['status']) ? current['status'] : {};
    const previous = Array.isArray(status['conditions']) ? (status['conditions'] as NamespaceCondition[]) : [];
    const conditions = namespaceConditions(remaining, previous, rfc3339(now()));
    const body = { ...current, status: { ...status, phase: 'Terminating', conditions } };
    const { object } = await writer.update(namespaces, '', name, body, { dryRun: false, subresource: 'status' });
    return object;
  }

  /** The finalize subresource: spec.finalizers without `kubernetes`; with no finalizer left the namespace goes. */
  async #finalize(namespace: StoredObject): Promise<void> {
    const { store, namespaces } = this.#init;
    const ref = { resource: namespaces.id, namespace: '', name: namespace.metadata.name };
    const preconditions = { resourceVersion: namespace.metadata.resourceVersion ?? '' };
    const specFinalizers = namespaceFinalizers(namespace as JsonObject).filter((finalizer) => finalizer !== NAMESPACE_FINALIZER);
    const metadataFinalizers = namespace.metadata['finalizers'];
    try {
      if (specFinalizers.length === 0 && !(Array.isArray(metadataFinalizers) && metadataFinalizers.length > 0)) {
        await store.delete(ref, preconditions);
        return;
      }
      const spec = { ...(isJsonObject(namespace['spec']) ? namespace['spec'] : {}) };
      if (specFinalizers.length > 0) spec['finalizers'] = specFinalizers;
      else delete spec['finalizers'];
      await store.update(namespaces.id, { ...namespace, spec }, preconditions);
    } catch (error: unknown) {
      throw storeFailure(error, namespaces, namespace.metadata.name);
    }
  }
}
