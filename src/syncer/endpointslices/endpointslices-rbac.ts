import type { RbacNeeds } from '../syncable-resource.js';

/**
 * What the EndpointSlices syncer needs. Virtual side, all namespaces: it watches slices and the
 * Services their `kubernetes.io/service-name` label names, and writes labels, annotations and
 * reverse patches back to virtual slices. Host side, where the copies land: it manages them whole.
 */
export const endpointSlicesRbac: RbacNeeds = Object.freeze({
  virtual: [
    { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch', 'update', 'patch'] },
    { apiGroups: [''], resources: ['services'], verbs: ['get', 'list', 'watch'] },
  ],
  host: [{ apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }],
});
