/**
 * What an access key may do, as the rules `kubectl auth can-i --list` prints
 * (SelfSubjectRulesReview), and the discovery every key may read. Pure: the rules follow from the
 * key's scope with the meanings `authorization.ts` gives its entries.
 */
import type { NonResourceRule, RulesDescription } from '../apiserver/index.js';
import { isUnrestricted, SCOPE_WILDCARD, type AccessScope, type ScopeRule } from './access-scope.js';
import { METRICS_PATH, PLATFORM_CLI_PATHS } from './authorization.js';
import type { RequestAttributes } from './request-attributes.js';
import { nonResourceUrlMatches } from './scope-rules.js';

/**
 * The non-resource paths every authenticated key may read (`get`), whatever its scope, as the
 * real server's `system:discovery` role grants `system:authenticated`: without them a key scoped
 * to one virtual cluster could not run `kubectl api-resources` or `kubectl explain`.
 */
export const DISCOVERY_PATHS: readonly string[] = ['/version', '/version/', '/api', '/api/*', '/apis', '/apis/*', '/openapi', '/openapi/*'];

/** Whether the request is a read of discovery, OpenAPI or the version, which every key may make. */
export function isDiscoveryRead(attrs: RequestAttributes): boolean {
  return !attrs.isResourceRequest && attrs.verb === 'get' && DISCOVERY_PATHS.some((pattern) => nonResourceUrlMatches(pattern, attrs.path));
}

const DISCOVERY_RULE: NonResourceRule = { verbs: ['get'], nonResourceURLs: [...DISCOVERY_PATHS] };
const READ_VERBS = ['get', 'head'];

/** Roles that allow non-resource paths here, and which (see `ROLE_ALLOWS` of `authorization.ts`). */
const ROLE_PATHS: Readonly<Record<string, readonly string[]>> = { platformCLI: PLATFORM_CLI_PATHS, 'loft-cli': PLATFORM_CLI_PATHS, 'metrics-reader': [METRICS_PATH] };

/** Whether a deprecated rule can match requests to this server (whose requests all target `Management`). */
function matchesManagement(rule: ScopeRule): boolean {
  const targets = rule.requestTargets ?? [];
  return (targets.length === 0 || targets.includes('Management')) && (rule.cluster === undefined || rule.cluster === '');
}

function ruleNonResourceRules(rule: ScopeRule): NonResourceRule[] {
  const rules: NonResourceRule[] = [];
  const urls = rule.nonResourceURLs ?? [];
  if (urls.length > 0) rules.push({ verbs: (rule.verbs ?? []).length === 0 ? [SCOPE_WILDCARD] : [...(rule.verbs ?? [])], nonResourceURLs: [...urls] });
  if (rule.allowPlatformCli === true) rules.push({ verbs: READ_VERBS, nonResourceURLs: [...PLATFORM_CLI_PATHS] });
  return rules;
}

/**
 * The rules review of a key with `scope` beyond its resource rules (which the server finds by
 * asking the authorizer): discovery, then the paths its roles and rules allow. The list is
 * incomplete where the scope grants by name or project, which asking about whole collections
 * does not find: `projects`, `spaces` and `virtualClusters` entries (they allow the objects of a
 * project) and rules naming `resourceNames`.
 */
export function describeKeyRules(scope: AccessScope | undefined): RulesDescription {
  if (scope === undefined || isUnrestricted(scope)) return { nonResourceRules: [{ verbs: [SCOPE_WILDCARD], nonResourceURLs: [SCOPE_WILDCARD] }], incomplete: false };
  const nonResourceRules = [DISCOVERY_RULE];
  for (const entry of scope.roles ?? []) {
    const paths = Object.hasOwn(ROLE_PATHS, entry.role) ? ROLE_PATHS[entry.role] : undefined;
    if (paths !== undefined) nonResourceRules.push({ verbs: READ_VERBS, nonResourceURLs: [...paths] });
  }
  const rules = (scope.rules ?? []).filter(matchesManagement);
  for (const rule of rules) nonResourceRules.push(...ruleNonResourceRules(rule));
  const byName =
    (scope.projects ?? []).length > 0 ||
    (scope.spaces ?? []).length > 0 ||
    (scope.virtualClusters ?? []).length > 0 ||
    rules.some((rule) => (rule.resources ?? []).some((resources) => (resources.resourceNames ?? []).length > 0));
  return { nonResourceRules, incomplete: byName };
}
