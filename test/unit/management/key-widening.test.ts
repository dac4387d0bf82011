import { describe, expect, it } from 'vitest';
import { authorizeKeyRequest, checkEscalation, type CallerIdentity } from '../../../src/management/key-ownership.js';
import { keyWidenings } from '../../../src/management/key-widening.js';
import { deepFreeze } from './scope-requests.js';

const CREATED = '2026-01-01T00:00:00Z';
const HASH = 'hmac-sha256:stored';
const KEYS_ONLY = { rules: [{ verbs: ['*'], resources: [{ group: 'management.loft.sh', resources: ['ownedaccesskeys'] }] }] };

/** A stored key of alice created at {@link CREATED}, with `spec` over the defaults and an optional status. */
function key(spec: Record<string, unknown>, status?: Record<string, unknown>): Record<string, unknown> {
  return deepFreeze({ metadata: { name: 'k', creationTimestamp: CREATED }, spec: { user: 'alice', key: HASH, ...spec }, ...(status !== undefined ? { status } : {}) });
}

describe('keyWidenings: which changes give a key more reach', () => {
  // [what, stored spec, written spec, widened fields; stored/written status optional]
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, string[], Record<string, unknown>?, Record<string, unknown>?]> = [
    ['nothing changes', {}, {}, []],
    ['a display name', {}, { displayName: 'x' }, []],
    ['the key kept (omitted: the stored hash is kept when sealed)', {}, { key: undefined }, []],
    ['a chosen key value', {}, { key: 'Chosen-0123456789abcdefghijklmnopqrstuvwxyz' }, ['spec.key']],
    ['another hash', {}, { key: 'hmac-sha256:other' }, ['spec.key']],
    ['enabling', { disabled: true }, { disabled: false }, ['spec.disabled']],
    ['enabling by dropping the field', { disabled: true }, { disabled: undefined }, ['spec.disabled']],
    ['disabling', {}, { disabled: true }, []],
    ['ttl 0 on a key with a ttl (never expires)', { ttl: 60 }, { ttl: 0 }, ['spec.ttl']],
    ['a longer ttl', { ttl: 60 }, { ttl: 3600 }, ['spec.ttl']],
    ['a shorter ttl', { ttl: 3600 }, { ttl: 60 }, []],
    ['a ttl on a key without one', {}, { ttl: 60 }, []],
    ['ttl dropped', { ttl: 60 }, { ttl: undefined }, ['spec.ttl']],
    ['ttl counted from a later last activity', { ttl: 60 }, { ttl: 60, ttlAfterLastActivity: true }, ['spec.ttlAfterLastActivity'], { lastActivity: '2026-01-02T00:00:00Z' }, { lastActivity: '2026-01-02T00:00:00Z' }],
    ['ttl counted from creation again', { ttl: 60, ttlAfterLastActivity: true }, { ttl: 60, ttlAfterLastActivity: false }, [], { lastActivity: '2026-01-02T00:00:00Z' }, { lastActivity: '2026-01-02T00:00:00Z' }],
    ['lastActivity moved forward', { ttl: 60, ttlAfterLastActivity: true }, { ttl: 60, ttlAfterLastActivity: true }, ['status.lastActivity'], { lastActivity: '2026-01-02T00:00:00Z' }, { lastActivity: '2026-02-01T00:00:00Z' }],
    ['lastActivity moved without ttlAfterLastActivity', { ttl: 60 }, { ttl: 60 }, [], { lastActivity: '2026-01-02T00:00:00Z' }, { lastActivity: '2026-02-01T00:00:00Z' }],
    ['scope dropped (unrestricted)', { scope: KEYS_ONLY }, {}, ['spec.scope']],
    ['scope set on an unrestricted key', {}, { scope: KEYS_ONLY }, []],
    ['scope widened by an entry', { scope: { projects: [{ project: 'p1' }] } }, { scope: { projects: [{ project: 'p1' }, { project: 'p2' }] } }, ['spec.scope.projects[1]']],
    ['scope narrowed', { scope: { projects: [{ project: 'p1' }, { project: 'p2' }] } }, { scope: { projects: [{ project: 'p2' }] } }, []],
    ['a group added', { groups: ['dev'] }, { groups: ['dev', 'ops'] }, ['spec.groups']],
    ['a group removed', { groups: ['dev', 'ops'] }, { groups: ['dev'] }, []],
    ['another user', {}, { user: 'bob' }, ['spec.user']],
    ['a team added', {}, { team: 'ops' }, ['spec.team']],
    ['an empty subject is no subject', { subject: '' }, {}, []],
    ['enabled with a new key and no ttl at once', { disabled: true, ttl: 60 }, { disabled: false, ttl: 0, key: 'Chosen-0123456789abcdefghijklmnopqrstuvwxyz' }, ['spec.key', 'spec.disabled', 'spec.ttl']],
  ];
  it.each(cases)('%s', (_what, before, after, fields, statusBefore, statusAfter) => {
    const next = structuredClone(key(after, statusAfter));
    const spec = next['spec'] as Record<string, unknown>;
    for (const [field, value] of Object.entries(after)) if (value === undefined) delete spec[field];
    expect(keyWidenings(key(before, statusBefore), next).map((widening) => widening.field)).toEqual(fields);
  });

  it('says when the key would expire instead', () => {
    const [widening] = keyWidenings(key({ ttl: 60 }), key({ ttl: 120 }));
    expect(widening?.why).toContain('expire 2026-01-01T00:02:00.000Z instead of 2026-01-01T00:01:00.000Z');
    expect(keyWidenings(key({ ttl: 60 }), key({ ttl: 0 }))[0]?.why).toContain('expire never instead of');
  });
});

