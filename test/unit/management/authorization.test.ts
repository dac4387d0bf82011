import { describe, expect, it } from 'vitest';
import type { ResourceType } from '../../../src/apiserver/resource-type.js';
import { validateAccessScope } from '../../../src/management/access-scope.js';
import { allowingEntry, authorizeScope, describeRequest, forbiddenRequest } from '../../../src/management/authorization.js';
import { nonResourceAttributes, resourceAttributes } from '../../../src/management/request-attributes.js';
import { nonResourceUrlMatches } from '../../../src/management/scope-rules.js';
import { MANAGEMENT_GROUP, REQUESTS } from './scope-requests.js';

describe('authorizeScope', () => {
  it('refuses with a reason naming the request and what to do', () => {
    const scope = Object.freeze({ projects: [Object.freeze({ project: 'p1' })] });
    expect(authorizeScope(scope, REQUESTS.deleteKey)).toEqual({
      allowed: false,
      reason: `the access key's scope does not allow delete ownedaccesskeys.${MANAGEMENT_GROUP} "k1": no entry of spec.scope allows it; use a key whose scope does (README, "Access-key scope")`,
    });
    expect(authorizeScope(scope, REQUESTS.version)).toEqual({ allowed: false, reason: expect.stringContaining('does not allow get /version') });
  });

  it('turns a refusal into a 403 Forbidden Status about the object', () => {
    const decision = authorizeScope({ roles: [{ role: 'platformCLI' }] }, REQUESTS.deleteKey);
    if (decision.allowed) throw new Error('platformCLI must not allow a delete');
    expect(forbiddenRequest(REQUESTS.deleteKey, decision.reason).toStatus()).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: decision.reason, details: { name: 'k1', group: MANAGEMENT_GROUP, kind: 'ownedaccesskeys' },
    });
    expect(forbiddenRequest(REQUESTS.healthz, 'no').toStatus()).toMatchObject({ code: 403, reason: 'Forbidden', message: 'no' });
  });

  it('names the entry that allows a request, the first one in scope order', () => {
    const scope = { roles: [{ role: 'agent' }, { role: 'platformCLI' }], projects: [{ project: 'p1' }], rules: [{}] };
    expect(allowingEntry(scope, REQUESTS.listKeys)).toBe('roles[1]');
    expect(allowingEntry(scope, REQUESTS.kubeconfigP1V1)).toBe('projects[0]');
    expect(allowingEntry(scope, REQUESTS.createKey)).toBe('rules[0]');
    expect(allowingEntry(scope, REQUESTS.healthz)).toBeUndefined();
  });

  it('describes requests with subresource, group and namespace', () => {
    expect(describeRequest(REQUESTS.kubeconfigP1V1)).toBe(`create virtualclusterinstances/kubeconfig.${MANAGEMENT_GROUP} "v1" in namespace "p-p1"`);
    expect(describeRequest(REQUESTS.podsOnC1)).toBe('list pods in namespace "default"');
  });

  it('builds attributes from the apiserver core’s parsed request and from a non-resource request', () => {
    const type = { group: MANAGEMENT_GROUP, plural: 'ownedaccesskeys' } as ResourceType;
    const path = `/apis/${MANAGEMENT_GROUP}/v1/ownedaccesskeys/k1/status`;
    expect(resourceAttributes({ type, namespace: '', name: 'k1', subresource: 'status', verb: 'update' }, path)).toEqual(REQUESTS.updateKeyStatus);
    expect(nonResourceAttributes('GET', '/version')).toEqual(REQUESTS.version);
  });

  it('matches non-resource URLs: * everything, a final /* everything below, else exactly', () => {
    expect(nonResourceUrlMatches('*', '/anything')).toBe(true);
    expect(nonResourceUrlMatches('/apis/*', '/apis/a/b')).toBe(true);
    expect(nonResourceUrlMatches('/apis/*', '/apis')).toBe(false);
    expect(nonResourceUrlMatches('/apis/*', '/apisx/a')).toBe(false);
    expect(nonResourceUrlMatches('/version', '/version/')).toBe(false);
  });
});

