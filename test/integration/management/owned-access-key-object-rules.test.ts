import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../../../src/apiserver/storage.js';
import { KEYS_PATH, ManagementFixture, type Answer } from '../../support/management-fixture.js';
import { startRealControlPlane, type RealControlPlane } from '../../support/real-control-plane.js';
import { waitFor } from '../../support/wait-for.js';
import { startStoreBed, storeBackends, type StoreBed } from './store-bed.js';

/**
 * The object rules of the shared core (metadata, uid, resourceVersion, generation, finalizers,
 * owner references, managed fields), on OwnedAccessKeys over real HTTPS, on each storage the management server runs on: the test map storage, and the
 * host-Secret storage on a devcluster and (with its binaries) on the real kube-apiserver.
 */
const BACKENDS: Array<'map' | 'devcluster' | 'real'> = ['map', ...storeBackends('the OwnedAccessKey object rules')];

const API_VERSION = 'management.loft.sh/v1';
const QUALIFIED = 'ownedaccesskeys.management.loft.sh';

function ownerReference(owner: Answer, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: API_VERSION, kind: 'OwnedAccessKey', name: owner.body.metadata.name, uid: owner.body.metadata.uid, ...extra };
}

describe.each(BACKENDS)('OwnedAccessKey object rules over HTTPS on the %s storage', (backend) => {
  let plane: RealControlPlane | undefined;
  let bed: StoreBed | undefined;
  let fixture: ManagementFixture;
  beforeAll(async () => {
    if (backend === 'real') plane = await startRealControlPlane();
    let storage: Storage | undefined;
    if (backend !== 'map') {
      bed = await startStoreBed(plane, 'vcsync-key-rules');
      storage = await bed.open();
    }
    fixture = await ManagementFixture.start(storage !== undefined ? { storage } : {});
  }, 240_000);
  afterAll(async () => {
    await fixture?.stop();
    await bed?.stop();
    await plane?.close();
  });

  const post = (metadata: Record<string, unknown>, options: { key?: string; spec?: Record<string, unknown> } = {}): Promise<Answer> =>
    fixture.call('POST', KEYS_PATH, { key: options.key ?? fixture.adminKey, body: { apiVersion: API_VERSION, kind: 'OwnedAccessKey', metadata, spec: options.spec ?? { user: 'alice' } } });
  const get = (name: string): Promise<Answer> => fixture.call('GET', `${KEYS_PATH}/${name}`, { key: fixture.adminKey });
  const mergePatch = (name: string, body: unknown, key = fixture.adminKey): Promise<Answer> =>
    fixture.call('PATCH', `${KEYS_PATH}/${name}`, { key, contentType: 'application/merge-patch+json', body });
  const gone = (name: string): Promise<boolean> => get(name).then((answer) => answer.status === 404);

  it('generateName: a 5-character suffix is appended, a long prefix is truncated so the name fits 63 characters', async () => {
    const short = await post({ generateName: 'ci-' });
    expect(short.status).toBe(201);
    expect(short.body.metadata.name).toMatch(/^ci-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(short.body.metadata.generateName).toBe('ci-');
    expect((await get(short.body.metadata.name)).status).toBe(200);
    const long = await post({ generateName: `${'p'.repeat(70)}-` });
    expect(long.status).toBe(201);
    expect(long.body.metadata.name).toHaveLength(63);
    expect(long.body.metadata.name).toMatch(/^p{58}[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect((await get(long.body.metadata.name)).body.metadata.uid).toBe(long.body.metadata.uid);
  });

  it('name, uid and creationTimestamp are immutable: a PUT under another name is 400, another uid 409, a patched uid 422, a new creationTimestamp is ignored', async () => {
    const created = await post({ name: 'fixed' });
    const { uid, creationTimestamp } = created.body.metadata;
    const read = (await get('fixed')).body;
    const renamed = await fixture.call('PUT', `${KEYS_PATH}/fixed`, { key: fixture.adminKey, body: { ...read, metadata: { ...read.metadata, name: 'other' } } });
    expect(renamed.status).toBe(400);
    expect(renamed.body.message).toContain('does not match the name on the URL');
    const patchedName = await fixture.call('PATCH', `${KEYS_PATH}/fixed`, { key: fixture.adminKey, contentType: 'application/json-patch+json', body: [{ op: 'replace', path: '/metadata/name', value: 'other' }] });
    expect(patchedName.status).toBe(400);
    expect(patchedName.body.message).toBe('metadata.name: Invalid value: "other": field is immutable');
    const otherUid = '00000000-0000-4000-8000-000000000000';
    const putUid = await fixture.call('PUT', `${KEYS_PATH}/fixed`, { key: fixture.adminKey, body: { ...read, metadata: { ...read.metadata, uid: otherUid } } });
    expect(putUid.status).toBe(409);
    expect(putUid.body).toMatchObject({ reason: 'Conflict', message: `Operation cannot be fulfilled on ${QUALIFIED} "fixed": Precondition failed: UID in precondition: ${otherUid}, UID in object meta: ${uid}` });
    const patchedUid = await mergePatch('fixed', { metadata: { uid: otherUid } });
    expect(patchedUid.status).toBe(422);
    expect(patchedUid.body).toMatchObject({ reason: 'Invalid', message: `OwnedAccessKey "fixed" is invalid: metadata.uid: Invalid value: "${otherUid}": field is immutable` });
    const patchedTime = await mergePatch('fixed', { metadata: { creationTimestamp: '2000-01-01T00:00:00Z' } });
    expect(patchedTime.status).toBe(200);
    expect(patchedTime.body.metadata).toMatchObject({ uid, creationTimestamp });
    expect((await get('fixed')).body.metadata).toMatchObject({ name: 'fixed', uid, creationTimestamp });
  });

  it('resourceVersion conflicts and generation: a stale PUT or patch is 409, a label change keeps the generation, a spec change bumps it', async () => {
    const created = await post({ name: 'versioned' });
    expect(created.body.metadata.generation).toBe(1);
    const stale = (await get('versioned')).body;
    const labelled = await mergePatch('versioned', { metadata: { labels: { tier: 'ci' } } });
    expect(labelled.body.metadata.generation).toBe(1);
    expect(labelled.body.metadata.resourceVersion).not.toBe(stale.metadata.resourceVersion);
    const stalePut = await fixture.call('PUT', `${KEYS_PATH}/versioned`, { key: fixture.adminKey, body: { ...stale, spec: { ...stale.spec, displayName: 'late' } } });
    expect(stalePut.status).toBe(409);
    expect(stalePut.body).toMatchObject({ reason: 'Conflict', message: `Operation cannot be fulfilled on ${QUALIFIED} "versioned": the object has been modified; please apply your changes to the latest version and try again` });
    const stalePatch = await mergePatch('versioned', { metadata: { resourceVersion: stale.metadata.resourceVersion }, spec: { displayName: 'late' } });
    expect(stalePatch.status).toBe(409);
    const changed = await mergePatch('versioned', { metadata: { resourceVersion: labelled.body.metadata.resourceVersion }, spec: { displayName: 'current' } });
    expect(changed.status).toBe(200);
    expect(changed.body.metadata.generation).toBe(2);
    expect((await get('versioned')).body.spec.displayName).toBe('current');
  });

  it('finalizers: a DELETE marks the key (deletionTimestamp), no finalizer may be added then (422), removing the last one deletes it', async () => {
    await post({ name: 'held', finalizers: ['example.com/hold'] });
    const marked = await fixture.call('DELETE', `${KEYS_PATH}/held`, { key: fixture.adminKey });
    expect(marked.status).toBe(200);
    expect(marked.body.metadata.deletionTimestamp).toBeDefined();
    expect(marked.body.metadata.finalizers).toEqual(['example.com/hold']);
    const stamp = marked.body.metadata.deletionTimestamp;
    const added = await mergePatch('held', { metadata: { finalizers: ['example.com/hold', 'example.com/late'] } });
    expect(added.status).toBe(422);
    expect(added.body.message).toContain('no new finalizers can be added if the object is being deleted');
    const cleared = await mergePatch('held', { metadata: { deletionTimestamp: null, labels: { still: 'here' } } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.metadata.deletionTimestamp).toBe(stamp);
    expect((await mergePatch('held', { metadata: { finalizers: null } })).status).toBe(200);
    await waitFor('the released key to be gone', () => gone('held'), { timeoutMs: 10_000 });
  });

  it('at most one controller ownerReference: two answer 422 Invalid', async () => {
    const first = await post({ name: 'boss-1' });
    const second = await post({ name: 'boss-2' });
    const refused = await post({ name: 'two-bosses', ownerReferences: [ownerReference(first, { controller: true }), ownerReference(second, { controller: true })] });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ kind: 'Status', reason: 'Invalid' });
    expect(refused.body.message).toContain('Only one reference can have Controller set to true. Found "true" in references for OwnedAccessKey/boss-1 and OwnedAccessKey/boss-2');
    expect((await get('two-bosses')).status).toBe(404);
    expect((await post({ name: 'one-boss', ownerReferences: [ownerReference(first, { controller: true }), ownerReference(second)] })).status).toBe(201);
  });

  it('managedFields: one entry per manager, Update for create, PUT and patch, Apply for server-side apply', async () => {
    const created = await fixture.call('POST', `${KEYS_PATH}?fieldManager=creator`, {
      key: fixture.adminKey,
      body: { apiVersion: API_VERSION, kind: 'OwnedAccessKey', metadata: { name: 'managed' }, spec: { user: 'alice', displayName: 'first' } },
    });
    expect(created.body.metadata.managedFields.map((entry: { manager: string; operation: string }) => `${entry.manager}/${entry.operation}`)).toEqual(['creator/Update']);
    await fixture.call('PATCH', `${KEYS_PATH}/managed?fieldManager=patcher`, { key: fixture.adminKey, contentType: 'application/merge-patch+json', body: { spec: { description: 'patched' } } });
    const applied = await fixture.call('PATCH', `${KEYS_PATH}/managed?fieldManager=applier`, {
      key: fixture.adminKey,
      contentType: 'application/apply-patch+yaml',
      body: JSON.stringify({ apiVersion: API_VERSION, kind: 'OwnedAccessKey', metadata: { name: 'managed', labels: { applied: 'yes' } } }),
    });
    expect(applied.status).toBe(200);
    const entries = (await get('managed')).body.metadata.managedFields as Array<{ manager: string; operation: string; fieldsV1: Record<string, unknown> }>;
    expect(entries.map((entry) => `${entry.manager}/${entry.operation}`).sort()).toEqual(['applier/Apply', 'creator/Update', 'patcher/Update']);
    expect(entries.find((entry) => entry.manager === 'patcher')?.fieldsV1).toEqual({ 'f:spec': { 'f:description': {} } });
    expect(entries.find((entry) => entry.manager === 'applier')?.fieldsV1).toEqual({ 'f:metadata': { 'f:labels': { 'f:applied': {} } } });
  });

  it('blockOwnerDeletion: true needs the right to update the owner’s finalizers; without it 422 with the real server’s words', async () => {
    const bobs = await post({ name: 'bobs' }, { spec: { user: 'bob' } });
    const alice = await post({ name: 'alices' });
    const aliceKey = alice.body.spec.key as string;
    const refused = await post({ name: 'child-of-bob', ownerReferences: [ownerReference(bobs, { blockOwnerDeletion: true })] }, { key: aliceKey });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      kind: 'Status',
      reason: 'Invalid',
      details: { name: 'child-of-bob', group: 'management.loft.sh', kind: 'OwnedAccessKey', causes: [{ reason: 'FieldValueForbidden', field: 'metadata.ownerReferences[0].blockOwnerDeletion' }] },
    });
    expect(refused.body.message).toBe(
      `OwnedAccessKey "child-of-bob" is invalid: metadata.ownerReferences[0].blockOwnerDeletion: Forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: the ownedaccesskey "bobs" is not one of the caller's own keys, <nil>`,
    );
    expect((await get('child-of-bob')).status).toBe(404);
    // Without blockOwnerDeletion the reference only lets the collector delete alice's key with bob's.
    expect((await post({ name: 'loose-child', ownerReferences: [ownerReference(bobs)] }, { key: aliceKey })).status).toBe(201);
    const switched = await mergePatch('loose-child', { metadata: { ownerReferences: [ownerReference(bobs, { blockOwnerDeletion: true })] } }, aliceKey);
    expect(switched.status).toBe(422);
    expect(switched.body.message).toContain("cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on");
    expect((await post({ name: 'child-of-alice', ownerReferences: [ownerReference(alice, { blockOwnerDeletion: true })] }, { key: aliceKey })).status).toBe(201);
    expect((await post({ name: 'admins-child', ownerReferences: [ownerReference(bobs, { blockOwnerDeletion: true })] })).status).toBe(201);
    const unserved = await post({ name: 'child-of-widget', ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'u-1', blockOwnerDeletion: true }] }, { key: aliceKey });
    expect(unserved.status).toBe(422);
    expect(unserved.body.message).toContain('cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Widget');
  });

  it('blockOwnerDeletion: a key whose scope does not allow update of ownedaccesskeys/finalizers may not set it (422); one whose scope does may', async () => {
    const rules = (resources: string[]): Record<string, unknown> => ({ rules: [{ verbs: ['create', 'get', 'update'], resources: [{ group: 'management.loft.sh', resources }] }] });
    const narrow = rules(['ownedaccesskeys']);
    const wide = rules(['ownedaccesskeys', 'ownedaccesskeys/finalizers']);
    const owner = await post({ name: 'scoped-owner' });
    const narrowKey = (await post({ name: 'narrow' }, { spec: { user: 'alice', scope: narrow } })).body.spec.key as string;
    const wideKey = (await post({ name: 'wide' }, { spec: { user: 'alice', scope: wide } })).body.spec.key as string;
    const refused = await post({ name: 'narrow-child', ownerReferences: [ownerReference(owner, { blockOwnerDeletion: true })] }, { key: narrowKey, spec: { user: 'alice', scope: narrow } });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain("can't set finalizers on: the access key's scope does not allow update ownedaccesskeys/finalizers.management.loft.sh");
    const allowed = await post({ name: 'wide-child', ownerReferences: [ownerReference(owner, { blockOwnerDeletion: true })] }, { key: wideKey, spec: { user: 'alice', scope: wide } });
    expect(allowed.status).toBe(201);
  });

  it('garbage collection, Background: deleting an owner key deletes its dependents, keeps one with another live owner', async () => {
    const owner = await post({ name: 'gc-owner' });
    const other = await post({ name: 'gc-other' });
    await post({ name: 'gc-dependent', ownerReferences: [ownerReference(owner)] });
    await post({ name: 'gc-shared', ownerReferences: [ownerReference(owner), ownerReference(other)] });
    expect((await fixture.call('DELETE', `${KEYS_PATH}/gc-owner`, { key: fixture.adminKey })).status).toBe(200);
    await waitFor('the dependent to be collected', () => gone('gc-dependent'), { timeoutMs: 10_000 });
    await waitFor('the shared key to lose its reference to the deleted owner', async () => (await get('gc-shared')).body.metadata.ownerReferences?.length === 1, { timeoutMs: 10_000 });
    expect((await get('gc-shared')).body.metadata.ownerReferences).toEqual([ownerReference(other)]);
  });

  it('garbage collection: a key created with an ownerReference to a uid that does not exist is collected', async () => {
    const ghost = { apiVersion: API_VERSION, kind: 'OwnedAccessKey', name: 'never-there', uid: '11111111-1111-4111-8111-111111111111' };
    expect((await post({ name: 'orphaned-at-birth', ownerReferences: [ghost] })).status).toBe(201);
    await waitFor('the key with a missing owner to be collected', () => gone('orphaned-at-birth'), { timeoutMs: 10_000 });
  });

  it('garbage collection, Orphan: the owner waits for its dependents to lose the reference, then goes; they stay', async () => {
    const owner = await post({ name: 'orphan-owner' });
    await post({ name: 'orphan-dependent', ownerReferences: [ownerReference(owner)] });
    const marked = await fixture.call('DELETE', `${KEYS_PATH}/orphan-owner?propagationPolicy=Orphan`, { key: fixture.adminKey });
    expect(marked.status).toBe(200);
    expect(marked.body.metadata.finalizers).toEqual(['orphan']);
    await waitFor('the orphaned owner to be gone', () => gone('orphan-owner'), { timeoutMs: 10_000 });
    const kept = await get('orphan-dependent');
    expect(kept.status).toBe(200);
    expect(kept.body.metadata.ownerReferences).toBeUndefined();
  });

  it('garbage collection, Foreground: dependents go first; the owner stays while a blockOwnerDeletion dependent is held', async () => {
    const owner = await post({ name: 'fg-owner' });
    await post({ name: 'fg-dependent', ownerReferences: [ownerReference(owner)] });
    await post({ name: 'fg-blocker', finalizers: ['example.com/hold'], ownerReferences: [ownerReference(owner, { blockOwnerDeletion: true })] });
    const marked = await fixture.call('DELETE', `${KEYS_PATH}/fg-owner`, { key: fixture.adminKey, body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' } });
    expect(marked.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    await waitFor('the plain dependent to be collected', () => gone('fg-dependent'), { timeoutMs: 10_000 });
    await waitFor('the blocker to be marked for deletion', async () => (await get('fg-blocker')).body.metadata.deletionTimestamp !== undefined, { timeoutMs: 10_000 });
    expect((await get('fg-owner')).body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect((await mergePatch('fg-blocker', { metadata: { finalizers: null } })).status).toBe(200);
    await waitFor('the owner to go once its blocker went', () => gone('fg-owner'), { timeoutMs: 10_000 });
  });
});
