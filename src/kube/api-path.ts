/** Identifies a resource type on the API server, e.g. `{ version: 'v1', resource: 'endpoints' }`. */
export interface ResourceType {
  /** API group; `''` or absent for the core group. */
  group?: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** Plural resource name, e.g. `endpoints`, `leases`. */
  resource: string;
}

/** The core/v1 and coordination.k8s.io/v1 types this folder itself uses. */
export const CoreResources = Object.freeze({
  endpoints: { version: 'v1', resource: 'endpoints' },
  services: { version: 'v1', resource: 'services' },
  namespaces: { version: 'v1', resource: 'namespaces' },
  configMaps: { version: 'v1', resource: 'configmaps' },
  secrets: { version: 'v1', resource: 'secrets' },
  events: { version: 'v1', resource: 'events' },
  pods: { version: 'v1', resource: 'pods' },
  leases: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' },
} as const satisfies Record<string, ResourceType>);

/**
 * The API path of a collection: `/api/v1/namespaces/<ns>/<resource>` for the core group,
 * `/apis/<group>/<version>/…` otherwise; without `namespace` (or with `''`) the cluster-wide
 * collection. Path segments are URI-encoded.
 */
export function collectionPath(type: ResourceType, namespace?: string): string {
  const base = type.group === undefined || type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const scope = namespace === undefined || namespace === '' ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  return `${base}${scope}/${type.resource}`;
}

/** The API path of one object (optionally a subresource such as `status`) in {@link collectionPath}. */
export function objectPath(type: ResourceType, namespace: string | undefined, name: string, subresource?: string): string {
  const path = `${collectionPath(type, namespace)}/${encodeURIComponent(name)}`;
  return subresource === undefined ? path : `${path}/${subresource}`;
}
