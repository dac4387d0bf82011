import type { ResourceId } from './storage/types.js';
import { columnsFor, type TableColumn } from './table-columns.js';

import type { NameRule } from '../apiserver/metadata-validation.js';

export type { NameRule } from '../apiserver/metadata-validation.js';

/** The verbs of one resource as discovery advertises them. */
export type Verb = 'create' | 'delete' | 'deletecollection' | 'get' | 'list' | 'patch' | 'update' | 'watch';

/**
 * One served resource: everything discovery, OpenAPI, routing and the write rules need to know.
 * The devcluster serves exactly the resources of {@link RESOURCE_TYPES}.
 */
export interface ResourceType {
  /** The store partition, `<group or core>/<version>/<plural>`. */
  readonly id: ResourceId;
  /** '' for the core group. */
  readonly group: string;
  readonly version: string;
  /** `v1` or `<group>/<version>`: the objects' apiVersion. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly listKind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly namespaced: boolean;
  readonly verbs: readonly Verb[];
  /** Subresources served (only `status` here). */
  readonly subresources: readonly 'status'[];
  /** PUT on a missing object creates it (Kubernetes' AllowCreateOnUpdate). */
  readonly allowCreateOnUpdate: boolean;
  /** DELETE answers the deleted object rather than a Success Status. */
  readonly returnDeletedObject: boolean;
  readonly nameRule: NameRule;
  /** The columns of the Table view (`kubectl get`). */
  readonly columns: readonly TableColumn[];
}

const ALL_VERBS: readonly Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

interface ResourceSpec {
  group: string;
  version: string;
  kind: string;
  plural: string;
  shortNames?: readonly string[];
  categories?: readonly string[];
  namespaced?: boolean;
  verbs?: readonly Verb[];
  subresources?: readonly 'status'[];
  allowCreateOnUpdate?: boolean;
  returnDeletedObject?: boolean;
  nameRule?: NameRule;
}

function resourceType(spec: ResourceSpec): ResourceType {
  const apiVersion = spec.group === '' ? spec.version : `${spec.group}/${spec.version}`;
  return Object.freeze({
    id: `${spec.group === '' ? 'core' : spec.group}/${spec.version}/${spec.plural}`,
    group: spec.group,
    version: spec.version,
    apiVersion,
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    plural: spec.plural,
    singular: spec.kind.toLowerCase(),
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    namespaced: spec.namespaced ?? true,
    verbs: spec.verbs ?? ALL_VERBS,
    subresources: spec.subresources ?? [],
    allowCreateOnUpdate: spec.allowCreateOnUpdate ?? false,
    returnDeletedObject: spec.returnDeletedObject ?? false,
    nameRule: spec.nameRule ?? 'dns1123-subdomain',
    columns: columnsFor(spec.kind),
  });
}

/** Every resource the devcluster serves, in discovery order. */
export const RESOURCE_TYPES: readonly ResourceType[] = Object.freeze([
  resourceType({
    group: '',
    version: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    shortNames: ['ns'],
    namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: ['status'],
    returnDeletedObject: true,
    nameRule: 'dns1123-label',
  }),
  resourceType({
    group: '',
    version: 'v1',
    kind: 'Service',
    plural: 'services',
    shortNames: ['svc'],
    categories: ['all'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    subresources: ['status'],
    allowCreateOnUpdate: true,
    returnDeletedObject: true,
    nameRule: 'dns1035-label',
  }),
  resourceType({ group: '', version: 'v1', kind: 'Endpoints', plural: 'endpoints', shortNames: ['ep'], allowCreateOnUpdate: true }),
  resourceType({
    group: '',
    version: 'v1',
    kind: 'Pod',
    plural: 'pods',
    shortNames: ['po'],
    categories: ['all'],
    subresources: ['status'],
    returnDeletedObject: true,
  }),
  resourceType({ group: '', version: 'v1', kind: 'Secret', plural: 'secrets' }),
  resourceType({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', shortNames: ['cm'] }),
  resourceType({ group: '', version: 'v1', kind: 'Event', plural: 'events', shortNames: ['ev'], allowCreateOnUpdate: true }),
  resourceType({ group: '', version: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', shortNames: ['sa'], allowCreateOnUpdate: true }),
  resourceType({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', allowCreateOnUpdate: true }),
  resourceType({ group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice', plural: 'endpointslices' }),
]);

/** The resource types of one group-version, in discovery order. */
export function resourcesOf(group: string, version: string): ResourceType[] {
  return RESOURCE_TYPES.filter((type) => type.group === group && type.version === version);
}

/** The group-versions served: `[{ group, version }]`, core first. */
export function servedGroupVersions(): { group: string; version: string }[] {
  const seen = new Map<string, { group: string; version: string }>();
  for (const type of RESOURCE_TYPES) seen.set(type.apiVersion, { group: type.group, version: type.version });
  return [...seen.values()];
}

/** Looks a resource up by group, version and plural; undefined when not served. */
export function findResource(group: string, version: string, plural: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((type) => type.group === group && type.version === version && type.plural === plural);
}

/** The Namespace resource type (namespaces are special: they scope everything else). */
export const NAMESPACE_TYPE: ResourceType = RESOURCE_TYPES[0] as ResourceType;
