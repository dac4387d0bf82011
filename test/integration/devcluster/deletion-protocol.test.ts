import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/devcluster/storage/open-store.js';
import { startFixture, useDevclusterFixture } from '../../support/devcluster-fixture.js';

const fx = useDevclusterFixture();

const NS = '/api/v1/namespaces';
const cm = (name: string, metadata: Record<string, unknown> = {}): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...metadata }, data: { a: '1' } });
const ownedBy = (uid: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid, ...extra }] });

async function createNamespace(name: string): Promise<void> {
  expect((await fx.request(NS, { method: 'POST', body: { metadata: { name } } })).status).toBe(201);
}

/** Creates `owner` in `namespace` and answers its uid. */
async function createOwner(namespace: string): Promise<string> {
  const owner = await fx.request(`${NS}/${namespace}/configmaps`, { method: 'POST', body: cm('owner') });
  expect(owner.status).toBe(201);
  return owner.body.metadata.uid as string;
}

describe('namespaces', () => {
  it('defaults the name label, the kubernetes finalizer and the Active phase, and keeps spec.finalizers on update', async () => {
    const created = await fx.request(NS, { method: 'POST', body: { metadata: { name: 'defaults', labels: { team: 'a' } }, spec: { finalizers: ['example.com/mine'] }, status: { phase: 'Terminating' } } });
    expect(created.body.metadata.labels).toEqual({ team: 'a', 'kubernetes.io/metadata.name': 'defaults' });
    expect(created.body.spec).toEqual({ finalizers: ['example.com/mine', 'kubernetes'] });
    expect(created.body.status).toEqual({ phase: 'Active' });
    const updated = await fx.request(`${NS}/defaults`, { method: 'PUT', body: { ...created.body, metadata: { ...created.body.metadata, labels: {} }, spec: {} } });
    expect(updated.status).toBe(200);
    expect(updated.body.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'defaults' });
    expect(updated.body.spec).toEqual({ finalizers: ['example.com/mine', 'kubernetes'] });
  });

  it('goes Terminating on DELETE, then the controller empties it and it goes', async () => {
    await createNamespace('doomed');
    await fx.request(`${NS}/doomed/configmaps`, { method: 'POST', body: cm('inside') });
    const deleted = await fx.request(`${NS}/doomed`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(deleted.body.kind).toBe('Namespace');
    expect(deleted.body.metadata.deletionTimestamp).toBeDefined();
    expect(deleted.body.metadata.deletionGracePeriodSeconds).toBeUndefined();
    expect(deleted.body.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(deleted.body.status).toEqual({ phase: 'Terminating' });
    await fx.cluster.settled();
    expect((await fx.request(`${NS}/doomed`)).status).toBe(404);
    expect((await fx.request(`${NS}/doomed/configmaps/inside`)).status).toBe(404);
  });

  it('stays Terminating with the deletion conditions while content has finalizers, and refuses creates meanwhile', async () => {
    await createNamespace('held');
    await fx.request(`${NS}/held/configmaps`, { method: 'POST', body: cm('hold', { finalizers: ['example.com/hold'] }) });
    await fx.request(`${NS}/held/configmaps`, { method: 'POST', body: cm('plain') });
    await fx.request(`${NS}/held`, { method: 'DELETE' });
    await fx.cluster.settled();
    expect((await fx.request(`${NS}/held/configmaps/plain`)).status).toBe(404);
    const waiting = await fx.request(`${NS}/held`);
    expect(waiting.body.status.phase).toBe('Terminating');
    const conditions = waiting.body.status.conditions.map(({ lastTransitionTime, ...rest }: { lastTransitionTime: string }) => {
      expect(lastTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      return rest;
    });
    expect(conditions).toEqual([
      { type: 'NamespaceDeletionDiscoveryFailure', status: 'False', reason: 'ResourcesDiscovered', message: 'All resources successfully discovered' },
      { type: 'NamespaceDeletionGroupVersionParsingFailure', status: 'False', reason: 'ParsedGroupVersions', message: 'All legacy kube types successfully parsed' },
      { type: 'NamespaceDeletionContentFailure', status: 'False', reason: 'ContentDeleted', message: 'All content successfully deleted, may be waiting on finalization' },
      { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: 'Some resources are remaining: configmaps. has 1 resource instances' },
      { type: 'NamespaceFinalizersRemaining', status: 'True', reason: 'SomeFinalizersRemain', message: 'Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances' },
    ]);
    const refused = await fx.request(`${NS}/held/configmaps`, { method: 'POST', body: { metadata: { generateName: 'late-' } } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      reason: 'Forbidden',
      message: 'configmaps "late-" is forbidden: unable to create new content in namespace held because it is being terminated',
      details: { name: 'late-', kind: 'configmaps', causes: [{ reason: 'NamespaceTerminating', message: 'namespace held is being terminated', field: 'metadata.namespace' }] },
    });
    expect((await fx.request(`${NS}/held/configmaps/hold`, { method: 'PATCH', contentType: 'application/merge-patch+json', body: { metadata: { finalizers: null } } })).status).toBe(200);
    await fx.cluster.settled();
    expect((await fx.request(`${NS}/held`)).status).toBe(404);
  });

  it('keeps a namespace that a metadata finalizer holds until it is removed', async () => {
    await fx.request(NS, { method: 'POST', body: { metadata: { name: 'kept', finalizers: ['example.com/ns'] } } });
    await fx.request(`${NS}/kept`, { method: 'DELETE' });
    await fx.cluster.settled();
    const finalized = await fx.request(`${NS}/kept`);
    expect(finalized.body.spec).toEqual({});
    expect(finalized.body.metadata.finalizers).toEqual(['example.com/ns']);
    await fx.request(`${NS}/kept`, { method: 'PATCH', contentType: 'application/merge-patch+json', body: { metadata: { finalizers: null } } });
    expect((await fx.request(`${NS}/kept`)).status).toBe(404);
  });

  it('refuses to delete default, kube-system and kube-public, even as a dry run; a dry run of another answers it marked', async () => {
    for (const name of ['default', 'kube-system', 'kube-public']) {
      const refused = await fx.request(`${NS}/${name}?dryRun=All`, { method: 'DELETE' });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ reason: 'Forbidden', message: `namespaces "${name}" is forbidden: this namespace may not be deleted`, details: { name, kind: 'namespaces' } });
    }
    const dry = await fx.request(`${NS}/kube-node-lease?dryRun=All&propagationPolicy=Orphan`, { method: 'DELETE' });
    expect(dry.status).toBe(200);
    // A dry run answers the namespace as the delete would mark it, and stores nothing.
    expect(dry.body.status.phase).toBe('Terminating');
    expect(dry.body.metadata.finalizers).toEqual(['orphan']);
    expect(dry.body.metadata.deletionTimestamp).toBeDefined();
    const stored = await fx.request(`${NS}/kube-node-lease`);
    expect(stored.body.status.phase).toBe('Active');
    expect(stored.body.metadata.deletionTimestamp).toBeUndefined();
  });
});

