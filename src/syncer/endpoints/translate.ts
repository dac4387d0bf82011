import type { EndpointAddress, EndpointSubset, ObjectReference, Service } from './endpoints-types.js';

/** The virtual → host name mapping the Endpoints translation needs for Pod targetRefs. */
export interface PodRefTranslator {
  /** Host name and namespace of the virtual Pod `namespace/name`. */
  hostRef(ref: { name: string; namespace: string }): { name: string; namespace: string };
}

/**
 * Annotations of a virtual Endpoints that are never copied to the host: the leader-election
 * record of the virtual control plane means nothing (and would fight) on the host.
 */
export const ENDPOINTS_EXCLUDED_ANNOTATIONS: readonly string[] = Object.freeze([
  'control-plane.alpha.kubernetes.io/leader',
]);

/**
 * Whether the Endpoints of this Service are the syncer's to copy: only when the virtual Service
 * exists and has no selector. With a selector, the host's own endpoints controller fills the host
 * Endpoints, and a copy would fight it.
 */
export function serviceWantsEndpointsSync(service: Service | undefined): boolean {
  if (service === undefined) return false;
  const selector = service.spec?.selector;
  return selector === undefined || selector === null || Object.keys(selector).length === 0;
}

/**
 * The host form of an endpoint's targetRef, for Endpoints addresses and EndpointSlice endpoints
 * alike: a reference of kind `Pod` points at the host Pod (name and namespace translated; a
 * namespace-less one is read as `namespace`, the endpoint object's own), its `uid` and
 * `resourceVersion` cleared because they belong to the virtual Pod; any other reference is copied
 * unchanged. Pure: returns a new object.
 */
export function hostTargetRef(ref: ObjectReference, namespace: string, pods: PodRefTranslator): ObjectReference {
  if (ref.kind !== 'Pod' || ref.name === undefined) return { ...ref };
  const host = pods.hostRef({ name: ref.name, namespace: ref.namespace ?? namespace });
  const targetRef: ObjectReference = { ...ref, name: host.name, namespace: host.namespace };
  delete targetRef.uid;
  delete targetRef.resourceVersion;
  return targetRef;
}

function translateAddress(address: EndpointAddress, namespace: string, pods: PodRefTranslator): EndpointAddress {
  const ref = address.targetRef;
  return ref === undefined ? { ...address } : { ...address, targetRef: hostTargetRef(ref, namespace, pods) };
}

/**
 * The host form of a virtual Endpoints' subsets: Pod targetRefs point at the host Pods (name and
 * namespace translated, uid and resourceVersion cleared because they belong to the virtual Pod);
 * IPs, ports and other references are copied unchanged. Pure: the input is not modified.
 */
export function translateSubsetsToHost(
  subsets: readonly EndpointSubset[] | undefined,
  namespace: string,
  pods: PodRefTranslator,
): EndpointSubset[] {
  return (subsets ?? []).map((subset) => {
    const out: EndpointSubset = {};
    if (subset.addresses !== undefined) out.addresses = subset.addresses.map((a) => translateAddress(a, namespace, pods));
    if (subset.notReadyAddresses !== undefined) {
      out.notReadyAddresses = subset.notReadyAddresses.map((a) => translateAddress(a, namespace, pods));
    }
    if (subset.ports !== undefined) out.ports = subset.ports.map((p) => ({ ...p }));
    return out;
  });
}