describe('checkEscalation of a widening update: the result must be one the caller could create', () => {
  const narrow: CallerIdentity = Object.freeze({ user: 'alice', groups: [], admin: false, scope: deepFreeze(KEYS_ONLY) });
  const scopedAdmin: CallerIdentity = Object.freeze({ user: 'root', groups: [], admin: true, scope: deepFreeze(KEYS_ONLY) });
  const admin: CallerIdentity = Object.freeze({ user: 'root', groups: [], admin: true });
  const enabling = [{ field: 'spec.disabled', why: 'enabling a disabled key revives it' }];
  const wide = deepFreeze({ user: 'alice', groups: ['ops'] });

  it('refuses a widening of a key the caller could not have created, naming the widening and the excess', () => {
    const decision = checkEscalation(narrow, wide, wide, enabling);
    expect(decision).toEqual({ allowed: false, reason: expect.stringMatching(/^spec\.disabled: enabling a disabled key revives it\. .*could have created the resulting key itself.*: spec\.groups: "ops" not among/) });
    expect(checkEscalation(narrow, wide, wide)).toEqual({ allowed: true });
  });

  it('allows a widening of a key the caller could have created, and any widening by an unrestricted admin', () => {
    const own = deepFreeze({ user: 'alice', scope: KEYS_ONLY });
    expect(checkEscalation(narrow, own, own, enabling)).toEqual({ allowed: true });
    expect(checkEscalation(admin, wide, wide, enabling)).toEqual({ allowed: true });
  });

  it('holds a scoped admin to its scope: it may not revive an unrestricted key', () => {
    expect(checkEscalation(scopedAdmin, wide, wide, enabling)).toMatchObject({ allowed: false, reason: expect.stringContaining('spec.scope: an unrestricted scope exceeds') });
  });

  it('authorizeKeyRequest passes the widening of an update or patch, and ignores it on create', () => {
    expect(authorizeKeyRequest(narrow, 'patch', { stored: wide, proposed: wide, widened: enabling })).toMatchObject({ allowed: false });
    expect(authorizeKeyRequest(narrow, 'update', { stored: wide, proposed: wide, widened: [] })).toEqual({ allowed: true });
  });
});
