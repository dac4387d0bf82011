import { hostTargetRef, type PodRefTranslator } from '../endpoints/translate.js';
import type { EndpointSlice, SliceEndpoint, SlicePort } from './endpointslice-types.js';
import { LABEL_SERVICE_NAME, LABEL_SLICE_MANAGED_BY, VCSYNC_SLICE_MANAGER } from './slice-keys.js';

/** The fields of a host slice that come from the virtual slice (besides metadata). */
export interface HostSliceFields {
  addressType?: string;
  endpoints?: SliceEndpoint[];
  ports?: SlicePort[];
}

/** The Service a slice belongs to: the value of its `kubernetes.io/service-name` label, if any. */
export function sliceServiceName(slice: EndpointSlice): string | undefined {
  const name = slice.metadata?.labels?.[LABEL_SERVICE_NAME];
  return name === undefined || name === '' ? undefined : name;
}

/**
 * The host form of a virtual slice's endpoints: each `targetRef` of kind Pod points at the host
 * Pod, the rest (addresses, conditions, hostname, nodeName, zone, hints, deprecatedTopology) is
 * copied unchanged. `namespace` is the slice's virtual namespace. Pure: the input is not modified.
 */
export function translateSliceEndpointsToHost(
  endpoints: readonly SliceEndpoint[] | null | undefined,
  namespace: string,
  pods: PodRefTranslator,
): SliceEndpoint[] {
  return (endpoints ?? []).map((endpoint) => {
    const copy: SliceEndpoint = structuredClone(endpoint);
    if (endpoint.targetRef !== undefined) copy.targetRef = hostTargetRef(endpoint.targetRef, namespace, pods);
    return copy;
  });
}

/**
 * Every field of the host slice other than metadata: `addressType`, the translated `endpoints`
 * ({@link translateSliceEndpointsToHost}) and `ports`, copied again on every sync (host drift is
 * overwritten). Empty lists are left out (the API server reads absent and empty alike). Pure.
 */
export function hostSliceFields(virtual: EndpointSlice, pods: PodRefTranslator): HostSliceFields {
  const fields: HostSliceFields = {};
  if (virtual.addressType !== undefined) fields.addressType = virtual.addressType;
  const endpoints = translateSliceEndpointsToHost(virtual.endpoints, virtual.metadata?.namespace ?? '', pods);
  if (endpoints.length > 0) fields.endpoints = endpoints;
  if (virtual.ports !== undefined && virtual.ports !== null && virtual.ports.length > 0) fields.ports = virtual.ports.map((port) => ({ ...port }));
  return fields;
}

/**
 * The labels vcsync sets on a host slice over the copied ones: `kubernetes.io/service-name` is the
 * host Service's real name (`hostServiceName`, the translator's name of the virtual Service, so a
 * long name that the translator hashes still matches the host Service; left out when the slice
 * names no Service), and `endpointslice.kubernetes.io/managed-by` is vcsync's own value, never a
 * host controller's.
 */
export function hostSliceLabels(hostServiceName: string | undefined): Record<string, string> {
  const labels: Record<string, string> = { [LABEL_SLICE_MANAGED_BY]: VCSYNC_SLICE_MANAGER };
  if (hostServiceName !== undefined) labels[LABEL_SERVICE_NAME] = hostServiceName;
  return labels;
}
