/**
 * Scope authorization: whether an access key's scope allows a request.
 * Pure: the server hands in the key's scope and the request's attributes and answers 403 with
 * the returned reason when it is refused. What each entry allows is written down in
 * `scope-table.ts`, which the table in docs/management-api.md is rendered from.
 */
import { type ApiError, forbidden } from '../apimachinery/index.js';
import { SCOPE_WILDCARD, isUnrestricted, type AccessScope, type ScopeRole } from './access-scope.js';
import type { RequestAttributes } from './request-attributes.js';
import { nonResourceUrlMatches, ruleMatches } from './scope-rules.js';

/** The outcome of an authorization check: allowed, or refused with a sentence saying why and what to do. */
export type AuthorizationDecision = { allowed: true } | { allowed: false; reason: string };

const ALLOWED: AuthorizationDecision = { allowed: true };

/** The verbs of the read-only management requests a command-line client needs (`platformCLI`). */
export const PLATFORM_CLI_VERBS: readonly string[] = ['get', 'list', 'watch'];

/**
 * The non-resource paths a command-line client reads (`platformCLI`, with `get`/`head`):
 * version, discovery and OpenAPI, which kubectl and client libraries fetch before any request.
 */
export const PLATFORM_CLI_PATHS: readonly string[] = ['/version', '/api', '/api/*', '/apis', '/apis/*', '/openapi/*'];

/** The non-resource path a metrics reader may get (`metrics-reader`). */
export const METRICS_PATH = '/metrics';

function isRead(attrs: RequestAttributes): boolean {
  return attrs.isResourceRequest ? PLATFORM_CLI_VERBS.includes(attrs.verb) : attrs.verb === 'get' || attrs.verb === 'head';
}

/** Whether the `platformCLI` role (and a rule's `allowPlatformCli`, the scope's `allowLoftCli`) allows the request. */
export function platformCliAllows(attrs: RequestAttributes): boolean {
  if (!isRead(attrs)) return false;
  if (!attrs.isResourceRequest) return PLATFORM_CLI_PATHS.some((pattern) => nonResourceUrlMatches(pattern, attrs.path));
  return attrs.target.kind === 'Management';
}

/**
 * What each known role allows on this server. Roles for parts of the platform this server does
 * not have (the agent's tunnel, a virtual cluster's registration, network peering, the workspace
 * UI, metrics ingestion) allow nothing here.
 */
const ROLE_ALLOWS: Readonly<Record<string, (attrs: RequestAttributes) => boolean>> = {
  platformCLI: platformCliAllows,
  'loft-cli': platformCliAllows,
  'metrics-reader': (attrs) => !attrs.isResourceRequest && isRead(attrs) && attrs.path === METRICS_PATH,
  'metrics-writer': () => false,
  agent: () => false,
  vcluster: () => false,
  'network-peer': () => false,
  workspace: () => false,
};

function nameMatches(pattern: string, value: string | undefined): boolean {
  return value !== undefined && (pattern === SCOPE_WILDCARD || pattern === value);
}

/** The project a request is about, whatever its target kind. */
function projectOf(attrs: RequestAttributes): string | undefined {
  return attrs.target.project;
}

function virtualClusterOf(attrs: RequestAttributes): string | undefined {
  const { target } = attrs;
  if (target.kind === 'Management') return target.virtualCluster;
  if (target.kind === 'VirtualCluster') return target.name;
  return undefined;
}

function spaceOf(attrs: RequestAttributes): string | undefined {
  const { target } = attrs;
  return target.kind === 'VirtualCluster' ? undefined : target.space;
}

/**
 * Whether a roles entry allows the request: its role allows it (unknown roles allow nothing) and,
 * when the entry lists projects or virtual clusters, a request about a project or virtual cluster
 * is about one of those (requests about neither are not narrowed).
 */
