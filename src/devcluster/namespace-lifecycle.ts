import { forbidden, isJsonObject, type JsonObject, notFound } from '../apimachinery/index.js';
import type { CreateAdmission, KindStrategy, ResourceType, Storage } from '../apiserver/index.js';

/** The finalizer of spec.finalizers that the namespace controller removes once the namespace is empty. */
export const NAMESPACE_FINALIZER = 'kubernetes';

/** The label every Namespace carries with its own name. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** Namespaces that can never be deleted, as the NamespaceLifecycle admission plugin's immortal namespaces. */
export const PROTECTED_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public'];

/** What {@link NamespaceLifecycle} works on. */
export interface NamespaceLifecycleInit {
  storage: Storage;
  /** The Namespace resource, read when first needed. */
  namespaces: () => ResourceType;
}

/** The spec.finalizers of a Namespace (empty when it has none). */
export function namespaceFinalizers(namespace: JsonObject): string[] {
  const spec = namespace['spec'];
  const finalizers = isJsonObject(spec) ? spec['finalizers'] : undefined;
  return Array.isArray(finalizers) ? finalizers.filter((finalizer): finalizer is string => typeof finalizer === 'string') : [];
}

/**
 * The Namespace strategy of the real registry: the name label on every write; on create the phase
 * Active and the `kubernetes` finalizer in spec.finalizers, which only the namespace controller
 * removes (updates keep the stored spec.finalizers); a DELETE marks the namespace Terminating,
 * and it goes once no finalizer of spec or metadata holds it.
 */
export const NAMESPACE_STRATEGY: KindStrategy = {
  prepareForWrite: (object, old) => {
    const metadata = object['metadata'] as JsonObject;
    const labels = isJsonObject(metadata['labels']) ? metadata['labels'] : {};
    if (typeof metadata['name'] === 'string') metadata['labels'] = { ...labels, [NAMESPACE_NAME_LABEL]: metadata['name'] };
    const spec = isJsonObject(object['spec']) ? { ...object['spec'] } : {};
    if (old === undefined) {
      object['status'] = { phase: 'Active' };
      const finalizers = namespaceFinalizers(object);
      spec['finalizers'] = finalizers.includes(NAMESPACE_FINALIZER) ? finalizers : [...finalizers, NAMESPACE_FINALIZER];
    } else {
      const kept = namespaceFinalizers(old);
      if (kept.length > 0) spec['finalizers'] = kept;
      else delete spec['finalizers'];
    }
    object['spec'] = spec;
    return [];
  },
  markForDeletion: (object) => {
    object['status'] = { ...(isJsonObject(object['status']) ? object['status'] : {}), phase: 'Terminating' };
    // The namespace registry marks without a grace period, unlike the generic store.
    delete (object['metadata'] as JsonObject)['deletionGracePeriodSeconds'];
  },
  heldByKindFinalizers: (object) => namespaceFinalizers(object).length > 0,
};

/**
 * The NamespaceLifecycle admission plugin: creates into a namespace that is missing (404) or
 * Terminating (403 NamespaceTerminating) are refused, and so is deleting a
 * {@link PROTECTED_NAMESPACES protected namespace} (403).
 */
export class NamespaceLifecycle implements CreateAdmission {
  readonly #init: NamespaceLifecycleInit;

  /** Does no I/O. */
  constructor(init: NamespaceLifecycleInit) {
    this.#init = init;
  }

  async admitCreate(type: ResourceType, namespace: string, name: string): Promise<void> {
    if (!type.namespaced) return;
    const namespaces = this.#init.namespaces();
    const stored = await this.#init.storage.get({ resource: namespaces.id, namespace: '', name: namespace });
    if (stored === undefined) throw notFound({ group: namespaces.group, resource: namespaces.plural, name: namespace });
    if (stored.metadata['deletionTimestamp'] !== undefined) {
      throw forbidden(`${type.plural} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`, {
        name,
        group: type.group,
        kind: type.plural,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
      });
    }
  }

  admitDelete(type: ResourceType, _namespace: string, name: string): Promise<void> {
    if (type.kind === 'Namespace' && type.group === '' && PROTECTED_NAMESPACES.includes(name)) {
      return Promise.reject(forbidden(`namespaces "${name}" is forbidden: this namespace may not be deleted`, { name, group: '', kind: 'namespaces' }));
    }
    return Promise.resolve();
  }
}
