/**
 * The deprecated `scope.rules`, matched with the Platform's semantics. A request matches a
 * rule when every one of the rule's fields matches it; empty lists mean "all" except
 * `nonResourceURLs`, which the Platform gives no such meaning: a rule without them matches no
 * non-resource request, and one with them but without `resources` matches no resource request.
 */
import { SCOPE_WILDCARD, resourcePatternMatches, type ScopeRule, type ScopeRuleResources } from './access-scope.js';
import type { RequestAttributes, RequestTarget } from './request-attributes.js';

function emptyOr(list: readonly string[] | undefined, value: string): boolean {
  return list === undefined || list.length === 0 || list.includes(SCOPE_WILDCARD) || list.includes(value);
}

/**
 * Whether non-resource URL pattern `pattern` matches `path`: `*` matches every path, `/a/*`
 * every path below `/a/` (not `/a` itself), anything else only itself.
 */
export function nonResourceUrlMatches(pattern: string, path: string): boolean {
  if (pattern === SCOPE_WILDCARD) return true;
  if (pattern.endsWith(`/${SCOPE_WILDCARD}`)) return path.startsWith(pattern.slice(0, -1));
  return pattern === path;
}

function resourcesEntryMatches(entry: ScopeRuleResources, attrs: RequestAttributes): boolean {
  const group = entry.group ?? '';
  if (group !== SCOPE_WILDCARD && group !== attrs.apiGroup) return false;
  const resource = attrs.subresource === '' ? attrs.resource : `${attrs.resource}/${attrs.subresource}`;
  const patterns = entry.resources ?? [];
  if (patterns.length > 0 && !patterns.some((pattern) => resourcePatternMatches(pattern, resource))) return false;
  const names = entry.resourceNames ?? [];
  return names.length === 0 || names.includes(attrs.name);
}

/**
 * Whether a `requestTargets` value matches where a request goes: `Management`, `Cluster` and the
 * earlier `VirtualCluster` their own kind of request; `ProjectSpace` a cluster request into a
 * project's space, `ProjectVirtualCluster` a request into a project's virtual cluster (narrower
 * forms of `Cluster` and `VirtualCluster`). A value this server does not know matches nothing.
 */
export function requestTargetMatches(value: string, target: RequestTarget): boolean {
  switch (value) {
    case SCOPE_WILDCARD:
      return true;
    case 'ProjectSpace':
      return target.kind === 'Cluster' && target.project !== undefined && target.space !== undefined;
    case 'ProjectVirtualCluster':
      return target.kind === 'VirtualCluster' && target.project !== undefined;
    default:
      return value === target.kind;
  }
}

function targetMatches(rule: ScopeRule, attrs: RequestAttributes): boolean {
  const { target } = attrs;
  const targets = rule.requestTargets ?? [];
  if (targets.length > 0 && !targets.some((value) => requestTargetMatches(value, target))) return false;
  // Seed: `cluster` applies to cluster requests only; when set, non-cluster requests are not allowed.
  if (rule.cluster !== undefined && rule.cluster !== '') {
    if (target.kind !== 'Cluster') return false;
    if (rule.cluster !== SCOPE_WILDCARD && rule.cluster !== target.cluster) return false;
  }
  // Seed: `virtualClusters` applies to virtual-cluster requests only.
  const virtualClusters = rule.virtualClusters ?? [];
  if (target.kind === 'VirtualCluster' && virtualClusters.length > 0) {
    const named = virtualClusters.some(
      (entry) => (entry.name === undefined || entry.name === '' || entry.name === target.name) && (entry.namespace === undefined || entry.namespace === '' || entry.namespace === target.namespace),
    );
    if (!named) return false;
  }
  return true;
}

/** Whether `rule`'s fields (all but `allowPlatformCli`) match the request. */
export function ruleMatches(rule: ScopeRule, attrs: RequestAttributes): boolean {
  if (!emptyOr(rule.verbs, attrs.verb)) return false;
  if (!targetMatches(rule, attrs)) return false;
  if (!attrs.isResourceRequest) return (rule.nonResourceURLs ?? []).some((pattern) => nonResourceUrlMatches(pattern, attrs.path));
  const resources = rule.resources ?? [];
  // A rule that lists only non-resource URLs is a non-resource rule, as in RBAC: its empty
  // `resources` does not open every resource.
  if (resources.length === 0 && (rule.nonResourceURLs ?? []).length > 0) return false;
  if (resources.length > 0 && !resources.some((entry) => resourcesEntryMatches(entry, attrs))) return false;
  const namespaces = rule.namespaces ?? [];
  return namespaces.length === 0 || namespaces.includes(attrs.namespace);
}