describe('delete options', () => {
  it('names the Kind in the Conflict of a failed uid or resourceVersion precondition', async () => {
    await createNamespace('preconditions');
    const created = await fx.request(`${NS}/preconditions/configmaps`, { method: 'POST', body: cm('c') });
    const wrongUid = await fx.request(`${NS}/preconditions/configmaps/c`, { method: 'DELETE', body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } } });
    expect(wrongUid.status).toBe(409);
    expect(wrongUid.body.details.kind).toBe('ConfigMap');
    expect(wrongUid.body.message).toBe(`Operation cannot be fulfilled on ConfigMap "c": Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${created.body.metadata.uid}`);
    const wrongVersion = await fx.request(`${NS}/preconditions/configmaps/c`, { method: 'DELETE', body: { preconditions: { resourceVersion: '1' } } });
    expect(wrongVersion.body.details.kind).toBe('ConfigMap');
  });
});

describe('garbage collector', () => {
  it('Background: deletes the dependents of a deleted owner, and keeps those with another live owner', async () => {
    await createNamespace('gc-background');
    const uid = await createOwner('gc-background');
    const other = (await fx.request(`${NS}/gc-background/configmaps`, { method: 'POST', body: cm('other') })).body.metadata.uid as string;
    await fx.request(`${NS}/gc-background/configmaps`, { method: 'POST', body: cm('dep', ownedBy(uid)) });
    const shared = { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid }, { apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid: other }] };
    await fx.request(`${NS}/gc-background/configmaps`, { method: 'POST', body: cm('shared', shared) });
    const deleted = await fx.request(`${NS}/gc-background/configmaps/owner?propagationPolicy=Background`, { method: 'DELETE' });
    expect(deleted.body).toMatchObject({ kind: 'Status', status: 'Success' });
    await fx.cluster.settled();
    expect((await fx.request(`${NS}/gc-background/configmaps/dep`)).status).toBe(404);
    const kept = await fx.request(`${NS}/gc-background/configmaps/shared`);
    expect(kept.body.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', name: 'other', uid: other }]);
  });

  it('orphanDependents with a propagationPolicy: 422 as on the real server, nothing deleted; orphanDependents reads like its bool parameter (hostile-input finding)', async () => {
    await createNamespace('gc-both');
    await createOwner('gc-both');
    const both = await fx.request(`${NS}/gc-both/configmaps/owner?orphanDependents=maybe&propagationPolicy=Foreground`, { method: 'DELETE' });
    expect(both.status).toBe(422);
    expect(both.body).toMatchObject({
      reason: 'Invalid',
      message: 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Foreground": orphanDependents and deletionPropagation cannot be both set',
    });
    const inBody = await fx.request(`${NS}/gc-both/configmaps/owner`, { method: 'DELETE', body: { kind: 'DeleteOptions', apiVersion: 'v1', orphanDependents: false, propagationPolicy: 'Background' } });
    expect(inBody.status).toBe(422);
    expect((await fx.request(`${NS}/gc-both/configmaps/owner`)).body.metadata.deletionTimestamp).toBeUndefined();
    // Any value but false or 0 is true, as the real server converts query parameters: Orphan.
    const orphaned = await fx.request(`${NS}/gc-both/configmaps/owner?orphanDependents=maybe`, { method: 'DELETE' });
    expect(orphaned.body.metadata.finalizers).toEqual(['orphan']);
  });

  it('Orphan: marks the owner with the orphan finalizer, removes the owner reference from dependents, then the owner', async () => {
    await createNamespace('gc-orphan');
    const uid = await createOwner('gc-orphan');
    await fx.request(`${NS}/gc-orphan/configmaps`, { method: 'POST', body: cm('dep', ownedBy(uid)) });
    const marked = await fx.request(`${NS}/gc-orphan/configmaps/owner`, { method: 'DELETE', body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' } });
    expect(marked.body.kind).toBe('ConfigMap');
    expect(marked.body.metadata.finalizers).toEqual(['orphan']);
    expect(marked.body.metadata.deletionTimestamp).toBeDefined();
    await fx.cluster.settled();
    expect((await fx.request(`${NS}/gc-orphan/configmaps/owner`)).status).toBe(404);
    const orphan = await fx.request(`${NS}/gc-orphan/configmaps/dep`);
    expect(orphan.status).toBe(200);
    expect(orphan.body.metadata.ownerReferences).toBeUndefined();
  });

  it('Foreground: deletes dependents first and keeps the owner while a blockOwnerDeletion dependent remains', async () => {
    await createNamespace('gc-foreground');
    const uid = await createOwner('gc-foreground');
    await fx.request(`${NS}/gc-foreground/configmaps`, { method: 'POST', body: cm('dep', ownedBy(uid)) });
    await fx.request(`${NS}/gc-foreground/configmaps`, { method: 'POST', body: cm('blocker', { ...ownedBy(uid, { blockOwnerDeletion: true }), finalizers: ['example.com/hold'] }) });
    const marked = await fx.request(`${NS}/gc-foreground/configmaps/owner?propagationPolicy=Foreground`, { method: 'DELETE' });
    expect(marked.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    await fx.cluster.settled();
    expect((await fx.request(`${NS}/gc-foreground/configmaps/dep`)).status).toBe(404);
    const blocker = await fx.request(`${NS}/gc-foreground/configmaps/blocker`);
    expect(blocker.body.metadata.deletionTimestamp).toBeDefined();
    const waiting = await fx.request(`${NS}/gc-foreground/configmaps/owner`);
    expect(waiting.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    await fx.request(`${NS}/gc-foreground/configmaps/blocker`, { method: 'PATCH', contentType: 'application/merge-patch+json', body: { metadata: { finalizers: null } } });
    await fx.cluster.settled();
    expect((await fx.request(`${NS}/gc-foreground/configmaps/owner`)).status).toBe(404);
  });

  it('a second DELETE with another propagationPolicy adds its finalizer to an owner that other finalizers keep', async () => {
    await createNamespace('gc-switch');
    const owner = await fx.request(`${NS}/gc-switch/configmaps`, { method: 'POST', body: cm('owner', { finalizers: ['example.com/hold'] }) });
    await fx.request(`${NS}/gc-switch/configmaps`, { method: 'POST', body: cm('dep', ownedBy(owner.body.metadata.uid as string)) });
    const marked = await fx.request(`${NS}/gc-switch/configmaps/owner`, { method: 'DELETE' });
    expect(marked.body.metadata.finalizers).toEqual(['example.com/hold']);
    await fx.cluster.settled();
    expect((await fx.request(`${NS}/gc-switch/configmaps/dep`)).status).toBe(200);
    const switched = await fx.request(`${NS}/gc-switch/configmaps/owner?propagationPolicy=Foreground`, { method: 'DELETE' });
    expect(switched.body.metadata.finalizers).toEqual(['example.com/hold', 'foregroundDeletion']);
    expect(switched.body.metadata.deletionTimestamp).toBe(marked.body.metadata.deletionTimestamp);
    await fx.cluster.settled();
    expect((await fx.request(`${NS}/gc-switch/configmaps/dep`)).status).toBe(404);
    expect((await fx.request(`${NS}/gc-switch/configmaps/owner`)).body.metadata.finalizers).toEqual(['example.com/hold']);
  });

  it('leaves alone a dependent whose owner is of a kind the server does not serve', async () => {
    await createNamespace('gc-foreign');
    const foreign = { ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: '7d8b2b44-0000-4000-8000-000000000000' }] };
    await fx.request(`${NS}/gc-foreign/configmaps`, { method: 'POST', body: cm('dep', foreign) });
    await fx.cluster.settled();
    expect((await fx.request(`${NS}/gc-foreign/configmaps/dep`)).status).toBe(200);
  });
});

describe('garbage collector with a data directory', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vcsync-gc-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('collects after a restart what an owner deleted (or marked Orphan) before the restart left behind', async () => {
    const first = await startFixture({ dataDir });
    const ns = `${NS}/default/configmaps`;
    const owner = (await first.request(ns, { method: 'POST', body: cm('owner') })).body.metadata.uid as string;
    await first.request(ns, { method: 'POST', body: cm('dep', ownedBy(owner)) });
    const orphaning = (await first.request(ns, { method: 'POST', body: cm('orphaning') })).body.metadata.uid as string;
    await first.request(ns, { method: 'POST', body: cm('orphan', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'orphaning', uid: orphaning }] }) });
    await first.cluster.close();
    // The state a crash leaves between a DELETE's commit and the collector's work on it.
    const store = await openStore({ dataDir });
    try {
      const resource = 'core/v1/configmaps';
      await store.delete({ resource, namespace: 'default', name: 'owner' });
      const marked = store.get({ resource, namespace: 'default', name: 'orphaning' });
      if (marked === undefined) throw new Error('the orphaning owner is missing from the data directory');
      await store.update(resource, { ...marked, metadata: { ...marked.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0, finalizers: ['orphan'] } });
    } finally {
      await store.close();
    }
    const second = await startFixture({ dataDir });
    try {
      await second.cluster.settled();
      expect((await second.request(`${ns}/dep`)).status).toBe(404);
      expect((await second.request(`${ns}/orphaning`)).status).toBe(404);
      const orphan = await second.request(`${ns}/orphan`);
      expect(orphan.status).toBe(200);
      expect(orphan.body.metadata.ownerReferences).toBeUndefined();
    } finally {
      await second.cluster.close();
    }
  });
});
