import type { ResourceType } from '../../kube/api-path.js';

/** discovery.k8s.io/v1 endpointslices, on both sides. */
export const ENDPOINT_SLICES: ResourceType = Object.freeze({ group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices' });
