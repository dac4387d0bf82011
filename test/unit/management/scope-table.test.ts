import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { AccessScope } from '../../../src/management/access-scope.js';
import { authorizeScope } from '../../../src/management/authorization.js';
import { SCOPE_TABLE_ROWS, renderScopeTable } from '../../../src/management/scope-table.js';
import { MANAGEMENT_GROUP, REQUESTS, deepFreeze, type RequestName } from './scope-requests.js';

const SCOPE_PAGE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'management-api.md');

/** One scope and the requests it must allow and refuse. */
interface ScopeCase {
  scope: AccessScope | undefined;
  allowed: RequestName[];
  denied: RequestName[];
}

const ALL_REQUESTS = Object.keys(REQUESTS) as RequestName[];
const NOTHING_HERE: RequestName[] = ['listKeys', 'getKey', 'createKey', 'deleteKey', 'version', 'apis', 'metrics', 'getInstanceP1V1', 'kubeconfigP1V1', 'podsOnC1', 'endpointsInV1'];
const keys = { group: MANAGEMENT_GROUP, resources: ['ownedaccesskeys'] };

/** The cases of each table row, by row id: every row must have some, and every case id must be a row. */
const ROW_CASES: Record<string, ScopeCase[]> = deepFreeze({
  none: [
    { scope: undefined, allowed: ALL_REQUESTS, denied: [] },
    { scope: {}, allowed: ALL_REQUESTS, denied: [] },
    { scope: { roles: [], projects: [], spaces: [], virtualClusters: [], clusters: [], rules: [] }, allowed: ALL_REQUESTS, denied: [] },
  ],
  projects: [
    { scope: { projects: [{ project: 'p1' }] }, allowed: ['getInstanceP1V1', 'kubeconfigP1V1', 'getSpaceP1S1', 'podsInSpaceP1S1', 'endpointsInV1'], denied: ['getInstanceP2V1', 'kubeconfigP2V1', 'listKeys', 'version', 'podsOnC1', 'endpointsInV1Elsewhere'] },
    { scope: { projects: [{ project: '*' }] }, allowed: ['getInstanceP2V1', 'getSpaceP2S1', 'getInstanceP1V1'], denied: ['listKeys', 'createKey', 'apis', 'podsOnC1'] },
  ],
  spaces: [
    { scope: { spaces: [{ project: 'p1', space: 's1' }] }, allowed: ['getSpaceP1S1', 'podsInSpaceP1S1'], denied: ['getSpaceP1S2', 'getSpaceP2S1', 'getInstanceP1V1', 'listKeys', 'podsOnC1'] },
    { scope: { spaces: [{ project: 'p1', space: '*' }] }, allowed: ['getSpaceP1S1', 'getSpaceP1S2'], denied: ['getSpaceP2S1', 'getInstanceP1V1'] },
  ],
  virtualClusters: [
    { scope: { virtualClusters: [{ project: 'p1', virtualCluster: 'v1' }] }, allowed: ['getInstanceP1V1', 'kubeconfigP1V1', 'endpointsInV1'], denied: ['getInstanceP1V2', 'getInstanceP2V1', 'kubeconfigP2V1', 'endpointsInV2', 'endpointsInV1Elsewhere', 'getSpaceP1S1', 'listKeys'] },
    { scope: { virtualClusters: [{ project: 'p1', virtualCluster: '*' }] }, allowed: ['getInstanceP1V1', 'getInstanceP1V2', 'endpointsInV2'], denied: ['getInstanceP2V1', 'getSpaceP1S1'] },
  ],
  clusters: [
    { scope: { clusters: [{ cluster: 'c1' }] }, allowed: ['podsOnC1', 'podsInSpaceP1S1'], denied: ['podsOnC2', 'listKeys', 'version', 'getInstanceP1V1', 'endpointsInV1'] },
    { scope: { clusters: [{ cluster: '*' }] }, allowed: ['podsOnC1', 'podsOnC2'], denied: ['listKeys', 'endpointsInV1'] },
  ],
  'role-platformCLI': [
    ...['platformCLI', 'loft-cli'].map((role): ScopeCase => ({
      scope: { roles: [{ role }] },
      allowed: ['listKeys', 'watchKeys', 'getKey', 'getInstanceP1V1', 'getSpaceP2S1', 'version', 'headVersion', 'api', 'apiV1', 'apis', 'apisGroup', 'openapiV2', 'openapiV3'],
      denied: ['createKey', 'deleteKey', 'patchKey', 'updateKeyStatus', 'kubeconfigP1V1', 'postVersion', 'healthz', 'metrics', 'podsOnC1', 'endpointsInV1'],
    })),
  ],
  'role-narrowed': [
    { scope: { roles: [{ role: 'platformCLI', projects: ['p1'], virtualClusters: ['v1'] }] }, allowed: ['listKeys', 'version', 'getInstanceP1V1', 'getSpaceP1S1'], denied: ['getInstanceP1V2', 'getInstanceP2V1', 'getSpaceP2S1', 'createKey'] },
    { scope: { roles: [{ role: 'platformCLI', projects: ['*'] }] }, allowed: ['getInstanceP2V1', 'getInstanceP1V2'], denied: ['kubeconfigP2V1'] },
  ],
  'role-metrics-reader': [{ scope: { roles: [{ role: 'metrics-reader' }] }, allowed: ['metrics'], denied: ['postMetrics', 'listKeys', 'version', 'healthz'] }],
  'role-metrics-writer': [{ scope: { roles: [{ role: 'metrics-writer' }] }, allowed: [], denied: [...NOTHING_HERE, 'postMetrics'] }],
  'role-agent': [{ scope: { roles: [{ role: 'agent' }] }, allowed: [], denied: NOTHING_HERE }],
  'role-vcluster': [{ scope: { roles: [{ role: 'vcluster', virtualClusters: ['v1'] }] }, allowed: [], denied: NOTHING_HERE }],
  'role-network-peer': [{ scope: { roles: [{ role: 'network-peer' }] }, allowed: [], denied: NOTHING_HERE }],
  'role-workspace': [{ scope: { roles: [{ role: 'workspace' }] }, allowed: [], denied: NOTHING_HERE }],
  'role-unknown': [
    { scope: { roles: [{ role: 'admin' }] }, allowed: [], denied: NOTHING_HERE },
    { scope: { roles: [{ role: 'constructor' }, { role: 'toString' }] }, allowed: [], denied: NOTHING_HERE },
  ],
  'rule-empty': [{ scope: { rules: [{}] }, allowed: ['createKey', 'deleteKey', 'updateKeyStatus', 'podsOnC2', 'endpointsInV2', 'kubeconfigP2V1'], denied: ['version', 'apis', 'metrics', 'postVersion'] }],
  'rule-verbs': [
    { scope: { rules: [{ verbs: ['get', 'list'] }] }, allowed: ['listKeys', 'getKey', 'podsOnC1'], denied: ['createKey', 'deleteKey', 'watchKeys', 'version'] },
    { scope: { rules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }] }, allowed: ['version'], denied: ['postVersion', 'headVersion', 'getKey'] },
    { scope: { rules: [{ verbs: ['*'] }] }, allowed: ['deleteKey', 'patchKey'], denied: ['version'] },
  ],
  'rule-resources': [
    { scope: { rules: [{ resources: [keys] }] }, allowed: ['listKeys', 'createKey', 'deleteKey'], denied: ['updateKeyStatus', 'getInstanceP1V1', 'podsOnC1', 'version'] },
    { scope: { rules: [{ resources: [{ group: MANAGEMENT_GROUP, resources: ['virtualclusterinstances/kubeconfig'] }] }] }, allowed: ['kubeconfigP1V1', 'kubeconfigP2V1'], denied: ['getInstanceP1V1', 'listKeys'] },
    { scope: { rules: [{ resources: [{ group: MANAGEMENT_GROUP, resources: ['virtualclusterinstances/*'] }] }] }, allowed: ['kubeconfigP1V1'], denied: ['getInstanceP1V1', 'updateKeyStatus'] },
    { scope: { rules: [{ resources: [{ group: MANAGEMENT_GROUP, resources: ['*/status'] }] }] }, allowed: ['updateKeyStatus'], denied: ['listKeys', 'kubeconfigP1V1'] },
    { scope: { rules: [{ resources: [{ group: MANAGEMENT_GROUP, resources: ['*'] }] }] }, allowed: ['listKeys', 'updateKeyStatus', 'kubeconfigP1V1', 'getInstanceP2V1'], denied: ['podsOnC1', 'endpointsInV1'] },
    { scope: { rules: [{ resources: [{ group: MANAGEMENT_GROUP }] }] }, allowed: ['listKeys', 'kubeconfigP1V1'], denied: ['podsOnC1'] },
    { scope: { rules: [{ resources: [{ group: '', resources: ['pods'] }] }] }, allowed: ['podsOnC1', 'podsInSpaceP1S1'], denied: ['endpointsInV1', 'listKeys'] },
    { scope: { rules: [{ resources: [{ resources: ['endpoints'] }] }] }, allowed: ['endpointsInV1'], denied: ['podsOnC1', 'listKeys'] },
    { scope: { rules: [{ resources: [{ group: '*' }] }] }, allowed: ['podsOnC1', 'listKeys'], denied: ['version'] },
  ],
  'rule-resourceNames': [{ scope: { rules: [{ resources: [{ ...keys, resourceNames: ['k1'] }] }] }, allowed: ['getKey', 'deleteKey', 'patchKey'], denied: ['getOtherKey', 'listKeys', 'createKey', 'watchKeys'] }],
  'rule-namespaces': [
    { scope: { rules: [{ namespaces: [''] }] }, allowed: ['listKeys', 'getKey', 'createKey'], denied: ['getInstanceP1V1', 'podsOnC1'] },
    { scope: { rules: [{ namespaces: ['p-p1'] }] }, allowed: ['getInstanceP1V1', 'kubeconfigP1V1'], denied: ['getInstanceP2V1', 'listKeys'] },
  ],
  'rule-nonResourceURLs': [
    { scope: { rules: [{ nonResourceURLs: ['/apis/*'] }] }, allowed: ['apisGroup'], denied: ['apis', 'version', 'openapiV2', 'listKeys', 'createKey'] },
    { scope: { rules: [{ nonResourceURLs: ['*'] }] }, allowed: ['version', 'metrics', 'postVersion', 'healthz'], denied: ['listKeys', 'podsOnC1'] },
    { scope: { rules: [{ nonResourceURLs: ['/version'] }] }, allowed: ['version', 'postVersion'], denied: ['versionBelow', 'apis'] },
    { scope: { rules: [{ nonResourceURLs: ['/version'], resources: [keys] }] }, allowed: ['version', 'listKeys'], denied: ['getInstanceP1V1'] },
  ],
  'rule-requestTargets': [
    { scope: { rules: [{ requestTargets: ['Management'] }] }, allowed: ['listKeys', 'getInstanceP1V1'], denied: ['podsOnC1', 'endpointsInV1'] },
    { scope: { rules: [{ requestTargets: ['Cluster', 'VirtualCluster'] }] }, allowed: ['podsOnC1', 'endpointsInV1'], denied: ['listKeys'] },
    { scope: { rules: [{ requestTargets: ['ProjectSpace'] }] }, allowed: ['podsInSpaceP1S1'], denied: ['podsOnC1', 'endpointsInV1', 'listKeys'] },
    { scope: { rules: [{ requestTargets: ['ProjectVirtualCluster'] }] }, allowed: ['endpointsInV1'], denied: ['podsOnC1', 'podsInSpaceP1S1', 'listKeys'] },
  ],
  'rule-cluster': [{ scope: { rules: [{ cluster: 'c1' }] }, allowed: ['podsOnC1', 'podsInSpaceP1S1'], denied: ['podsOnC2', 'listKeys', 'endpointsInV1'] }],
  'rule-virtualClusters': [
    { scope: { rules: [{ virtualClusters: [{ name: 'v1', namespace: 'p-p1' }] }] }, allowed: ['endpointsInV1', 'listKeys', 'podsOnC2'], denied: ['endpointsInV2', 'endpointsInV1Elsewhere'] },
    { scope: { rules: [{ virtualClusters: [{ name: 'v1' }] }] }, allowed: ['endpointsInV1', 'endpointsInV1Elsewhere'], denied: ['endpointsInV2'] },
    { scope: { rules: [{ virtualClusters: [{ namespace: 'p-p1' }] }] }, allowed: ['endpointsInV1', 'endpointsInV2'], denied: ['endpointsInV1Elsewhere'] },
  ],
  'rule-allowPlatformCli': [
    { scope: { rules: [{ allowPlatformCli: true, verbs: ['create'], resources: [keys] }] }, allowed: ['listKeys', 'version', 'getInstanceP2V1', 'createKey'], denied: ['deleteKey', 'kubeconfigP1V1'] },
    { scope: { rules: [{ allowPlatformCli: false, nonResourceURLs: ['/metrics'] }] }, allowed: ['metrics'], denied: ['listKeys', 'version'] },
    { scope: { rules: [{ allowPlatformCli: true }] }, allowed: ['version', 'listKeys', 'deleteKey', 'podsOnC1'], denied: ['metrics', 'healthz'] },
  ],
  allowLoftCli: [
    {
      scope: { allowLoftCli: true },
      allowed: ['listKeys', 'watchKeys', 'getKey', 'getInstanceP1V1', 'version', 'headVersion', 'apis', 'openapiV3'],
      denied: ['createKey', 'deleteKey', 'patchKey', 'updateKeyStatus', 'kubeconfigP1V1', 'postVersion', 'metrics', 'podsOnC1', 'endpointsInV1'],
    },
    { scope: { allowLoftCli: false, projects: [{ project: 'p1' }] }, allowed: ['getInstanceP1V1'], denied: ['listKeys', 'version'] },
    { scope: { allowLoftCli: true, projects: [{ project: 'p1' }] }, allowed: ['getInstanceP1V1', 'kubeconfigP1V1', 'listKeys', 'version'], denied: ['kubeconfigP2V1', 'createKey'] },
  ],
  union: [
    { scope: { projects: [{ project: 'p1' }], roles: [{ role: 'platformCLI' }] }, allowed: ['kubeconfigP1V1', 'listKeys', 'version', 'getInstanceP2V1'], denied: ['kubeconfigP2V1', 'createKey'] },
    { scope: { rules: [{ verbs: ['get'] }, { verbs: ['delete'], resources: [keys] }] }, allowed: ['getKey', 'getInstanceP1V1', 'deleteKey'], denied: ['createKey', 'listKeys'] },
  ],
});

