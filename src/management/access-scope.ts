/**
 * The `scope` of an access key (shared by OwnedAccessKey.spec and
 * DirectClusterEndpointToken.spec): what a key may reach. The types mirror the wire format; what
 * each entry allows is decided by `authorization.ts` and written down in `scope-table.ts` (the
 * table in docs/management-api.md).
 */
import { isJsonObject, type StatusCause } from '../apimachinery/index.js';
import { forbiddenValue, invalidValue, requiredValue } from '../apiserver/index.js';

/** The wildcard every name field of a scope entry accepts: it selects all names. */
export const SCOPE_WILDCARD = '*';

/** One `roles` entry: a named set of managed permissions, optionally narrowed to projects and virtual clusters. */
export interface ScopeRole {
  role: string;
  /** Projects the role applies to; empty or absent means every project. */
  projects?: string[];
  /** Virtual clusters the role applies to; empty or absent means every virtual cluster. */
  virtualClusters?: string[];
}

/** One `projects` entry; `*` selects every project. */
export interface ScopeProject {
  project: string;
}

/** One `spaces` entry: a space of a project; `*` selects every space. */
export interface ScopeSpace {
  project: string;
  space: string;
}

/** One `virtualClusters` entry: a virtual cluster of a project; `*` selects every virtual cluster. */
export interface ScopeVirtualCluster {
  project: string;
  virtualCluster: string;
}

/** One `clusters` entry; `*` selects every cluster. */
export interface ScopeCluster {
  cluster: string;
}

/** One `rules[].resources` entry: resources of one API group. */
export interface ScopeRuleResources {
  /** API group; '' is the core group, `*` every group. */
  group?: string;
  /** Resource names, subresources as `name/sub`, wildcards allowed; empty means all of the group. */
  resources?: string[];
  /** Instance names; requires `resources`; empty means every instance. */
  resourceNames?: string[];
}

/** One `rules[].virtualClusters` entry; an empty field matches everything. */
export interface ScopeRuleVirtualCluster {
  name?: string;
  namespace?: string;
}

/** One deprecated `rules` entry: a request matches when every field matches. */
export interface ScopeRule {
  /** Matching verbs; empty means every verb. */
  verbs?: string[];
  /** Matching resources; empty means every kind of every group. */
  resources?: ScopeRuleResources[];
  /** Matching namespaces; '' matches requests without a namespace; empty means every namespace. */
  namespaces?: string[];
  /** Matching non-resource paths; `*` only as the whole final path step. */
  nonResourceURLs?: string[];
  /** Matching request targets (see `RequestTargetKind`); empty means every target. */
  requestTargets?: string[];
  /** When set, only cluster requests to this cluster match. */
  cluster?: string;
  /** Virtual-cluster requests must name one of these; empty means no restriction. */
  virtualClusters?: ScopeRuleVirtualCluster[];
  /** Deprecated alias of a `platformCLI` roles entry. */
  allowPlatformCli?: boolean;
}

/** An access key's scope. A key without one, or with every list empty and no `allowLoftCli`, is not restricted. */
export interface AccessScope {
  roles?: ScopeRole[];
  projects?: ScopeProject[];
  spaces?: ScopeSpace[];
  virtualClusters?: ScopeVirtualCluster[];
  clusters?: ScopeCluster[];
  rules?: ScopeRule[];
  /**
   * The reference platform's scope-level CLI allowance (`AccessKeyScope.AllowLoftCLI`): the same
   * as a `loft-cli` (`platformCLI`) roles entry. `{allowLoftCli: true}` alone is a CLI-only key.
   */
  allowLoftCli?: boolean;
}

/** The fields of a scope object; anything else under `spec.scope` is refused, never dropped. */
export const SCOPE_FIELDS = ['roles', 'projects', 'spaces', 'virtualClusters', 'clusters', 'rules', 'allowLoftCli'] as const;

/**
 * The role names a `roles` entry may carry. `platformCLI` is the management API's name for the
 * Platform's `loft-cli`; both are accepted and mean the same.
 */
export const SCOPE_ROLES = ['platformCLI', 'loft-cli', 'agent', 'vcluster', 'network-peer', 'workspace', 'metrics-writer', 'metrics-reader'] as const;

/** A role name of {@link SCOPE_ROLES}. */
export type ScopeRoleName = (typeof SCOPE_ROLES)[number];

/**
 * The values a rule's `requestTargets` may list: the reference platform's (`Management`,
 * `Cluster`, `ProjectSpace`, `ProjectVirtualCluster`) and its earlier `VirtualCluster`, which keys
 * stored before still carry. What each matches is `scope-rules.ts`'s `targetMatches`.
 */
export const REQUEST_TARGET_KINDS = ['Management', 'Cluster', 'ProjectSpace', 'ProjectVirtualCluster', 'VirtualCluster'] as const;

