/**
 * "Exceeds", made precise for escalation checks: a requested scope stays within a caller's scope
 * when every entry of it is covered by an entry of the caller's, dimension by dimension (a
 * caller's `projects` entry also covers `spaces` and `virtualClusters` of that project, which it
 * allows). Deprecated `rules` are covered only by a caller's rules, field by field. Conservative:
 * anything not shown covered is refused.
 */
import { SCOPE_WILDCARD, isUnrestricted, type AccessScope, type ScopeRole, type ScopeRule, type ScopeRuleResources, type ScopeRuleVirtualCluster } from './access-scope.js';

/** Whether caller name pattern `have` covers requested pattern `want` (`*` covers all, a name only itself). */
function nameCovers(have: string, want: string): boolean {
  return have === SCOPE_WILDCARD || have === want;
}

/**
 * Whether caller list `have` covers requested list `want` where empty means "all" and `*` (when
 * `wildcard`) also means all: a caller's "all" covers anything; a requested "all" only "all".
 */
function listCovers(have: readonly string[] | undefined, want: readonly string[] | undefined, wildcard = true): boolean {
  const all = (list: readonly string[] | undefined) => list === undefined || list.length === 0 || (wildcard && list.includes(SCOPE_WILDCARD));
  if (all(have)) return true;
  if (all(want)) return false;
  return (want ?? []).every((item) => (have ?? []).includes(item));
}

const PLATFORM_CLI_ROLES = ['platformCLI', 'loft-cli'];

function sameRole(a: string, b: string): boolean {
  return a === b || (PLATFORM_CLI_ROLES.includes(a) && PLATFORM_CLI_ROLES.includes(b));
}

/** Whether the caller may use every `platformCLI` request: an un-narrowed platformCLI role, a rule with allowPlatformCli, or allowLoftCli. */
function hasWholePlatformCli(caller: AccessScope): boolean {
  if (caller.allowLoftCli === true) return true;
  const role = (caller.roles ?? []).some((entry) => PLATFORM_CLI_ROLES.includes(entry.role) && (entry.projects ?? []).length === 0 && (entry.virtualClusters ?? []).length === 0);
  return role || (caller.rules ?? []).some((rule) => rule.allowPlatformCli === true);
}

function roleCovered(caller: AccessScope, want: ScopeRole): boolean {
  if (PLATFORM_CLI_ROLES.includes(want.role) && hasWholePlatformCli(caller)) return true;
  return (caller.roles ?? []).some((have) => sameRole(have.role, want.role) && listCovers(have.projects, want.projects) && listCovers(have.virtualClusters, want.virtualClusters));
}

function projectCovered(caller: AccessScope, project: string): boolean {
  return (caller.projects ?? []).some((have) => nameCovers(have.project, project));
}

/** Whether caller resource pattern `have` covers requested pattern `want` (`pods` does not cover `pods/log`). */
function resourcePatternCovers(have: string, want: string): boolean {
  if (have === SCOPE_WILDCARD || have === want) return true;
  const [haveName = '', haveSub] = have.split('/', 2);
  const [wantName = '', wantSub] = want.split('/', 2);
  if (haveSub === undefined || wantSub === undefined) return false;
  return nameCovers(haveName, wantName) && nameCovers(haveSub, wantSub);
}

function resourcesCovers(have: ScopeRuleResources, want: ScopeRuleResources): boolean {
  if (!nameCovers(have.group ?? '', want.group ?? '')) return false;
  const haveResources = have.resources ?? [];
  const wantResources = want.resources ?? [];
  if (haveResources.length > 0) {
    if (wantResources.length === 0) return false;
    if (!wantResources.every((pattern) => haveResources.some((covering) => resourcePatternCovers(covering, pattern)))) return false;
  }
  return listCovers(have.resourceNames, want.resourceNames, false);
}

function urlCovers(have: string, want: string): boolean {
  if (have === SCOPE_WILDCARD || have === want) return true;
  return have.endsWith(`/${SCOPE_WILDCARD}`) && want !== SCOPE_WILDCARD && want.startsWith(have.slice(0, -1));
}

function virtualClusterCovers(have: ScopeRuleVirtualCluster, want: ScopeRuleVirtualCluster): boolean {
  const covers = (a: string | undefined, b: string | undefined) => a === undefined || a === '' || a === b;
  return covers(have.name, want.name) && covers(have.namespace, want.namespace);
}