describe('the access-key scope table (docs/management-api.md, "Access-key scope")', () => {
  it('is in docs/management-api.md exactly as rendered from src/management/scope-table.ts', () => {
    const refresh = 'docs/management-api.md does not hold the table rendered from SCOPE_TABLE_ROWS; after npm run build, replace it with the output of: node -e "import(\'./dist/management/scope-table.js\').then((m) => console.log(m.renderScopeTable()))"';
    expect(readFileSync(SCOPE_PAGE, 'utf8').includes(renderScopeTable()), refresh).toBe(true);
  });

  it('has test cases for every row and no cases for rows that do not exist', () => {
    expect(Object.keys(ROW_CASES).sort()).toEqual(SCOPE_TABLE_ROWS.map((row) => row.id).sort());
    for (const cases of Object.values(ROW_CASES)) expect(cases.some((one) => one.allowed.length + one.denied.length > 0)).toBe(true);
  });

  it.each(SCOPE_TABLE_ROWS.map((row) => [row.id, row.entry, ROW_CASES[row.id] ?? []] as const))('row %s (%s) allows and refuses what the table says', (_id, _entry, cases) => {
    for (const { scope, allowed, denied } of cases) {
      for (const name of allowed) expect({ scope, name, decision: authorizeScope(scope, REQUESTS[name]) }).toEqual({ scope, name, decision: { allowed: true } });
      for (const name of denied) expect({ scope, name, allowed: authorizeScope(scope, REQUESTS[name]).allowed }).toEqual({ scope, name, allowed: false });
    }
  });
});