/** A value of {@link REQUEST_TARGET_KINDS}. */
export type RequestTargetKind = (typeof REQUEST_TARGET_KINDS)[number];

/** The verbs a rule's `verbs` may list: resource verbs and non-resource (HTTP method) verbs, or `*`. */
export const SCOPE_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection', 'post', 'put', 'head', SCOPE_WILDCARD] as const;

/** Whether `scope` restricts nothing: absent, or every list empty or absent and no `allowLoftCli`. */
export function isUnrestricted(scope: AccessScope | undefined): boolean {
  if (scope === undefined) return true;
  if (scope.allowLoftCli === true) return false;
  return [scope.roles, scope.projects, scope.spaces, scope.virtualClusters, scope.clusters, scope.rules].every((list) => list === undefined || list.length === 0);
}

/**
 * Why a non-resource URL pattern is not valid, or undefined: it is `*`, or a path starting with
 * `/` whose only wildcard is the whole final step (`/apis/*`).
 */
export function nonResourceUrlError(pattern: string): string | undefined {
  if (pattern === SCOPE_WILDCARD) return undefined;
  if (!pattern.startsWith('/')) return 'must be "*" or a path starting with "/"';
  const steps = pattern.split('/').slice(1);
  const wildcardAt = steps.findIndex((step) => step.includes(SCOPE_WILDCARD));
  if (wildcardAt === -1) return undefined;
  if (wildcardAt !== steps.length - 1 || steps[wildcardAt] !== SCOPE_WILDCARD) return 'a wildcard is allowed only as the full, final path step ("/apis/*")';
  return undefined;
}

/** Whether resource pattern `pattern` (`*`, `pods`, `pods/*`, `pods/log`, or `*` then `/status`) matches `resource` (`pods` or `pods/log`). */
export function resourcePatternMatches(pattern: string, resource: string): boolean {
  if (pattern === SCOPE_WILDCARD || pattern === resource) return true;
  const [patternName = '', patternSub] = pattern.split('/', 2);
  const [name = '', sub] = resource.split('/', 2);
  if (patternSub === undefined || sub === undefined) return false;
  return (patternName === SCOPE_WILDCARD || patternName === name) && (patternSub === SCOPE_WILDCARD || patternSub === sub);
}

/** The entries of list field `field` of `parent`, with causes for a non-list or non-object entries. */
function entries(parent: Record<string, unknown>, key: string, field: string, causes: StatusCause[]): [Record<string, unknown>, string][] {
  const value = parent[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    causes.push(invalidValue(field, value, 'must be a list'));
    return [];
  }
  const out: [Record<string, unknown>, string][] = [];
  value.forEach((entry: unknown, index) => {
    if (isJsonObject(entry)) out.push([entry, `${field}[${index}]`]);
    else causes.push(invalidValue(`${field}[${index}]`, entry, 'must be an object'));
  });
  return out;
}

/** The strings of list field `key`, with causes for a non-list or non-string items. */
function strings(parent: Record<string, unknown>, key: string, field: string, causes: StatusCause[]): [string, string][] {
  const value = parent[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    causes.push(invalidValue(field, value, 'must be a list of strings'));
    return [];
  }
  const out: [string, string][] = [];
  value.forEach((item: unknown, index) => {
    if (typeof item === 'string') out.push([item, `${field}[${index}]`]);
    else causes.push(invalidValue(`${field}[${index}]`, item, 'must be a string'));
  });
  return out;
}

/** Requires string field `key` to be present and non-empty. */
function requiredName(entry: Record<string, unknown>, key: string, field: string, causes: StatusCause[]): void {
  const value = entry[key];
  if (value === undefined || value === null || value === '') causes.push(requiredValue(`${field}.${key}`, `name one, or "${SCOPE_WILDCARD}" for all`));
  else if (typeof value !== 'string') causes.push(invalidValue(`${field}.${key}`, value, 'must be a string'));
}

function optionalString(entry: Record<string, unknown>, key: string, field: string, causes: StatusCause[]): void {
  const value = entry[key];
  if (value !== undefined && value !== null && typeof value !== 'string') causes.push(invalidValue(`${field}.${key}`, value, 'must be a string'));
}

function notSupported(field: string, value: string, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', field, message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((one) => JSON.stringify(one)).join(', ')}` };
}