/** Whether a rule matches any resource request: not when it lists only non-resource URLs (`ruleMatches`). */
function matchesResourceRequests(rule: ScopeRule): boolean {
  return (rule.resources ?? []).length > 0 || (rule.nonResourceURLs ?? []).length === 0;
}

/** Whether caller rule `have` matches every request requested rule `want` matches (allowPlatformCli aside). */
function ruleCovers(have: ScopeRule, want: ScopeRule): boolean {
  if (!listCovers(have.verbs, want.verbs) || !listCovers(have.requestTargets, want.requestTargets) || !listCovers(have.namespaces, want.namespaces, false)) return false;
  if (have.cluster !== undefined && have.cluster !== '' && (want.cluster === undefined || want.cluster === '' || !nameCovers(have.cluster, want.cluster))) return false;
  const haveClusters = have.virtualClusters ?? [];
  const wantClusters = want.virtualClusters ?? [];
  if (haveClusters.length > 0 && (wantClusters.length === 0 || !wantClusters.every((entry) => haveClusters.some((covering) => virtualClusterCovers(covering, entry))))) return false;
  const haveResources = have.resources ?? [];
  const wantResources = want.resources ?? [];
  if (matchesResourceRequests(want) && !matchesResourceRequests(have)) return false;
  if (matchesResourceRequests(want) && haveResources.length > 0 && (wantResources.length === 0 || !wantResources.every((entry) => haveResources.some((covering) => resourcesCovers(covering, entry))))) return false;
  return (want.nonResourceURLs ?? []).every((url) => (have.nonResourceURLs ?? []).some((covering) => urlCovers(covering, url)));
}

function ruleCovered(caller: AccessScope, want: ScopeRule): boolean {
  if (want.allowPlatformCli === true && !hasWholePlatformCli(caller)) return false;
  return (caller.rules ?? []).some((have) => ruleCovers(have, want));
}

/**
 * The first entry of `requested` that `caller` does not cover, as a field path relative to the
 * scope (`projects[1]`, or '' for a whole unrestricted scope), or undefined when `requested` stays
 * within `caller`. An unrestricted caller covers everything; an unrestricted request exceeds any
 * restricted caller.
 */
export function scopeExcess(caller: AccessScope | undefined, requested: AccessScope | undefined): string | undefined {
  if (caller === undefined || isUnrestricted(caller)) return undefined;
  if (requested === undefined || isUnrestricted(requested)) return '';
  const first = <T>(field: string, list: readonly T[] | undefined, covered: (entry: T) => boolean): string | undefined => {
    const index = (list ?? []).findIndex((entry) => !covered(entry));
    return index === -1 ? undefined : `${field}[${index}]`;
  };
  return (
    first('roles', requested.roles, (want) => roleCovered(caller, want)) ??
    first('projects', requested.projects, (want) => projectCovered(caller, want.project)) ??
    first('spaces', requested.spaces, (want) => projectCovered(caller, want.project) || (caller.spaces ?? []).some((have) => nameCovers(have.project, want.project) && nameCovers(have.space, want.space))) ??
    first(
      'virtualClusters',
      requested.virtualClusters,
      (want) => projectCovered(caller, want.project) || (caller.virtualClusters ?? []).some((have) => nameCovers(have.project, want.project) && nameCovers(have.virtualCluster, want.virtualCluster)),
    ) ??
    first('clusters', requested.clusters, (want) => (caller.clusters ?? []).some((have) => nameCovers(have.cluster, want.cluster))) ??
    first('rules', requested.rules, (want) => ruleCovered(caller, want)) ??
    (requested.allowLoftCli === true && !hasWholePlatformCli(caller) ? 'allowLoftCli' : undefined)
  );
}

/**
 * Where `requested` first exceeds `caller` as a `spec.scope` field path, and how a message names it
 * (`this entry`, or `an unrestricted scope`), or undefined when it stays within (see {@link scopeExcess}).
 */
export function scopeExcessField(caller: AccessScope | undefined, requested: AccessScope | undefined): { field: string; what: string } | undefined {
  const excess = scopeExcess(caller, requested);
  if (excess === undefined) return undefined;
  return excess === '' ? { field: 'spec.scope', what: 'an unrestricted scope' } : { field: `spec.scope.${excess}`, what: 'this entry' };
}
