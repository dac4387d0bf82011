/**
 * What each scope entry and role allows on this server, one row each: the "Access-key
 * scope" table of docs/management-api.md is rendered from these rows ({@link renderScopeTable}), and
 * test/unit/management/scope-table.test.ts runs requests through `authorizeScope` for every row,
 * so the table, the tests and the code cannot drift apart.
 */
import { METRICS_PATH, PLATFORM_CLI_PATHS, PLATFORM_CLI_VERBS } from './authorization.js';

/** One row of the scope table. */
export interface ScopeTableRow {
  /** Stable id the tests key their cases by. */
  id: string;
  /** The scope entry, as written in `spec.scope`. */
  entry: string;
  /** What it allows on this server (and, where this server has nothing of the kind, that it allows nothing here). */
  allows: string;
}

const cliPaths = PLATFORM_CLI_PATHS.map((path) => `\`${path}\``).join(', ');

/** The rows, in the order of the documented table. */
export const SCOPE_TABLE_ROWS: readonly ScopeTableRow[] = [
  { id: 'none', entry: 'no `scope`, or every list empty', allows: 'Every request (ownership still applies: a caller sees and changes only its own keys unless it is an admin).' },
  {
    id: 'projects',
    entry: '`projects: [{project: P}]`',
    allows:
      'Every request about project P: management objects of P, its spaces and virtual clusters, and cluster requests into its spaces. `*`: every project. Requests about no project (access keys, discovery) are not allowed by it.',
  },
  { id: 'spaces', entry: '`spaces: [{project: P, space: S}]`', allows: 'Every request about space S of project P (management and cluster requests into it). `*` as S: every space of P.' },
  {
    id: 'virtualClusters',
    entry: '`virtualClusters: [{project: P, virtualCluster: V}]`',
    allows: 'Every request about virtual cluster V of project P: its management objects (instance, kube config) and requests into it. `*` as V: every virtual cluster of P.',
  },
  { id: 'clusters', entry: '`clusters: [{cluster: C}]`', allows: 'Every request proxied to connected cluster C (`*`: every cluster). This server proxies no cluster requests, so here it allows nothing.' },
  {
    id: 'role-platformCLI',
    entry: '`roles: [{role: platformCLI}]` (also `loft-cli`)',
    allows: `The read-only requests a command-line client needs: ${PLATFORM_CLI_VERBS.join('/')} of every management resource (key lists are still filtered to the caller's own), and get/head of ${cliPaths} (version, discovery, OpenAPI). No writes.`,
  },
  {
    id: 'role-narrowed',
    entry: '`roles: [{role: R, projects: [P], virtualClusters: [V]}]`',
    allows: "What role R allows, narrowed: a request about a project must be about one listed (`*`: any), one about a virtual cluster about one listed. Requests about neither (discovery, keys) are not narrowed.",
  },
  { id: 'role-metrics-reader', entry: '`roles: [{role: metrics-reader}]`', allows: `get/head of \`${METRICS_PATH}\`.` },
  { id: 'role-metrics-writer', entry: '`roles: [{role: metrics-writer}]`', allows: 'Nothing here: this server ingests no metrics.' },
  { id: 'role-agent', entry: '`roles: [{role: agent}]`', allows: "Nothing here: this server has no platform-agent endpoints." },
  { id: 'role-vcluster', entry: '`roles: [{role: vcluster}]`', allows: 'Nothing here: this server registers no virtual clusters.' },
  { id: 'role-network-peer', entry: '`roles: [{role: network-peer}]`', allows: 'Nothing here: this server does no network peering.' },
  { id: 'role-workspace', entry: '`roles: [{role: workspace}]`', allows: 'Nothing here: this server serves no workspace UI.' },
  { id: 'role-unknown', entry: '`roles: [{role: <any other>}]`', allows: 'Nothing (and refused with 422 when a key is written with it).' },
  {
    id: 'rule-empty',
    entry: '`rules: [{}]` (deprecated)',
    allows: 'Every resource request (every list of a rule is empty, meaning all), but no non-resource request: a rule matches non-resource paths only through `nonResourceURLs`.',
  },
  { id: 'rule-verbs', entry: '`rules: [{verbs: [...]}]`', allows: 'Requests with one of these verbs (`*`: all; non-resource requests use the lower-case HTTP method); empty: every verb.' },
  {
    id: 'rule-resources',
    entry: '`rules: [{resources: [{group, resources: [...]}]}]`',
    allows:
      'Resource requests in `group` (`""`: core, `*`: any) to one of `resources`: `name` the resource only, `name/sub` one subresource, `name/*` every subresource, `*/sub` that subresource of every resource, `*` all. An entry with empty `resources`: all of the group. Overlapping wildcards are refused (422).',
  },
  { id: 'rule-resourceNames', entry: '`rules: [{resources: [{..., resourceNames: [...]}]}]`', allows: 'Only requests naming one of these objects (so no list or create); requires `resources` (422 without).' },
  { id: 'rule-namespaces', entry: '`rules: [{namespaces: [...]}]`', allows: 'Resource requests in one of these namespaces; `""` matches requests without one (cluster-scoped objects such as access keys, lists across namespaces); empty: every namespace.' },
  {
    id: 'rule-nonResourceURLs',
    entry: '`rules: [{nonResourceURLs: [...]}]`',
    allows: 'Non-resource requests to these paths; `*` only as the whole final step (`/apis/*`: every path below `/apis/`, not `/apis` itself; `*` alone: every path). Other wildcards are refused (422). A rule with `nonResourceURLs` and no `resources` matches no resource request (as in RBAC).',
  },
  {
    id: 'rule-requestTargets',
    entry: '`rules: [{requestTargets: [...]}]`',
    allows:
      'Requests to one of the targets `Management`, `Cluster`, `ProjectSpace` (a cluster request into a project\'s space), `ProjectVirtualCluster` (a request into a project\'s virtual cluster), or the earlier `VirtualCluster` (every request to this server is `Management`); other values are refused (422); empty: every target.',
  },
  { id: 'rule-cluster', entry: '`rules: [{cluster: C}]`', allows: 'Only cluster requests to C; no management or virtual-cluster request, so here nothing.' },
  { id: 'rule-virtualClusters', entry: '`rules: [{virtualClusters: [{name, namespace}]}]`', allows: 'Virtual-cluster requests must go to a listed one (empty name or namespace: any); other requests are not restricted by it.' },
  { id: 'rule-allowPlatformCli', entry: '`rules: [{allowPlatformCli: true, ...}]`', allows: 'What `platformCLI` allows, in addition to what the rule matches (the deprecated form of that role). Alone, `{allowPlatformCli: true}` still matches every resource request (its other lists are empty, meaning all): for the CLI only, use the `platformCLI` role.' },
  {
    id: 'allowLoftCli',
    entry: '`allowLoftCli: true` (scope level, as in the reference platform\'s types)',
    allows: 'What `platformCLI` allows (the same as a `loft-cli` roles entry). Alone, it makes a CLI-only key: it reads, it does not write.',
  },
  { id: 'union', entry: 'several entries', allows: 'A request is allowed when any one entry allows it; entries add up, none takes away. Refused requests get 403 Forbidden.' },
];

function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/** The Markdown table docs/management-api.md shows, rendered from {@link SCOPE_TABLE_ROWS}. */
export function renderScopeTable(rows: readonly ScopeTableRow[] = SCOPE_TABLE_ROWS): string {
  return ['| Scope entry | What it allows on this server |', '| --- | --- |', ...rows.map((row) => `| ${cell(row.entry)} | ${cell(row.allows)} |`)].join('\n');
}
