import { afterEach, describe, expect, it } from 'vitest';
import { isAlreadyExists, isConflict, isInvalid, isNotFound } from '../../../src/apimachinery/index.js';
import { CoreResources, collectionPath, objectPath } from '../../../src/kube/api-path.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { startTestBed, type TestBed } from './support.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.stop();
  bed = undefined;
});

describe('RestClient against a devcluster', () => {
  it('creates, reads, updates with optimistic concurrency, patches three ways, lists pages and deletes', async () => {
    bed = await startTestBed();
    const client = bed.client;
    const cms = collectionPath(CoreResources.configMaps, 'default');
    const path = objectPath(CoreResources.configMaps, 'default', 'one');
    const created = await client.create<ConfigMap>(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { a: '1' } });
    expect(created.metadata?.uid).toBeTruthy();
    expect(isAlreadyExists(await client.create(cms, { metadata: { name: 'one' } }).catch((e: unknown) => e))).toBe(true);

    const stale = { ...created, data: { a: 'stale' } };
    const updated = await client.update<ConfigMap>(path, { ...created, data: { a: '2' } });
    expect(updated.metadata?.resourceVersion).not.toBe(created.metadata?.resourceVersion);
    expect(isConflict(await client.update(path, stale).catch((e: unknown) => e))).toBe(true);

    await client.patch(path, 'merge', { data: { b: 'merge' } });
    await client.patch(path, 'strategic', { data: { c: 'strategic' } });
    const patched = await client.patch<ConfigMap>(path, 'json', [{ op: 'add', path: '/data/d', value: 'json' }]);
    expect(patched.data).toEqual({ a: '2', b: 'merge', c: 'strategic', d: 'json' });

    for (const name of ['two', 'three']) await client.create(cms, { metadata: { name } });
    const first = await client.list<ConfigMap>(cms, { limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.metadata?.continue).toBeTruthy();
    const second = await client.list<ConfigMap>(cms, { limit: 2, continue: first.metadata?.continue });
    expect([...first.items, ...second.items].map((c) => c.metadata?.name).sort()).toEqual(['one', 'three', 'two']);
    const selected = await client.list<ConfigMap>(cms, { fieldSelector: 'metadata.name=two' });
    expect(selected.items.map((c) => c.metadata?.name)).toEqual(['two']);

    await client.delete(path);
    expect(isNotFound(await client.get(path).catch((e: unknown) => e))).toBe(true);
    expect(isInvalid(await client.create(cms, { metadata: { name: 'Not_Valid' } }).catch((e: unknown) => e))).toBe(true);
  });
});
