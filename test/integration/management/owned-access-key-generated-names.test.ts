import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Storage } from '../../../src/apiserver/storage.js';
import { KEYS_PATH, ManagementFixture, type Answer } from '../../support/management-fixture.js';
import { startStoreBed, type StoreBed } from './store-bed.js';

/**
 * A generated name that is taken, made deterministic: while `collisions.left` is above 0, the
 * 5 random bytes of a generated name's suffix are zeros (suffix `bbbbb`); every other use of
 * randomBytes (keys, uids, certificates) stays random.
 */
const collisions = vi.hoisted(() => ({ left: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  const randomBytes = ((size: number, ...rest: unknown[]) => {
    if (size === 5 && rest.length === 0 && collisions.left > 0) {
      collisions.left -= 1;
      return Buffer.alloc(5);
    }
    return (actual.randomBytes as (...args: unknown[]) => Buffer)(size, ...rest);
  }) as typeof actual.randomBytes;
  return { ...actual, randomBytes, default: { ...actual, randomBytes } };
});

describe.each(['map', 'devcluster'] as const)('generateName collisions on OwnedAccessKeys over HTTPS on the %s storage', (backend) => {
  let bed: StoreBed | undefined;
  let fixture: ManagementFixture;
  beforeAll(async () => {
    let storage: Storage | undefined;
    if (backend === 'devcluster') {
      bed = await startStoreBed(undefined, 'vcsync-generated-names');
      storage = await bed.open();
    }
    fixture = await ManagementFixture.start(storage !== undefined ? { storage } : {});
    expect((await fixture.createKey({ user: 'alice' }, { name: 'gen-bbbbb' })).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    collisions.left = 0;
    await fixture?.stop();
    await bed?.stop();
  });

  const generate = (): Promise<Answer> =>
    fixture.call('POST', KEYS_PATH, { key: fixture.adminKey, body: { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { generateName: 'gen-' }, spec: { user: 'alice' } } });

  it('a taken generated name is retried with a new one (the real server’s RetryGenerateName)', async () => {
    collisions.left = 1;
    const created = await generate();
    expect(collisions.left).toBe(0);
    expect(created.status).toBe(201);
    expect(created.body.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(created.body.metadata.name).not.toBe('gen-bbbbb');
  });

  it('when every generated name is taken: 409 AlreadyExists saying no unique name could be generated, nothing stored', async () => {
    const names = async (): Promise<string[]> =>
      (await fixture.call('GET', KEYS_PATH, { key: fixture.adminKey })).body.items.map((item: { metadata: { name: string } }) => item.metadata.name).sort();
    const before = await names();
    collisions.left = 100;
    const refused = await generate();
    expect(collisions.left).toBe(92);
    collisions.left = 0;
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      kind: 'Status',
      reason: 'AlreadyExists',
      code: 409,
      message: 'ownedaccesskeys.management.loft.sh "gen-bbbbb" already exists, the server was not able to generate a unique name for the object',
      details: { name: 'gen-bbbbb', group: 'management.loft.sh', kind: 'ownedaccesskeys', retryAfterSeconds: 1 },
    });
    expect(await names()).toEqual(before);
  });
});
