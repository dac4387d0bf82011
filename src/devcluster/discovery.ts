import { RESOURCE_TYPES, resourcesOf, servedGroupVersions, type ResourceType } from './resource-registry.js';

/** The Kubernetes version the devcluster reports (kubectl 1.32 is its reference client). */
export const KUBERNETES_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0-devcluster' } as const;

/** The Content-Type of an aggregated discovery answer of `version` (`v2` or `v2beta1`). */
export function aggregatedDiscoveryContentType(version: 'v2' | 'v2beta1'): string {
  return `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`;
}

/** `GET /version`. */
export function versionInfo(): Record<string, string> {
  return {
    ...KUBERNETES_VERSION,
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

function apiGroup(group: string): Record<string, unknown> {
  const versions = servedGroupVersions()
    .filter((entry) => entry.group === group)
    .map((entry) => ({ groupVersion: `${group}/${entry.version}`, version: entry.version }));
  return { name: group, versions, preferredVersion: versions[0] };
}

/** The named groups served (not the core group), in registry order. */
export function namedGroups(): string[] {
  return [...new Set(RESOURCE_TYPES.filter((type) => type.group !== '').map((type) => type.group))];
}

/** `GET /apis`: every named group. */
export function apiGroupList(): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: namedGroups().map(apiGroup) };
}

/** `GET /apis/<group>`, or undefined when the group is not served. */
export function apiGroupDocument(group: string): Record<string, unknown> | undefined {
  if (!namedGroups().includes(group)) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group) };
}

const STATUS_VERBS = ['get', 'patch', 'update'];

/** `GET /api/v1` or `/apis/<group>/<version>`, or undefined when not served. */
export function apiResourceList(group: string, version: string): Record<string, unknown> | undefined {
  const types = resourcesOf(group, version);
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
  if (type.subresources.length > 0) {
    entry['subresources'] = type.subresources.map((subresource) => ({ subresource, responseKind, verbs: STATUS_VERBS }));
  }
  return entry;
}

function discoveryGroup(group: string): Record<string, unknown> {
  const versions = servedGroupVersions()
    .filter((entry) => entry.group === group)
    .map((entry) => ({ version: entry.version, resources: resourcesOf(group, entry.version).map(discoveryResource), freshness: 'Current' }));
  const metadata: Record<string, unknown> = { creationTimestamp: null };
  if (group !== '') metadata['name'] = group;
  return { metadata, versions };
}

/**
 * Aggregated discovery (`as=APIGroupDiscoveryList`) for `/api` (`legacy` true: the core group)
 * or `/apis` (every named group): one document with every resource, so clients need no
 * per-group-version requests.
 */
export function aggregatedDiscovery(legacy: boolean, version: 'v2' | 'v2beta1'): Record<string, unknown> {
  const groups = legacy ? [''] : namedGroups();
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}`, metadata: {}, items: groups.map(discoveryGroup) };
}
