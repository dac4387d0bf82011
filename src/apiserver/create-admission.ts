import type { ResourceType } from './resource-type.js';

/**
 * Admission of creates (run after validation and before the write) and of deletes (run first):
 * the place for rules about where an object may be created and what may not be deleted, like
 * the NamespaceLifecycle admission plugin.
 */
export interface CreateAdmission {
  /**
   * Throws an `ApiError` (403, 404) when an object of `type` may not be created in `namespace`.
   * `name` is the object's name, or its generateName while the name is still to be generated.
   */
  admitCreate(type: ResourceType, namespace: string, name: string): Promise<void>;
  /** Throws an `ApiError` (403) when the object `name` of `type` may not be deleted. */
  admitDelete?(type: ResourceType, namespace: string, name: string): Promise<void>;
}
