import { stat } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { captureLogger, type CapturedLog } from '../../support/log-capture.js';
import { KEYS_PATH, ManagementFixture } from '../../support/management-fixture.js';
import { waitFor } from '../../support/wait-for.js';
import { Registry } from 'prom-client';
import { AccessKeyHasher } from '../../../src/management/access-key-hasher.js';
import { ManagementMetrics } from '../../../src/management/management-metrics.js';
import { metricValue } from '../../support/metrics.js';

const STORED = { resource: 'management.loft.sh/v1/ownedaccesskeys', namespace: '' };

/**
 * How long a change may take to reach the authenticator through its watch. Generous: the cache
 * has no time to live, so without the watch a key would stay accepted however long the test waits;
 * the test proves the path, not its speed (a loaded 2-core machine may pause for seconds).
 */
const WATCH_DEADLINE_MS = 15_000;

describe('access-key authentication', () => {
  let fixture: ManagementFixture;
  let log: CapturedLog;
  beforeAll(async () => {
    log = captureLogger('info');
    fixture = await ManagementFixture.start({ logger: log.logger });
  });
  afterAll(async () => {
    await fixture.stop();
  });

  it('the bootstrap admin key: written 0600 on first start, logged as its path only, works as admin', async () => {
    expect((await stat(fixture.bootstrapKeyPath)).mode & 0o777).toBe(0o600);
    expect(fixture.adminKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const logged = log.lines.find((line) => line['keyPath'] === fixture.bootstrapKeyPath);
    expect(logged).toBeDefined();
    expect(JSON.stringify(log.lines)).not.toContain(fixture.adminKey);
    expect((await fixture.call('GET', KEYS_PATH, { key: fixture.adminKey })).status).toBe(200);
  });

  it.each([
    ['no Authorization header', {}, 'send an access key'],
    ['a malformed header (Basic)', { authorization: 'Basic YWRtaW46YWRtaW4=' }, 'malformed'],
    ['a malformed header (two tokens)', { authorization: 'Bearer a b' }, 'malformed'],
    ['an unknown key', { key: 'UnknownKey_0123456789abcdefghijklmnopqrstu' }, 'not valid'],
  ])('%s → 401 Status', async (_case, call, message) => {
    const answer = await fixture.call('GET', KEYS_PATH, call);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    expect(answer.body.message).toContain(message);
  });

  it('a disabled key → 401 saying it is disabled; re-enabled, it works again', async () => {
    const key = (await fixture.createKey({ user: 'carol', disabled: true }, { name: 'disabled' })).body.spec.key as string;
    const refused = await fixture.call('GET', KEYS_PATH, { key });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toContain('"disabled" is disabled');
    await fixture.call('PATCH', `${KEYS_PATH}/disabled`, { key: fixture.adminKey, contentType: 'application/merge-patch+json', body: { spec: { disabled: false } } });
    await waitFor('the enabled key to work', async () => (await fixture.call('GET', KEYS_PATH, { key })).status === 200, { timeoutMs: WATCH_DEADLINE_MS });
  });

  it('expired by ttl (seconds from creation) → 401 saying it expired', async () => {
    const key = (await fixture.createKey({ user: 'dave', ttl: 60 }, { name: 'short-lived' })).body.spec.key as string;
    expect((await fixture.call('GET', KEYS_PATH, { key })).status).toBe(200);
    fixture.nowMs += 61_000;
    const expired = await fixture.call('GET', KEYS_PATH, { key });
    expect(expired.status).toBe(401);
    expect(expired.body.message).toMatch(/"short-lived" expired at .* \(at the end of its time to live\)/);
  });

  it('expired by inactivity (ttlAfterLastActivity): each use extends it, lastActivity is written (throttled)', async () => {
    const key = (await fixture.createKey({ user: 'erin', ttl: 120, ttlAfterLastActivity: true }, { name: 'idle' })).body.spec.key as string;
    fixture.nowMs += 100_000;
    expect((await fixture.call('GET', KEYS_PATH, { key })).status).toBe(200);
    const firstUse = fixture.nowMs;
    await waitFor('lastActivity to be written', async () => {
      const stored = await fixture.storage.get({ ...STORED, name: 'idle' });
      return Date.parse(String((stored?.['status'] as { lastActivity?: string } | undefined)?.lastActivity)) === Math.floor(firstUse / 1000) * 1000;
    });
    const writes = (await fixture.storage.get({ ...STORED, name: 'idle' }))?.metadata.resourceVersion;
    fixture.nowMs += 10_000;
    expect((await fixture.call('GET', KEYS_PATH, { key })).status).toBe(200);
    // Within the write interval: used, not written.
    expect((await fixture.storage.get({ ...STORED, name: 'idle' }))?.metadata.resourceVersion).toBe(writes);
    fixture.nowMs += 100_000;
    expect((await fixture.call('GET', KEYS_PATH, { key })).status).toBe(200);
    fixture.nowMs += 121_000;
    const expired = await fixture.call('GET', KEYS_PATH, { key });
    expect(expired.status).toBe(401);
    expect(expired.body.message).toContain('after its time to live without activity');
  });

  it('another owner’s key: a caller sees and changes only its own keys (404), cannot create keys for others or with groups it lacks (403)', async () => {
    const franksKey = (await fixture.createKey({ user: 'frank' }, { name: 'franks' })).body.spec.key as string;
    await fixture.createKey({ user: 'grace' }, { name: 'graces' });
    const own = await fixture.call('GET', KEYS_PATH, { key: franksKey });
    expect(own.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['franks']);
    expect((await fixture.call('GET', `${KEYS_PATH}/graces`, { key: franksKey })).status).toBe(404);
    expect((await fixture.call('DELETE', `${KEYS_PATH}/graces`, { key: franksKey })).status).toBe(404);
    expect((await fixture.createKey({ user: 'grace' }, { key: franksKey })).status).toBe(403);
    const escalation = await fixture.createKey({ user: 'frank', groups: ['management:admins'] }, { key: franksKey });
    expect(escalation.status).toBe(403);
    expect(escalation.body.message).toContain('"management:admins"');
    const mine = await fixture.createKey({ user: 'frank' }, { key: franksKey, name: 'franks-second' });
    expect(mine.status).toBe(201);
    expect((await fixture.call('GET', `${KEYS_PATH}/graces`, { key: fixture.adminKey })).status).toBe(200);
  });

  it('the cache is invalidated through the watch: a disabled or deleted key stops working (the cache has no time to live: only the watch can tell)', async () => {
    const key = (await fixture.createKey({ user: 'heidi' }, { name: 'cached' })).body.spec.key as string;
    expect((await fixture.call('GET', KEYS_PATH, { key })).status).toBe(200);
    expect((await fixture.call('GET', KEYS_PATH, { key })).status).toBe(200);
    expect(fixture.server.authenticator.cachedKeys).toBeGreaterThan(0);
    // Written behind the server's back (another replica): only the watch can tell this one.
    const stored = await fixture.storage.get({ ...STORED, name: 'cached' });
    await fixture.storage.update(STORED.resource, { ...structuredClone(stored!), spec: { ...(stored!['spec'] as object), disabled: true } });
    await waitFor('the disabled key to be refused', async () => (await fixture.call('GET', KEYS_PATH, { key })).status === 401, { timeoutMs: WATCH_DEADLINE_MS });
    const second = (await fixture.createKey({ user: 'heidi' }, { name: 'cached-2' })).body.spec.key as string;
    expect((await fixture.call('GET', KEYS_PATH, { key: second })).status).toBe(200);
    await fixture.storage.delete({ ...STORED, name: 'cached-2' });
    await waitFor('the deleted key to be refused', async () => (await fixture.call('GET', KEYS_PATH, { key: second })).status === 401, { timeoutMs: WATCH_DEADLINE_MS });
  });

  it('a cached key costs one HMAC per request and the same frozen user, until the key changes', async () => {
    const key = (await fixture.createKey({ user: 'kim', groups: ['readers'] }, { name: 'one-hmac' })).body.spec.key as string;
    const authorization = `Bearer ${key}`;
    // Its first use writes status.lastActivity, whose watch event evicts it once; then it stays cached.
    await waitFor('the key cached after its first use', async () => {
      expect((await fixture.server.authenticator.authenticate({ authorization })).ok).toBe(true);
      const stored = (await fixture.storage.get({ ...STORED, name: 'one-hmac' })) as { status?: { lastActivity?: string } } | undefined;
      return stored?.status?.lastActivity !== undefined && fixture.server.authenticator.cachedKeys > 0;
    });
    const hashes = vi.spyOn(AccessKeyHasher.prototype, 'hash');
    try {
      const first = await fixture.server.authenticator.authenticate({ authorization });
      const second = await fixture.server.authenticator.authenticate({ authorization });
      expect(hashes).toHaveBeenCalledTimes(2);
      if (!first.ok || !second.ok) throw new Error('the key did not authenticate');
      expect(second.user).toBe(first.user);
      expect(Object.isFrozen(first.user) && Object.isFrozen(first.user.groups) && Object.isFrozen(first.user.extra)).toBe(true);
      expect(first.user.groups).toEqual(['readers', 'system:authenticated']);
      // A wrong key of the same length is refused (the constant-time comparison of the hashes).
      expect((await fixture.server.authenticator.authenticate({ authorization: `Bearer ${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}` })).ok).toBe(false);
    } finally {
      hashes.mockRestore();
    }
    const patched = await fixture.call('PATCH', `${KEYS_PATH}/one-hmac`, { key: fixture.adminKey, contentType: 'application/merge-patch+json', body: { spec: { groups: ['writers'] } } });
    expect(patched.status).toBe(200);
    await waitFor('the changed key to authenticate as its new groups', async () => {
      const answer = await fixture.server.authenticator.authenticate({ authorization });
      return answer.ok && answer.user.groups.includes('writers') && !answer.user.groups.includes('readers');
    });
  });

  it('a flood of unknown keys does not list the keys each time; a key created with that value works at once', async () => {
    const wanted = 'Later_Created_Key_0123456789abcdefghij';
    expect((await fixture.call('GET', KEYS_PATH, { key: wanted })).status).toBe(401);
    const lists = vi.spyOn(fixture.storage, 'list');
    try {
      for (let attempt = 0; attempt < 5; attempt += 1) expect((await fixture.call('GET', KEYS_PATH, { key: wanted })).status).toBe(401);
      expect(lists).not.toHaveBeenCalled();
      expect((await fixture.createKey({ user: 'ivy', key: wanted }, { name: 'later' })).status).toBe(201);
      expect((await fixture.call('GET', KEYS_PATH, { key: wanted })).status).toBe(200);
    } finally {
      lists.mockRestore();
    }
  });
});

describe('access-key cache size (authCacheMaxKeys)', () => {
  it('keeps at most that many verified keys; a key evicted from it still authenticates, found through the index without a list', async () => {
    const fixture = await ManagementFixture.start({ authCacheMaxKeys: 1 });
    try {
      const first = (await fixture.createKey({ user: 'judy' }, { name: 'small-cache-1' })).body.spec.key as string;
      const second = (await fixture.createKey({ user: 'judy' }, { name: 'small-cache-2' })).body.spec.key as string;
      // Each key's first use writes its status.lastActivity, whose watch event evicts it: wait for
      // both writes (the map storage reports them as it stores them); no key changes after that.
      const lastActivity = async (name: string): Promise<unknown> => ((await fixture.storage.get({ ...STORED, name })) as { status?: { lastActivity?: string } } | undefined)?.status?.lastActivity;
      await waitFor('both keys used once', async () => {
        for (const key of [first, second]) expect((await fixture.call('GET', KEYS_PATH, { key })).status).toBe(200);
        return (await lastActivity('small-cache-1')) !== undefined && (await lastActivity('small-cache-2')) !== undefined && fixture.server.authenticator.cachedKeys > 0;
      });
      const lists = vi.spyOn(fixture.storage, 'list');
      const gets = vi.spyOn(fixture.storage, 'get');
      try {
        for (const key of [first, second, first]) {
          expect((await fixture.call('GET', `${KEYS_PATH}/small-cache-1`, { key })).status).toBe(200);
          expect(fixture.server.authenticator.cachedKeys).toBe(1);
        }
        // Every request missed the cache, the first included (the last key cached was the other
        // one): each read its key by name (and the GET its object), none listed the keys.
        expect(lists).not.toHaveBeenCalled();
        expect(gets.mock.calls.filter(([ref]) => ref.name === 'small-cache-2')).toHaveLength(1);
        expect(fixture.server.authenticator.indexedKeys).toBe(3);
      } finally {
        lists.mockRestore();
        gets.mockRestore();
      }
    } finally {
      await fixture.stop();
    }
  });
});

describe('refused access keys are counted (vcsync_management_authentication_failures_total)', () => {
  it('counts each 401 by cause, every cause present at zero from start; accepted keys are not counted', async () => {
    const registry = new Registry();
    const fixture = await ManagementFixture.start({ metrics: new ManagementMetrics(registry) });
    const failures = (cause: string): Promise<number> => metricValue(registry, 'vcsync_management_authentication_failures_total', { cause });
    try {
      for (const cause of ['no_key', 'malformed', 'unknown_key', 'disabled', 'expired', 'no_owner']) expect(await failures(cause)).toBe(0);
      const disabled = await fixture.newKey('counted-disabled', { user: 'kim', disabled: true });
      const shortLived = await fixture.newKey('counted-expiring', { user: 'kim', ttl: 60 });
      expect((await fixture.call('GET', KEYS_PATH, { key: shortLived })).status).toBe(200);
      fixture.nowMs += 61_000;
      const calls = [{}, { authorization: 'Basic YWRtaW46YWRtaW4=' }, { authorization: 'Bearer a b' }, { key: 'UnknownKey_0123456789abcdefghijklmnopqrstu' }, { key: disabled }, { key: shortLived }];
      for (const call of calls) expect((await fixture.call('GET', KEYS_PATH, call)).status).toBe(401);
      expect((await fixture.call('GET', KEYS_PATH, { key: fixture.adminKey })).status).toBe(200);
      expect({ noKey: await failures('no_key'), malformed: await failures('malformed'), unknown: await failures('unknown_key'), disabled: await failures('disabled'), expired: await failures('expired') }).toEqual({
        noKey: 1,
        malformed: 2,
        unknown: 1,
        disabled: 1,
        expired: 1,
      });
    } finally {
      await fixture.stop();
    }
  });
});

describe('a key missing from the cache is found through the index of key hashes', () => {
  let fixture: ManagementFixture;
  let replica: ManagementFixture;
  beforeAll(async () => {
    fixture = await ManagementFixture.start({ authCacheMaxKeys: 1 });
    // Another replica on the same storage: its writes reach the first one only through the watch.
    replica = await ManagementFixture.start({ storage: fixture.storage, authCacheMaxKeys: 1 });
  });
  afterAll(async () => {
    await replica.stop();
    await fixture.stop();
  });

  /**
   * GETs the key object `name` with `key` on `server` (caching one key) after a GET with the admin
   * key, so that `key` misses the cache and is looked up through the index; fails if that lists the keys.
   */
  async function missCall(server: ManagementFixture, key: string, name: string): Promise<number> {
    expect((await server.call('GET', `${KEYS_PATH}/${name}`, { key: fixture.adminKey })).status).not.toBe(401);
    const lists = vi.spyOn(server.storage, 'list');
    try {
      const status = (await server.call('GET', `${KEYS_PATH}/${name}`, { key })).status;
      expect(lists).not.toHaveBeenCalled();
      return status;
    } finally {
      lists.mockRestore();
    }
  }

  /** Waits until `key`, used as a cache miss on the first server, answers `status`. */
  async function missAnswers(key: string, name: string, status: number, what: string): Promise<void> {
    await waitFor(what, async () => (await missCall(fixture, key, name)) === status);
  }

  /** Changes the key object `name` on the other replica (merge patch of its spec, or a delete) as the admin. */
  async function changeOnReplica(name: string, change: Record<string, unknown> | 'delete'): Promise<void> {
    const answer =
      change === 'delete'
        ? await replica.call('DELETE', `${KEYS_PATH}/${name}`, { key: fixture.adminKey })
        : await replica.call('PATCH', `${KEYS_PATH}/${name}`, { key: fixture.adminKey, contentType: 'application/merge-patch+json', body: { spec: change } });
    expect(answer.status).toBe(200);
  }

  /** Creates the key object `name` of mallory on the other replica as the admin; returns its key. */
  async function createOnReplica(name: string): Promise<string> {
    const created = await replica.createKey({ user: 'mallory' }, { name, key: fixture.adminKey });
    expect(created.status).toBe(201);
    return created.body.spec.key as string;
  }

  it('a key created on another replica works at once on a miss; an unknown key is refused without a list', async () => {
    const key = await createOnReplica('miss-created');
    expect(await missCall(fixture, key, 'miss-created')).toBe(200);
    expect(await missCall(fixture, 'Never_Created_Key_0123456789abcdefghij', 'miss-created')).toBe(401);
    expect(fixture.server.authenticator.indexedKeys).toBeGreaterThanOrEqual(2);
  });

  it.each([
    ['disabled', { disabled: true }],
    ['deleted', 'delete' as const],
  ])('a key %s on another replica is refused on a miss', async (how, change) => {
    const name = `miss-${how}`;
    const key = await fixture.newKey(name, { user: 'mallory' });
    expect(await missCall(fixture, key, name)).toBe(200);
    await changeOnReplica(name, change);
    await missAnswers(key, name, 401, `the ${how} key refused`);
    expect(await missCall(replica, key, name)).toBe(401);
  });

  it('a key given a new value (rotated) on another replica: the old value is refused on a miss, the new one works', async () => {
    const old = await fixture.newKey('miss-rotated', { user: 'mallory' });
    expect(await missCall(fixture, old, 'miss-rotated')).toBe(200);
    const rotated = 'Rotated_Key_Value_0123456789abcdefghijk';
    await changeOnReplica('miss-rotated', { key: rotated });
    await missAnswers(old, 'miss-rotated', 401, 'the old value refused');
    expect(await missCall(fixture, rotated, 'miss-rotated')).toBe(200);
  });

  it('an expired key is refused on a miss', async () => {
    const key = await fixture.newKey('miss-expiring', { user: 'mallory', ttl: 60 });
    expect(await missCall(fixture, key, 'miss-expiring')).toBe(200);
    fixture.nowMs += 61_000;
    expect(await missCall(fixture, key, 'miss-expiring')).toBe(401);
    const refused = await fixture.call('GET', `${KEYS_PATH}/miss-expiring`, { key });
    expect(refused.body.message).toContain('"miss-expiring" expired');
  });

  it('a key deleted and created again under its name on another replica: only the new value works', async () => {
    const first = await fixture.newKey('miss-recreated', { user: 'mallory' });
    expect(await missCall(fixture, first, 'miss-recreated')).toBe(200);
    await changeOnReplica('miss-recreated', 'delete');
    const second = await createOnReplica('miss-recreated');
    await missAnswers(second, 'miss-recreated', 200, 'the new key accepted');
    expect(await missCall(fixture, first, 'miss-recreated')).toBe(401);
  });

  it('after a restart the index is built from the storage: kept keys work, deleted ones do not', async () => {
    const kept = await fixture.newKey('miss-kept', { user: 'mallory' });
    const gone = await fixture.newKey('miss-gone', { user: 'mallory' });
    await fixture.retireKey('miss-gone', 'deleted');
    const restarted = await ManagementFixture.start({ storage: fixture.storage, authCacheMaxKeys: 1 });
    try {
      await waitFor('the restarted server to index the keys', () => restarted.server.authenticator.indexedKeys > 0);
      expect(await missCall(restarted, kept, 'miss-kept')).toBe(200);
      expect(await missCall(restarted, gone, 'miss-kept')).toBe(401);
    } finally {
      await restarted.stop();
    }
  });
});
