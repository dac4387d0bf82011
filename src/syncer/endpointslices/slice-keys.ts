/**
 * The Kubernetes label keys and values the EndpointSlices syncer reads and writes, in one place.
 */

/** Label naming the Service a slice belongs to (in the slice's namespace); kube-proxy routes by it. */
export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';

/** Label naming the controller or entity that manages a slice. */
export const LABEL_SLICE_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';

/**
 * vcsync's value of {@link LABEL_SLICE_MANAGED_BY} on every host copy: not one of the host
 * controllers' values ({@link HOST_SLICE_CONTROLLERS}), which each garbage-collect or rewrite the
 * slices labelled with their own value, so neither treats a copy as its own.
 */
export const VCSYNC_SLICE_MANAGER = 'vcsync.vcluster.loft.sh';

/** The managed-by values of kube-controller-manager's EndpointSlice and EndpointSlice-mirroring controllers. */
export const HOST_SLICE_CONTROLLERS: readonly string[] = Object.freeze([
  'endpointslice-controller.k8s.io',
  'endpointslicemirroring-controller.k8s.io',
]);
