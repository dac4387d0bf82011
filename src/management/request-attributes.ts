/**
 * What the authorizer knows of a request: the fields of the apiserver core's parsed
 * `ResourceRequest` (request-info.ts), the path for non-resource requests, and where the request
 * goes (its target), which the scope entries need.
 */
import type { ResourceRequest } from '../apiserver/index.js';

/**
 * Where a request goes. This server answers `Management` requests only; the other kinds describe
 * requests a platform proxies to a connected cluster or a virtual cluster, so that a scope's
 * meaning is complete (and testable) even where this server has nothing to proxy.
 */
export type RequestTarget =
  | {
      kind: 'Management';
      /** The project the addressed management object belongs to, when it belongs to one. */
      project?: string;
      /** The space (of `project`) the object is about, when it is about one. */
      space?: string;
      /** The virtual cluster (of `project`) the object is about (a VirtualClusterInstance and its kubeconfig). */
      virtualCluster?: string;
    }
  | {
      kind: 'Cluster';
      cluster: string;
      /** When the request goes into a project's space (a namespace of `cluster`): the project and the space. */
      project?: string;
      space?: string;
    }
  | {
      kind: 'VirtualCluster';
      /** The virtual cluster's name and its namespace on the host. */
      name: string;
      namespace: string;
      /** The project the virtual cluster belongs to, when it belongs to one. */
      project?: string;
    };

/** One request as the authorizer sees it; the fields follow the real server's `RequestInfo`. */
export interface RequestAttributes {
  /**
   * For resource requests the Kubernetes verb (`get`, `list`, `watch`, `create`, `update`,
   * `patch`, `delete`, `deletecollection`); for non-resource requests the lower-case HTTP method
   * (`get`, `post`, `put`, `patch`, `delete`, `head`).
   */
  verb: string;
  isResourceRequest: boolean;
  /** The URL path without the server's base path (e.g. `/apis/management.loft.sh/v1/ownedaccesskeys`). */
  path: string;
  /** API group; '' is the core group. Empty for non-resource requests. */
  apiGroup: string;
  /** Resource plural, e.g. `ownedaccesskeys`. Empty for non-resource requests. */
  resource: string;
  /** Subresource, e.g. `status`; '' for the main resource. */
  subresource: string;
  /** '' for cluster-scoped resources and for lists across all namespaces. */
  namespace: string;
  /** '' for collection requests. */
  name: string;
  target: RequestTarget;
}

/** The attributes of a resource request the apiserver core parsed; `target` defaults to `Management`. */
export function resourceAttributes(request: ResourceRequest, path: string, target: RequestTarget = { kind: 'Management' }): RequestAttributes {
  return {
    verb: request.verb,
    isResourceRequest: true,
    path,
    apiGroup: request.type.group,
    resource: request.type.plural,
    subresource: request.subresource ?? '',
    namespace: request.namespace,
    name: request.name,
    target,
  };
}

/** The attributes of a non-resource request (discovery, OpenAPI, `/version`): verb is the lower-case method. */
export function nonResourceAttributes(method: string, path: string, target: RequestTarget = { kind: 'Management' }): RequestAttributes {
  return { verb: method.toLowerCase(), isResourceRequest: false, path, apiGroup: '', resource: '', subresource: '', namespace: '', name: '', target };
}

/** The namespace prefix of a project's namespace in the reference platform (`loft-p-<project>`). */
const PROJECT_NAMESPACE_PREFIX = 'loft-p-';

/**
 * Where a management request goes: a VirtualClusterInstance (and its kube config) is about the
 * virtual cluster it names, in the project of its namespace (`loft-p-<project>` as in the
 * reference platform, else the namespace itself); anything else is about no project.
 */
export function managementTarget(request: ResourceRequest): RequestTarget {
  if (request.type.plural !== 'virtualclusterinstances' || request.name === '') return { kind: 'Management' };
  const project = request.namespace.startsWith(PROJECT_NAMESPACE_PREFIX) ? request.namespace.slice(PROJECT_NAMESPACE_PREFIX.length) : request.namespace;
  return { kind: 'Management', virtualCluster: request.name, project };
}
