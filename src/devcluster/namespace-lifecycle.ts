import { forbidden, notFound } from '../apiserver/api-error.js';
import type { CreateAdmission, JsonObject, KindStrategy } from '../apiserver/kind-strategy.js';
import { storeFailure } from '../apiserver/object-writer.js';
import type { ResourceType } from '../apiserver/resource-type.js';
import { StorageError, type Storage } from '../apiserver/storage.js';
import type { Logger } from '../observe/logger.js';
import { defaultNamespace } from './kind-rules.js';

/** What {@link NamespaceLifecycle} works on. */
export interface NamespaceLifecycleInit {
  storage: Storage;
  /** The Namespace resource and every namespaced resource, read when first needed. */
  resources: () => { namespaces: ResourceType; namespaced: readonly ResourceType[] };
  logger: Logger;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Namespaces' lifecycle in the devcluster, which has no namespace controller: the Namespace
 * strategy (defaults; deletion empties the namespace at once, its contents' finalizers are not
 * waited for; a namespace its own finalizers keep is marked Terminating) and the admission that
 * refuses creates into a namespace that is missing (404) or being deleted (403), as the
 * NamespaceLifecycle admission plugin does.
 */
export class NamespaceLifecycle implements CreateAdmission {
  readonly #init: NamespaceLifecycleInit;
  readonly #terminating = new Set<string>();

  /** The strategy of the Namespace kind. */
  readonly strategy: KindStrategy = {
    prepareForWrite: (object) => {
      defaultNamespace(object);
      return [];
    },
    beforeDelete: (namespace) => this.#empty(namespace.metadata.name),
    markForDeletion: (object) => {
      object['status'] = { ...(isObject(object['status']) ? object['status'] : {}), phase: 'Terminating' };
    },
  };

  /** Does no I/O. */
  constructor(init: NamespaceLifecycleInit) {
    this.#init = init;
  }

  async admitCreate(type: ResourceType, namespace: string): Promise<void> {
    if (!type.namespaced) return;
    const namespaces = this.#init.resources().namespaces;
    const stored = await this.#init.storage.get({ resource: namespaces.id, namespace: '', name: namespace });
    if (stored === undefined) throw notFound({ group: namespaces.group, resource: namespaces.plural, name: namespace });
    if (this.#terminating.has(namespace) || stored.metadata['deletionTimestamp'] !== undefined) {
      throw forbidden(`unable to create new content in namespace ${namespace} because it is being terminated`, {
        name: namespace,
        group: '',
        kind: 'namespaces',
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
      });
    }
  }

  async #empty(namespace: string): Promise<void> {
    const storage = this.#init.storage;
    this.#terminating.add(namespace);
    try {
      for (const type of this.#init.resources().namespaced) {
        for (const object of (await storage.list(type.id, { namespace })).items) {
          try {
            await storage.delete({ resource: type.id, namespace, name: object.metadata.name });
          } catch (error: unknown) {
            // Already gone (deleted concurrently): nothing left to do for this object.
            if (!(error instanceof StorageError && error.code === 'NotFound')) throw storeFailure(error, type, object.metadata.name);
          }
        }
      }
      this.#init.logger.debug({ namespace }, 'Namespace contents deleted');
    } finally {
      this.#terminating.delete(namespace);
    }
  }
}

