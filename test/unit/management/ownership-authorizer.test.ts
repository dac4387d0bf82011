import { describe, expect, it } from 'vitest';
import type { AuthenticatedUser } from '../../../src/apiserver/request-authentication.js';
import type { ResourceRequest } from '../../../src/apiserver/request-info.js';
import { resourceType } from '../../../src/apiserver/resource-type.js';
import { AccessKeyHasher } from '../../../src/management/access-key-hasher.js';
import { authorizeManagementRequest, authorizeOwnership, callerScope } from '../../../src/management/ownership-authorizer.js';
import { ownedAccessKeyKind } from '../../../src/management/owned-access-key-kind.js';

const KEYS = resourceType(ownedAccessKeyKind({ platform: 'loft', hasher: new AccessKeyHasher(Buffer.alloc(32)) }));
const OTHER = resourceType({ group: 'management.loft.sh', version: 'v1', kind: 'Project', plural: 'projects' });
const list = (type = KEYS): ResourceRequest => ({ type, namespace: '', name: '', subresource: undefined, verb: 'list' });
const user = (kind: string, name: string, groups: string[] = []): AuthenticatedUser => ({
  username: name,
  groups,
  extra: { 'vcsync.dev/owner-kind': [kind], 'vcsync.dev/owner-name': [name], 'vcsync.dev/key-owners': [`${kind}=${name}`] },
});
const key = (spec: Record<string, unknown>): Record<string, unknown> => ({ metadata: { name: 'k' }, spec });

describe('the default ownership rule (a pure function)', () => {
  it('admins may see every key and use every resource; their key writes are still checked for scope escalation', () => {
    const admin = authorizeOwnership(user('user', 'root', ['management:admins']), list());
    if (!admin.allowed) throw new Error('refused');
    expect(admin.visible).toBeUndefined();
    expect(admin.refuseWrite?.(key({ user: 'bob', groups: ['anything'] }), undefined)).toBeUndefined();
    const scoped = { ...user('user', 'root', ['management:admins']), extra: { 'vcsync.dev/key-owners': ['user=root'], 'vcsync.dev/key-scope': [JSON.stringify({ roles: [{ role: 'platformCLI' }] })] } };
    const decision = authorizeOwnership(scoped, list());
    if (!decision.allowed) throw new Error('refused');
    expect(decision.refuseWrite?.(key({ user: 'bob' }), undefined)).toContain('spec.scope');
    expect(authorizeOwnership(user('user', 'root', ['management:admins']), list(OTHER))).toEqual({ allowed: true });
  });

  it('others: only their own keys (same owner kind and name), other resources refused', () => {
    const decision = authorizeOwnership(user('user', 'alice'), list());
    if (!decision.allowed) throw new Error('refused');
    expect(decision.visible?.(key({ user: 'alice' }))).toBe(true);
    expect(decision.visible?.(key({ user: 'bob' }))).toBe(false);
    expect(decision.visible?.(key({ team: 'alice' }))).toBe(false);
    expect(authorizeOwnership(user('user', 'alice'), list(OTHER))).toMatchObject({ allowed: false });
    expect(authorizeOwnership({ username: 'cert-user', groups: [] }, list())).toMatchObject({ allowed: false });
  });

  it('no escalation: a write may not add groups the caller is not in; groups the key has may stay', () => {
    const decision = authorizeOwnership(user('team', 'ops', ['ops-oncall']), list());
    if (!decision.allowed) throw new Error('refused');
    expect(decision.refuseWrite?.(key({ team: 'ops', groups: ['ops-oncall'] }), undefined)).toBeUndefined();
    expect(decision.refuseWrite?.(key({ team: 'ops', groups: ['management:admins'] }), undefined)).toContain('"management:admins"');
    expect(decision.refuseWrite?.(key({ team: 'ops', groups: ['legacy'] }), key({ team: 'ops', groups: ['legacy'] }))).toBeUndefined();
  });

  it('a key scope is parsed once and shared frozen; every request is still checked against it', () => {
    const json = JSON.stringify({ roles: [{ role: 'platformCLI' }] });
    const withScope = (name: string): AuthenticatedUser => ({ ...user('user', name), extra: { 'vcsync.dev/key-owners': [`user=${name}`], 'vcsync.dev/key-scope': [json] } });
    const first = callerScope(withScope('alice'));
    expect(callerScope(withScope('bob'))).toBe(first);
    expect(first).toEqual({ roles: [{ role: 'platformCLI' }] });
    expect(Object.isFrozen(first) && Object.isFrozen(first?.roles) && Object.isFrozen(first?.roles?.[0])).toBe(true);
    const get = { ...list(), verb: 'get', name: 'k' } as ResourceRequest;
    expect(authorizeManagementRequest(withScope('alice'), get, '/apis/management.loft.sh/v1/ownedaccesskeys/k')).toMatchObject({ allowed: true });
    expect(() => authorizeManagementRequest(withScope('alice'), { ...get, verb: 'delete' }, '/apis/management.loft.sh/v1/ownedaccesskeys/k')).toThrow(/delete/);
  });
});

