import type { KubeObject } from '../../kube/kube-object.js';
import type { ObjectReference } from '../endpoints/endpoints-types.js';

/** discovery.k8s.io/v1 EndpointConditions. */
export interface EndpointConditions {
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

/** discovery.k8s.io/v1 ForZone (an entry of EndpointHints.forZones). */
export interface ForZone {
  name: string;
}

/** discovery.k8s.io/v1 ForNode (an entry of EndpointHints.forNodes). */
export interface ForNode {
  name: string;
}

/** discovery.k8s.io/v1 EndpointHints: topology hints for kube-proxy. */
export interface EndpointHints {
  forZones?: ForZone[];
  forNodes?: ForNode[];
}

/** discovery.k8s.io/v1 Endpoint: one backend of a slice. */
export interface SliceEndpoint {
  /** At least one address, each of the slice's addressType. */
  addresses: string[];
  conditions?: EndpointConditions;
  hostname?: string;
  targetRef?: ObjectReference;
  nodeName?: string;
  zone?: string;
  hints?: EndpointHints;
  /** Deprecated topology labels (kept for clients that still read them). */
  deprecatedTopology?: Record<string, string>;
}

/** discovery.k8s.io/v1 EndpointPort. */
export interface SlicePort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

/** The address families a slice can hold; immutable once the slice exists. */
export type AddressType = 'IPv4' | 'IPv6' | 'FQDN';

/** discovery.k8s.io/v1 EndpointSlice: the resource this syncer copies to the host. */
export interface EndpointSlice extends KubeObject {
  addressType?: AddressType | string;
  /** `null` when the server serialises an empty list (no omitempty on this field). */
  endpoints?: SliceEndpoint[] | null;
  ports?: SlicePort[] | null;
}
