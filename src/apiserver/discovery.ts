import type { ResourceRegistry, ResourceType } from './resource-type.js';

/** The version a server reports on `GET /version` (and in its OpenAPI documents). */
export interface ServerVersion {
  readonly major: string;
  readonly minor: string;
  /** e.g. `v1.32.0-devcluster`. */
  readonly gitVersion: string;
}

/** The Content-Type of an aggregated discovery answer of `version` (`v2` or `v2beta1`). */
export function aggregatedDiscoveryContentType(version: 'v2' | 'v2beta1'): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

/**
 * `GET /version`, with the fields of the real server in its order: the emulated version is the
 * server's own, and it stays compatible with the minor version before it (the real defaults).
 */
export function versionInfo(version: ServerVersion): Record<string, string> {
  return {
    major: version.major,
    minor: version.minor,
    emulationMajor: version.major,
    emulationMinor: version.minor,
    minCompatibilityMajor: version.major,
    minCompatibilityMinor: String(Number.parseInt(version.minor, 10) - 1),
    gitVersion: version.gitVersion,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2025-01-01T00:00:00Z',
    goVersion: 'go1.23.0',
    compiler: 'gc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

/** `GET /api`: the legacy core group's versions. */
export function apiVersions(serverAddress: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

function apiGroup(registry: ResourceRegistry, group: string): Record<string, unknown> {
  const versions = registry
    .servedGroupVersions()
    .filter((entry) => entry.group === group)
    .map((entry) => ({ groupVersion: `${group}/${entry.version}`, version: entry.version }));
  return { name: group, versions, preferredVersion: versions[0] };
}

/** `GET /apis`: every named group. */
export function apiGroupList(registry: ResourceRegistry): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: registry.namedGroups().map((group) => apiGroup(registry, group)) };
}

/** `GET /apis/<group>`, or undefined when the group is not served. */
export function apiGroupDocument(registry: ResourceRegistry, group: string): Record<string, unknown> | undefined {
  if (!registry.namedGroups().includes(group)) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(registry, group) };
}

const STATUS_VERBS = ['get', 'patch', 'update'];

/** `GET /api/v1` or `/apis/<group>/<version>`, or undefined when not served. */
export function apiResourceList(registry: ResourceRegistry, group: string, version: string): Record<string, unknown> | undefined {
  const types = registry.resourcesOf(group, version);
  if (types.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const type of types) {
    const entry: Record<string, unknown> = { name: type.plural, singularName: type.singular, namespaced: type.namespaced, kind: type.kind, verbs: [...type.verbs] };
    if (type.shortNames.length > 0) entry['shortNames'] = [...type.shortNames];
    if (type.categories.length > 0) entry['categories'] = [...type.categories];
    resources.push(entry);
    for (const subresource of type.subresources) {
      resources.push({ name: `${type.plural}/${subresource}`, singularName: '', namespaced: type.namespaced, kind: type.kind, verbs: STATUS_VERBS });
    }
    for (const [action, actionType] of type.actions) {
      resources.push({ name: `${type.plural}/${action}`, singularName: '', namespaced: type.namespaced, kind: actionType.kind, verbs: ['create'] });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group === '' ? version : `${group}/${version}`, resources };
}

function discoveryResource(type: ResourceType): Record<string, unknown> {
  const responseKind = { group: type.group, version: type.version, kind: type.kind };
  const entry: Record<string, unknown> = {
    resource: type.plural,
    responseKind,
    scope: type.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: type.singular,
    verbs: [...type.verbs],
  };
  if (type.shortNames.length > 0) entry['shortNames'] = [...type.shortNames];
  if (type.categories.length > 0) entry['categories'] = [...type.categories];
  const subresources = [
    ...type.subresources.map((subresource) => ({ subresource, responseKind, verbs: STATUS_VERBS })),
    ...[...type.actions].map(([subresource, action]) => ({ subresource, responseKind: { group: type.group, version: type.version, kind: action.kind }, verbs: ['create'] })),
  ];
  if (subresources.length > 0) entry['subresources'] = subresources;
  return entry;
}

function discoveryGroup(registry: ResourceRegistry, group: string): Record<string, unknown> {
  const versions = registry
    .servedGroupVersions()
    .filter((entry) => entry.group === group)
    .map((entry) => ({ version: entry.version, resources: registry.resourcesOf(group, entry.version).map(discoveryResource), freshness: 'Current' }));
  const metadata: Record<string, unknown> = { creationTimestamp: null };
  if (group !== '') metadata['name'] = group;
  return { metadata, versions };
}

/**
 * Aggregated discovery (`as=APIGroupDiscoveryList`) for `/api` (`legacy` true: the core group)
 * or `/apis` (every named group): one document with every resource, so clients need no
 * per-group-version requests.
 */
export function aggregatedDiscovery(registry: ResourceRegistry, legacy: boolean, version: 'v2' | 'v2beta1'): Record<string, unknown> {
  const groups = legacy ? [''] : registry.namedGroups();
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items: groups.map((group) => discoveryGroup(registry, group)) };
}
