import { describe, expect, it } from 'vitest';
import type { AccessScope } from '../../../src/management/access-scope.js';
import { authorizeKeyRequest, authorizeOwnership, checkEscalation, filterOwnedKeys, ownsKey, type CallerIdentity } from '../../../src/management/key-ownership.js';
import { scopeExcess } from '../../../src/management/scope-subset.js';
import { deepFreeze } from './scope-requests.js';

const alice: CallerIdentity = Object.freeze({ user: 'alice', groups: ['dev', 'ci'], admin: false });
const ops: CallerIdentity = Object.freeze({ team: 'ops', groups: [], admin: false });
const robot: CallerIdentity = Object.freeze({ subject: 'robot-1', groups: [], admin: false });
const nobody: CallerIdentity = Object.freeze({ groups: [], admin: false });
const admin: CallerIdentity = Object.freeze({ user: 'admin', groups: [], admin: true });

describe('key ownership', () => {
  it.each([
    ['user', alice, { user: 'alice' }, true],
    ['user of another', alice, { user: 'bob' }, false],
    ['team', ops, { team: 'ops' }, true],
    ['team of another', ops, { team: 'dev' }, false],
    ['subject', robot, { subject: 'robot-1' }, true],
    ['subject of another', robot, { subject: 'robot-2' }, false],
    ['a user key seen by the team', ops, { user: 'alice' }, false],
    ['a key naming user and team, caller only the user', alice, { user: 'alice', team: 'ops' }, false],
    ['a key naming no owner', alice, {}, false],
    ['a key naming empty owners', alice, { user: '', team: '' }, false],
    ['any key for a caller without identity', nobody, {}, false],
  ] as const)('%s: owned %s', (_what, caller, key, owned) => {
    expect(ownsKey(caller, key)).toBe(owned);
  });

  it('lets a caller get, update, patch and delete its own keys, and refuses another owner’s without naming that owner', () => {
    for (const verb of ['get', 'update', 'patch', 'delete', 'watch']) {
      expect(authorizeOwnership(alice, verb, { user: 'alice' })).toEqual({ allowed: true });
      const refused = authorizeOwnership(alice, verb, { user: 'bob' });
      expect(refused).toEqual({ allowed: false, reason: expect.stringContaining('does not belong to the caller (user "alice")') });
      expect(refused.allowed ? '' : refused.reason).not.toContain('bob');
    }
  });

  it('lets an admin reach every key', () => {
    for (const verb of ['get', 'update', 'delete', 'create']) expect(authorizeOwnership(admin, verb, { user: 'bob' })).toEqual({ allowed: true });
    expect(authorizeOwnership(admin, 'delete')).toEqual({ allowed: true });
  });

  it('allows collection verbs without a target (results filtered) and refuses a single-object verb without one', () => {
    for (const verb of ['list', 'watch', 'deletecollection']) expect(authorizeOwnership(alice, verb)).toEqual({ allowed: true });
    expect(authorizeOwnership(alice, 'get')).toEqual({ allowed: false, reason: expect.stringContaining('get needs the access key') });
  });

  it('filters lists to the caller’s own keys, everything for an admin', () => {
    const items = Object.freeze([{ spec: { user: 'alice' } }, { spec: { user: 'bob' } }, { spec: { team: 'ops' } }, {}]);
    expect(filterOwnedKeys(alice, items)).toEqual([{ spec: { user: 'alice' } }]);
    expect(filterOwnedKeys(ops, items)).toEqual([{ spec: { team: 'ops' } }]);
    expect(filterOwnedKeys(nobody, items)).toEqual([]);
    expect(filterOwnedKeys(admin, items)).toEqual(items);
  });
});

