import type { RbacNeeds } from '../syncable-resource.js';

/**
 * What the Endpoints syncer needs. Virtual side, all namespaces: it watches Endpoints and the
 * Services that decide their sync, and writes labels, annotations and reverse patches back to
 * virtual Endpoints. Host side, where the copies land: it manages them whole.
 */
export const endpointsRbac: RbacNeeds = Object.freeze({
  virtual: [
    { apiGroups: [''], resources: ['endpoints'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
    { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] },
  ],
  host: [{ apiGroups: [''], resources: ['endpoints'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }],
});
