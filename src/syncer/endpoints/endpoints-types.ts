import type { KubeObject } from '../../kube/kube-object.js';

/** core/v1 ObjectReference, as found in an Endpoints address's targetRef. */
export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** core/v1 EndpointAddress. */
export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
}

/** core/v1 EndpointPort. */
export interface EndpointPort {
  name?: string;
  port: number;
  protocol?: string;
  appProtocol?: string;
}

/** core/v1 EndpointSubset. */
export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

/** core/v1 Endpoints: the resource this syncer copies to the host. */
export interface Endpoints extends KubeObject {
  subsets?: EndpointSubset[];
}

/** The slice of core/v1 Service the Endpoints syncer reads: whether it has a selector. */
export interface Service extends KubeObject {
  spec?: { selector?: Record<string, string> | null; [field: string]: unknown };
}