/** [what, scope, expected causes as `field reason`]. */
const INVALID_SCOPES: [string, unknown, string[]][] = [
  ['not an object', 'all', ['spec.scope FieldValueInvalid']],
  ['a list that is not a list', { projects: { project: 'p1' } }, ['spec.scope.projects FieldValueInvalid']],
  ['an entry that is not an object', { clusters: ['c1'] }, ['spec.scope.clusters[0] FieldValueInvalid']],
  ['an unknown scope field', { project: [] }, ['spec.scope.project FieldValueForbidden']],
  ['a role without a name', { roles: [{}] }, ['spec.scope.roles[0].role FieldValueRequired']],
  ['an unknown role', { roles: [{ role: 'admin' }] }, ['spec.scope.roles[0].role FieldValueNotSupported']],
  ['role projects not strings', { roles: [{ role: 'agent', projects: [1] }] }, ['spec.scope.roles[0].projects[0] FieldValueInvalid']],
  ['a project entry without a project', { projects: [{ project: '' }] }, ['spec.scope.projects[0].project FieldValueRequired']],
  ['a space entry without names', { spaces: [{}] }, ['spec.scope.spaces[0].project FieldValueRequired', 'spec.scope.spaces[0].space FieldValueRequired']],
  ['a virtual cluster entry with a number', { virtualClusters: [{ project: 'p', virtualCluster: 3 }] }, ['spec.scope.virtualClusters[0].virtualCluster FieldValueInvalid']],
  ['a cluster entry without a cluster', { clusters: [{}] }, ['spec.scope.clusters[0].cluster FieldValueRequired']],
  ['an unknown verb', { rules: [{ verbs: ['get', 'steal'] }] }, ['spec.scope.rules[0].verbs[1] FieldValueNotSupported']],
  ['resourceNames without resources', { rules: [{ resources: [{ group: 'g', resourceNames: ['x'] }] }] }, ['spec.scope.rules[0].resources[0].resources FieldValueRequired']],
  ['overlapping wildcards', { rules: [{ resources: [{ group: 'g', resources: ['pods/*', 'pods/log'] }] }] }, ['spec.scope.rules[0].resources[0].resources[0] FieldValueInvalid']],
  ['a wildcard overlapping everything', { rules: [{ resources: [{ group: 'g', resources: ['a', '*'] }] }] }, ['spec.scope.rules[0].resources[0].resources[1] FieldValueInvalid']],
  ['a malformed resource', { rules: [{ resources: [{ resources: ['a/b/c', '', 'a/'] }] }] }, ['spec.scope.rules[0].resources[0].resources[0] FieldValueInvalid', 'spec.scope.rules[0].resources[0].resources[1] FieldValueInvalid', 'spec.scope.rules[0].resources[0].resources[2] FieldValueInvalid']],
  ['a group that is not a string', { rules: [{ resources: [{ group: 1 }] }] }, ['spec.scope.rules[0].resources[0].group FieldValueInvalid']],
  ['namespaces not strings', { rules: [{ namespaces: [null] }] }, ['spec.scope.rules[0].namespaces[0] FieldValueInvalid']],
  ['a wildcard inside a URL', { rules: [{ nonResourceURLs: ['/api*', '/a/*/b', 'version'] }] }, ['spec.scope.rules[0].nonResourceURLs[0] FieldValueInvalid', 'spec.scope.rules[0].nonResourceURLs[1] FieldValueInvalid', 'spec.scope.rules[0].nonResourceURLs[2] FieldValueInvalid']],
  ['an unknown request target', { rules: [{ requestTargets: ['Project'] }] }, ['spec.scope.rules[0].requestTargets[0] FieldValueNotSupported']],
  ['a cluster that is not a string', { rules: [{ cluster: ['c1'] }] }, ['spec.scope.rules[0].cluster FieldValueInvalid']],
  ['virtual clusters with a bad name', { rules: [{ virtualClusters: [{ name: 1 }] }] }, ['spec.scope.rules[0].virtualClusters[0].name FieldValueInvalid']],
  ['allowPlatformCli not a boolean', { rules: [{ allowPlatformCli: 'yes' }] }, ['spec.scope.rules[0].allowPlatformCli FieldValueInvalid']],
  ['allowLoftCli not a boolean', { allowLoftCli: 'yes' }, ['spec.scope.allowLoftCli FieldValueInvalid']],
];

describe('validateAccessScope', () => {
  it.each(INVALID_SCOPES)('refuses %s with a cause per field', (_what, scope, expected) => {
    expect(validateAccessScope(scope, 'spec.scope').map((cause) => `${cause.field ?? ''} ${cause.reason}`)).toEqual(expected);
  });

  it('accepts every valid shape, absent and null included', () => {
    const scope = {
      roles: [{ role: 'platformCLI', projects: ['p1'], virtualClusters: ['*'] }, { role: 'loft-cli' }, { role: 'metrics-reader' }],
      projects: [{ project: '*' }],
      spaces: [{ project: 'p1', space: '*' }],
      virtualClusters: [{ project: 'p1', virtualCluster: 'v1' }],
      clusters: [{ cluster: 'c1' }],
      rules: [
        {
          verbs: ['get', '*'],
          resources: [{ group: '', resources: ['pods', 'pods/log', '*/status'], resourceNames: ['a'] }, { group: '*' }],
          namespaces: ['', 'default'],
          nonResourceURLs: ['*', '/apis/*', '/version'],
          requestTargets: ['Management', 'Cluster', 'VirtualCluster', 'ProjectSpace', 'ProjectVirtualCluster'],
          cluster: 'c1',
          virtualClusters: [{ name: 'v1' }, {}],
          allowPlatformCli: true,
        },
      ],
      allowLoftCli: true,
    };
    expect(validateAccessScope(scope, 'spec.scope')).toEqual([]);
    expect(validateAccessScope(undefined, 'spec.scope')).toEqual([]);
    expect(validateAccessScope(null, 'spec.scope')).toEqual([]);
    expect(validateAccessScope({ rules: null }, 'spec.scope')).toEqual([]);
  });

  it('says what is wrong and how to fix it', () => {
    const [overlap] = validateAccessScope({ rules: [{ resources: [{ resources: ['*', 'pods'] }] }] }, 'spec.scope');
    expect(overlap?.message).toBe('Invalid value: "*": overlaps "pods" (spec.scope.rules[0].resources[0].resources[1]): wildcard entries must not overlap, keep only the broader one');
    const [role] = validateAccessScope({ roles: [{ role: 'root' }] }, 'spec.scope');
    expect(role?.message).toContain('supported values: "platformCLI", "loft-cli"');
  });
});