function roleAllows(entry: ScopeRole, attrs: RequestAttributes): boolean {
  const allows = Object.hasOwn(ROLE_ALLOWS, entry.role) ? ROLE_ALLOWS[entry.role] : undefined;
  if (allows === undefined || !allows(attrs)) return false;
  const project = projectOf(attrs);
  const projects = entry.projects ?? [];
  if (project !== undefined && projects.length > 0 && !projects.some((pattern) => nameMatches(pattern, project))) return false;
  const virtualCluster = virtualClusterOf(attrs);
  const virtualClusters = entry.virtualClusters ?? [];
  return virtualCluster === undefined || virtualClusters.length === 0 || virtualClusters.some((pattern) => nameMatches(pattern, virtualCluster));
}

function firstAllowing<T>(field: string, list: readonly T[] | undefined, allows: (entry: T) => boolean): string | undefined {
  const index = (list ?? []).findIndex(allows);
  return index === -1 ? undefined : `${field}[${index}]`;
}

/** Which entry of `scope` allows the request, as a field path (`projects[0]`), or undefined when none does. */
export function allowingEntry(scope: AccessScope, attrs: RequestAttributes): string | undefined {
  const project = projectOf(attrs);
  const virtualCluster = virtualClusterOf(attrs);
  const { target } = attrs;
  return (
    firstAllowing('roles', scope.roles, (entry) => roleAllows(entry, attrs)) ??
    firstAllowing('projects', scope.projects, (entry) => nameMatches(entry.project, project)) ??
    firstAllowing('spaces', scope.spaces, (entry) => nameMatches(entry.project, project) && nameMatches(entry.space, spaceOf(attrs))) ??
    firstAllowing('virtualClusters', scope.virtualClusters, (entry) => nameMatches(entry.project, project) && nameMatches(entry.virtualCluster, virtualCluster)) ??
    firstAllowing('clusters', scope.clusters, (entry) => target.kind === 'Cluster' && nameMatches(entry.cluster, target.cluster)) ??
    firstAllowing('rules', scope.rules, (entry) => ruleMatches(entry, attrs) || (entry.allowPlatformCli === true && platformCliAllows(attrs))) ??
    (scope.allowLoftCli === true && platformCliAllows(attrs) ? 'allowLoftCli' : undefined)
  );
}

/** The request in a reason's words: `list ownedaccesskeys.management.loft.sh`, `get /version`. */
export function describeRequest(attrs: RequestAttributes): string {
  if (!attrs.isResourceRequest) return `${attrs.verb} ${attrs.path}`;
  const resource = `${attrs.resource}${attrs.subresource === '' ? '' : `/${attrs.subresource}`}${attrs.apiGroup === '' ? '' : `.${attrs.apiGroup}`}`;
  const name = attrs.name === '' ? '' : ` "${attrs.name}"`;
  const namespace = attrs.namespace === '' ? '' : ` in namespace "${attrs.namespace}"`;
  return `${attrs.verb} ${resource}${name}${namespace}`;
}

/**
 * Whether `scope` allows the request. No scope (or one whose lists are all empty) restricts
 * nothing; otherwise the request must be allowed by at least one entry of any list (entries add
 * up, none takes away). Refusals carry a reason for a 403 Forbidden Status.
 */
export function authorizeScope(scope: AccessScope | undefined, attrs: RequestAttributes): AuthorizationDecision {
  if (scope === undefined || isUnrestricted(scope)) return ALLOWED;
  if (allowingEntry(scope, attrs) !== undefined) return ALLOWED;
  return {
    allowed: false,
    reason: `the access key's scope does not allow ${describeRequest(attrs)}: no entry of spec.scope allows it; use a key whose scope does (README, "Access-key scope")`,
  };
}

/**
 * The 403 Forbidden a server answers for a refused request: the reason as the message, and for a
 * resource request the object it is about in `details` (name, group, and the resource as `kind`,
 * as the real server's Forbidden does).
 */
export function forbiddenRequest(attrs: RequestAttributes, reason: string): ApiError {
  if (!attrs.isResourceRequest) return forbidden(reason);
  return forbidden(reason, { name: attrs.name, group: attrs.apiGroup, kind: attrs.resource });
}