function validateRuleResources(entry: Record<string, unknown>, field: string, causes: StatusCause[]): void {
  optionalString(entry, 'group', field, causes);
  const resources = strings(entry, 'resources', `${field}.resources`, causes);
  resources.forEach(([pattern, at], index) => {
    if (pattern === '' || pattern.split('/').length > 2 || pattern.split('/').some((part) => part === '')) {
      causes.push(invalidValue(at, pattern, 'must be a resource or "resource/subresource", either part may be "*"'));
      return;
    }
    // Seed 2.6: wildcard entries must not overlap, i.e. no entry may match another one.
    resources.forEach(([other], otherIndex) => {
      if (otherIndex !== index && pattern.includes(SCOPE_WILDCARD) && resourcePatternMatches(pattern, other)) {
        causes.push(invalidValue(at, pattern, `overlaps ${JSON.stringify(other)} (${field}.resources[${otherIndex}]): wildcard entries must not overlap, keep only the broader one`));
      }
    });
  });
  const resourceNames = strings(entry, 'resourceNames', `${field}.resourceNames`, causes);
  if (resourceNames.length > 0 && resources.length === 0) causes.push(requiredValue(`${field}.resources`, 'resourceNames requires resources to be specified'));
}

function validateRule(rule: Record<string, unknown>, field: string, causes: StatusCause[]): void {
  for (const [verb, at] of strings(rule, 'verbs', `${field}.verbs`, causes)) {
    if (!(SCOPE_VERBS as readonly string[]).includes(verb)) causes.push(notSupported(at, verb, SCOPE_VERBS));
  }
  for (const [resources, at] of entries(rule, 'resources', `${field}.resources`, causes)) validateRuleResources(resources, at, causes);
  strings(rule, 'namespaces', `${field}.namespaces`, causes);
  for (const [url, at] of strings(rule, 'nonResourceURLs', `${field}.nonResourceURLs`, causes)) {
    const why = nonResourceUrlError(url);
    if (why !== undefined) causes.push(invalidValue(at, url, why));
  }
  for (const [target, at] of strings(rule, 'requestTargets', `${field}.requestTargets`, causes)) {
    if (!(REQUEST_TARGET_KINDS as readonly string[]).includes(target)) causes.push(notSupported(at, target, REQUEST_TARGET_KINDS));
  }
  optionalString(rule, 'cluster', field, causes);
  for (const [virtualCluster, at] of entries(rule, 'virtualClusters', `${field}.virtualClusters`, causes)) {
    optionalString(virtualCluster, 'name', at, causes);
    optionalString(virtualCluster, 'namespace', at, causes);
  }
  const allow = rule['allowPlatformCli'];
  if (allow !== undefined && allow !== null && typeof allow !== 'boolean') causes.push(invalidValue(`${field}.allowPlatformCli`, allow, 'must be a boolean'));
}

/**
 * Validates a scope object as received (any JSON) under field path `field` (e.g. `spec.scope`):
 * the causes of a 422 Invalid, empty when it is valid. Unknown role names are refused here
 * (`authorizeScope` still lets an unknown role allow nothing, for keys stored before).
 */
export function validateAccessScope(scope: unknown, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (scope === undefined || scope === null) return causes;
  if (!isJsonObject(scope)) return [invalidValue(field, scope, 'must be an object')];
  for (const key of Object.keys(scope)) {
    if (!(SCOPE_FIELDS as readonly string[]).includes(key)) causes.push(forbiddenValue(`${field}.${key}`, `unknown scope field; the scope fields are ${SCOPE_FIELDS.join(', ')}`));
  }
  const allowLoftCli = scope['allowLoftCli'];
  if (allowLoftCli !== undefined && allowLoftCli !== null && typeof allowLoftCli !== 'boolean') causes.push(invalidValue(`${field}.allowLoftCli`, allowLoftCli, 'must be a boolean'));
  for (const [role, at] of entries(scope, 'roles', `${field}.roles`, causes)) {
    const name = role['role'];
    if (typeof name !== 'string' || name === '') causes.push(requiredValue(`${at}.role`, `one of ${SCOPE_ROLES.join(', ')}`));
    else if (!(SCOPE_ROLES as readonly string[]).includes(name)) causes.push(notSupported(`${at}.role`, name, SCOPE_ROLES));
    strings(role, 'projects', `${at}.projects`, causes);
    strings(role, 'virtualClusters', `${at}.virtualClusters`, causes);
  }
  for (const [entry, at] of entries(scope, 'projects', `${field}.projects`, causes)) requiredName(entry, 'project', at, causes);
  for (const [entry, at] of entries(scope, 'spaces', `${field}.spaces`, causes)) {
    requiredName(entry, 'project', at, causes);
    requiredName(entry, 'space', at, causes);
  }
  for (const [entry, at] of entries(scope, 'virtualClusters', `${field}.virtualClusters`, causes)) {
    requiredName(entry, 'project', at, causes);
    requiredName(entry, 'virtualCluster', at, causes);
  }
  for (const [entry, at] of entries(scope, 'clusters', `${field}.clusters`, causes)) requiredName(entry, 'cluster', at, causes);
  for (const [rule, at] of entries(scope, 'rules', `${field}.rules`, causes)) validateRule(rule, at, causes);
  return causes;
}