describe('escalation', () => {
  it('lets a caller create a key for itself with some of its groups', () => {
    expect(checkEscalation(alice, { user: 'alice', groups: ['ci'] })).toEqual({ allowed: true });
    expect(checkEscalation(ops, { team: 'ops' })).toEqual({ allowed: true });
  });

  it('refuses a key for someone else, naming the field and the fix', () => {
    expect(checkEscalation(alice, { user: 'bob' })).toEqual({ allowed: false, reason: expect.stringMatching(/^spec\.user\/spec\.team\/spec\.subject: .*set spec\.user: "alice" and no other owner/) });
    expect(checkEscalation(alice, { user: 'alice', team: 'ops' }).allowed).toBe(false);
    expect(checkEscalation(alice, {}).allowed).toBe(false);
    expect(checkEscalation(nobody, { user: 'x' })).toEqual({ allowed: false, reason: expect.stringContaining('only an admin may create keys for a caller without an identity') });
  });

  it('refuses groups the caller does not have', () => {
    expect(checkEscalation(alice, { user: 'alice', groups: ['ci', 'admins'] })).toEqual({ allowed: false, reason: expect.stringMatching(/^spec\.groups: "admins" not among the caller's groups/) });
  });

  it('lets an admin create keys for anyone with any groups, within its own scope', () => {
    expect(checkEscalation(admin, { user: 'bob', groups: ['admins'], scope: { rules: [{}] } })).toEqual({ allowed: true });
    const scopedAdmin: CallerIdentity = { ...admin, scope: { projects: [{ project: 'p1' }] } };
    expect(checkEscalation(scopedAdmin, { user: 'bob', scope: { projects: [{ project: 'p1' }] } })).toEqual({ allowed: true });
    expect(checkEscalation(scopedAdmin, { user: 'bob' })).toEqual({ allowed: false, reason: expect.stringMatching(/^spec\.scope: an unrestricted scope exceeds/) });
  });

  it('refuses a scope that exceeds the caller’s, naming the entry', () => {
    const caller: CallerIdentity = { ...alice, scope: { projects: [{ project: 'p1' }] } };
    expect(checkEscalation(caller, { user: 'alice', scope: { projects: [{ project: 'p1' }, { project: 'p2' }] } })).toEqual({
      allowed: false,
      reason: expect.stringMatching(/^spec\.scope\.projects\[1\]: this entry exceeds the caller's own scope/),
    });
    expect(checkEscalation(caller, { user: 'alice', scope: {} }).allowed).toBe(false);
    expect(checkEscalation({ ...alice }, { user: 'alice', scope: { rules: [{}] } })).toEqual({ allowed: true });
  });
});

describe('one OwnedAccessKey request: ownership and escalation together', () => {
  const scoped: CallerIdentity = Object.freeze({ user: 'alice', groups: ['dev'], admin: false, scope: Object.freeze({ roles: [Object.freeze({ role: 'platformCLI' })] }) });
  const wide = deepFreeze({ user: 'alice', groups: ['dev', 'ops'], scope: { rules: [{}] } });

  it('lets an owner edit a key an admin gave more reach, keeping its groups and scope', () => {
    expect(checkEscalation(scoped, wide)).toMatchObject({ allowed: false });
    expect(authorizeKeyRequest(scoped, 'update', { stored: wide, proposed: { ...wide } })).toEqual({ allowed: true });
    expect(authorizeKeyRequest(scoped, 'patch', { stored: wide, proposed: { ...wide, groups: ['dev'] } })).toEqual({ allowed: true });
  });

  it('refuses an update that widens the scope or adds a group the caller lacks', () => {
    const own = deepFreeze({ user: 'alice', groups: ['dev'], scope: { roles: [{ role: 'platformCLI' }] } });
    expect(authorizeKeyRequest(scoped, 'update', { stored: own, proposed: { ...own, scope: { rules: [{}] } } })).toEqual({ allowed: false, reason: expect.stringMatching(/^spec\.scope\.rules\[0\]: /) });
    expect(authorizeKeyRequest(scoped, 'update', { stored: own, proposed: { ...own, groups: ['dev', 'root'] } })).toEqual({ allowed: false, reason: expect.stringMatching(/^spec\.groups: "root"/) });
  });

  it('refuses giving one’s key away and touching another owner’s key', () => {
    const own = deepFreeze({ user: 'alice', groups: [], scope: { roles: [{ role: 'platformCLI' }] } });
    expect(authorizeKeyRequest(scoped, 'update', { stored: own, proposed: { ...own, user: 'bob' } })).toMatchObject({ allowed: false, reason: expect.stringMatching(/^spec\.user/) });
    expect(authorizeKeyRequest(scoped, 'patch', { stored: { user: 'bob' }, proposed: { user: 'alice' } })).toMatchObject({ allowed: false, reason: expect.stringContaining('does not belong to the caller') });
    expect(authorizeKeyRequest(scoped, 'delete', { stored: { user: 'bob' } })).toMatchObject({ allowed: false });
    expect(authorizeKeyRequest(scoped, 'get', { stored: own })).toEqual({ allowed: true });
  });

  it('checks a create like checkEscalation, and needs the written key', () => {
    expect(authorizeKeyRequest(scoped, 'create', { proposed: { user: 'alice', scope: { roles: [{ role: 'loft-cli' }] } } })).toEqual({ allowed: true });
    expect(authorizeKeyRequest(scoped, 'create', { proposed: wide, stored: wide })).toMatchObject({ allowed: false });
    expect(authorizeKeyRequest(scoped, 'create')).toEqual({ allowed: false, reason: 'create needs the access key it writes' });
    expect(authorizeKeyRequest(scoped, 'list')).toEqual({ allowed: true });
  });
});

/** [what, caller scope, requested scope, first uncovered entry or undefined]. */
const SUBSET_CASES: [string, AccessScope | undefined, AccessScope | undefined, string | undefined][] = deepFreeze([
  ['unrestricted caller covers anything', undefined, { rules: [{}] }, undefined],
  ['empty caller scope is unrestricted', { roles: [] }, undefined, undefined],
  ['unrestricted request exceeds a restricted caller', { projects: [{ project: 'p1' }] }, undefined, ''],
  ['empty request exceeds a restricted caller', { projects: [{ project: 'p1' }] }, { projects: [] }, ''],
  ['same project', { projects: [{ project: 'p1' }] }, { projects: [{ project: 'p1' }] }, undefined],
  ['other project', { projects: [{ project: 'p1' }] }, { projects: [{ project: 'p2' }] }, 'projects[0]'],
  ['wildcard project covers a name', { projects: [{ project: '*' }] }, { projects: [{ project: 'p2' }] }, undefined],
  ['a name does not cover the wildcard', { projects: [{ project: 'p1' }] }, { projects: [{ project: '*' }] }, 'projects[0]'],
  ['project covers its spaces', { projects: [{ project: 'p1' }] }, { spaces: [{ project: 'p1', space: 's1' }] }, undefined],
  ['project does not cover another project’s spaces', { projects: [{ project: 'p1' }] }, { spaces: [{ project: 'p2', space: 's1' }] }, 'spaces[0]'],
  ['space wildcard covers a space', { spaces: [{ project: 'p1', space: '*' }] }, { spaces: [{ project: 'p1', space: 's9' }] }, undefined],
  ['a space does not cover its project', { spaces: [{ project: 'p1', space: '*' }] }, { projects: [{ project: 'p1' }] }, 'projects[0]'],
  ['project covers its virtual clusters', { projects: [{ project: 'p1' }] }, { virtualClusters: [{ project: 'p1', virtualCluster: 'v1' }] }, undefined],
  ['virtual cluster covered by the same', { virtualClusters: [{ project: 'p1', virtualCluster: 'v1' }] }, { virtualClusters: [{ project: 'p1', virtualCluster: 'v1' }] }, undefined],
  ['virtual cluster not covered by another', { virtualClusters: [{ project: 'p1', virtualCluster: 'v1' }] }, { virtualClusters: [{ project: 'p1', virtualCluster: 'v2' }] }, 'virtualClusters[0]'],
  ['cluster wildcard covers a cluster', { clusters: [{ cluster: '*' }] }, { clusters: [{ cluster: 'c1' }] }, undefined],
  ['cluster not covered by another', { clusters: [{ cluster: 'c1' }] }, { clusters: [{ cluster: 'c2' }] }, 'clusters[0]'],
  ['role needs the same role', { roles: [{ role: 'metrics-reader' }] }, { roles: [{ role: 'agent' }] }, 'roles[0]'],
  ['platformCLI and loft-cli are one role', { roles: [{ role: 'loft-cli' }] }, { roles: [{ role: 'platformCLI' }] }, undefined],
  ['narrower role covered', { roles: [{ role: 'platformCLI', projects: ['p1', 'p2'] }] }, { roles: [{ role: 'platformCLI', projects: ['p1'] }] }, undefined],
  ['wider role not covered', { roles: [{ role: 'platformCLI', projects: ['p1'] }] }, { roles: [{ role: 'platformCLI' }] }, 'roles[0]'],
  ['role virtual clusters narrowed', { roles: [{ role: 'vcluster', virtualClusters: ['v1'] }] }, { roles: [{ role: 'vcluster', virtualClusters: ['v2'] }] }, 'roles[0]'],
  ['allowPlatformCli covers the platformCLI role', { rules: [{ allowPlatformCli: true, verbs: ['get'] }] }, { roles: [{ role: 'platformCLI' }] }, undefined],
  ['platformCLI role covers allowPlatformCli only with a covering rule part', { roles: [{ role: 'platformCLI' }] }, { rules: [{ allowPlatformCli: true }] }, 'rules[0]'],
  ['narrowed platformCLI does not cover allowPlatformCli', { roles: [{ role: 'platformCLI', projects: ['p1'] }], rules: [{}] }, { rules: [{ allowPlatformCli: true }] }, 'rules[0]'],
  ['rules are covered by rules only', { projects: [{ project: '*' }] }, { rules: [{ verbs: ['get'] }] }, 'rules[0]'],
  ['fewer verbs covered', { rules: [{ verbs: ['get', 'list'] }] }, { rules: [{ verbs: ['get'] }] }, undefined],
  ['more verbs not covered', { rules: [{ verbs: ['get'] }] }, { rules: [{ verbs: ['get', 'delete'] }] }, 'rules[0]'],
  ['all verbs not covered by some', { rules: [{ verbs: ['get'] }] }, { rules: [{}] }, 'rules[0]'],
  ['wildcard verbs cover all', { rules: [{ verbs: ['*'] }] }, { rules: [{ verbs: ['delete'] }] }, undefined],
  ['namespaces subset', { rules: [{ namespaces: ['a', ''] }] }, { rules: [{ namespaces: [''] }] }, undefined],
  ['namespaces superset', { rules: [{ namespaces: ['a'] }] }, { rules: [{ namespaces: [] }] }, 'rules[0]'],
  ['request targets subset', { rules: [{ requestTargets: ['Management'] }] }, { rules: [{ requestTargets: ['Cluster'] }] }, 'rules[0]'],
  ['cluster set covers the same cluster only', { rules: [{ cluster: 'c1' }] }, { rules: [{ cluster: 'c1' }] }, undefined],
  ['cluster set does not cover no cluster', { rules: [{ cluster: 'c1' }] }, { rules: [{}] }, 'rules[0]'],
  ['virtual clusters covered by an empty-name entry', { rules: [{ virtualClusters: [{ namespace: 'ns' }] }] }, { rules: [{ virtualClusters: [{ name: 'v1', namespace: 'ns' }] }] }, undefined],
  ['virtual clusters not covered', { rules: [{ virtualClusters: [{ name: 'v1' }] }] }, { rules: [{ virtualClusters: [{ name: 'v2' }] }] }, 'rules[0]'],
  ['virtual clusters restriction dropped', { rules: [{ virtualClusters: [{ name: 'v1' }] }] }, { rules: [{}] }, 'rules[0]'],
  ['resources subset', { rules: [{ resources: [{ group: 'g', resources: ['a', 'b'] }] }] }, { rules: [{ resources: [{ group: 'g', resources: ['a'] }] }] }, undefined],
  ['resources of another group', { rules: [{ resources: [{ group: 'g', resources: ['a'] }] }] }, { rules: [{ resources: [{ group: 'h', resources: ['a'] }] }] }, 'rules[0]'],
  ['group wildcard covers a group', { rules: [{ resources: [{ group: '*' }] }] }, { rules: [{ resources: [{ group: 'h', resources: ['a'] }] }] }, undefined],
  ['whole group not covered by some resources', { rules: [{ resources: [{ group: 'g', resources: ['a'] }] }] }, { rules: [{ resources: [{ group: 'g' }] }] }, 'rules[0]'],
  ['a resource does not cover its subresources', { rules: [{ resources: [{ group: 'g', resources: ['a'] }] }] }, { rules: [{ resources: [{ group: 'g', resources: ['a/status'] }] }] }, 'rules[0]'],
  ['a/* covers a/status', { rules: [{ resources: [{ group: 'g', resources: ['a/*'] }] }] }, { rules: [{ resources: [{ group: 'g', resources: ['a/status'] }] }] }, undefined],
  ['*/status covers a/status, not a', { rules: [{ resources: [{ group: 'g', resources: ['*/status'] }] }] }, { rules: [{ resources: [{ group: 'g', resources: ['a/status', 'a'] }] }] }, 'rules[0]'],
  ['resourceNames subset', { rules: [{ resources: [{ group: 'g', resources: ['a'], resourceNames: ['x', 'y'] }] }] }, { rules: [{ resources: [{ group: 'g', resources: ['a'], resourceNames: ['x'] }] }] }, undefined],
  ['resourceNames dropped', { rules: [{ resources: [{ group: 'g', resources: ['a'], resourceNames: ['x'] }] }] }, { rules: [{ resources: [{ group: 'g', resources: ['a'] }] }] }, 'rules[0]'],
  ['every resource not covered by some', { rules: [{ resources: [{ group: 'g' }] }] }, { rules: [{}] }, 'rules[0]'],
  ['non-resource URL under a wildcard', { rules: [{ nonResourceURLs: ['/apis/*'] }] }, { rules: [{ nonResourceURLs: ['/apis/x', '/apis/y/*'] }] }, undefined],
  ['non-resource URL outside', { rules: [{ nonResourceURLs: ['/apis/*'] }] }, { rules: [{ nonResourceURLs: ['/apis'] }] }, 'rules[0]'],
  ['* covers any URL', { rules: [{ nonResourceURLs: ['*'] }] }, { rules: [{ nonResourceURLs: ['/metrics', '*'] }] }, undefined],
  ['a non-resource rule does not cover resources', { rules: [{ nonResourceURLs: ['*'] }] }, { rules: [{}] }, 'rules[0]'],
  ['a non-resource rule is covered whatever the caller rule’s resources', { rules: [{ resources: [{ group: 'g' }], nonResourceURLs: ['/version'] }] }, { rules: [{ nonResourceURLs: ['/version'] }] }, undefined],
  ['a resource rule does not cover URLs', { rules: [{}] }, { rules: [{ nonResourceURLs: ['/version'] }] }, 'rules[0]'],
  ['first uncovered entry is named', { projects: [{ project: 'p1' }], roles: [{ role: 'platformCLI' }] }, { roles: [{ role: 'loft-cli' }], projects: [{ project: 'p1' }, { project: 'p3' }] }, 'projects[1]'],
]);

describe('scope subset (what "exceeds" means)', () => {
  it.each(SUBSET_CASES)('%s', (_what, caller, requested, excess) => {
    expect(scopeExcess(caller, requested)).toBe(excess);
  });
});
