import { describe, expect, it } from 'vitest';
import { CacheStore, indexByNamespace, NAMESPACE_INDEX } from '../../../src/kube/cache-store.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';

function obj(namespace: string, name: string, rv: string, labels: Record<string, string> = {}): KubeObject {
  return { metadata: { namespace, name, resourceVersion: rv, labels } };
}

describe('CacheStore', () => {
  it('has no index unless given one (not even by namespace)', () => {
    const store = new CacheStore<KubeObject>();
    store.upsert(obj('a', 'x', '1'));
    expect(() => store.byIndex(NAMESPACE_INDEX, 'a')).toThrow(RangeError);
  });

  it('keys objects namespace/name and indexes them by namespace when given indexByNamespace', () => {
    const store = new CacheStore<KubeObject>({ [NAMESPACE_INDEX]: indexByNamespace });
    store.upsert(obj('a', 'x', '1'));
    store.upsert(obj('b', 'x', '2'));
    store.upsert({ metadata: { name: 'cluster-wide', resourceVersion: '3' } });
    expect(store.get('a/x')?.metadata?.resourceVersion).toBe('1');
    expect(store.get('cluster-wide')).toBeDefined();
    expect(store.byIndex('namespace', 'b').map((o) => o.metadata?.name)).toEqual(['x']);
    expect(store.byIndex('namespace', '').map((o) => o.metadata?.name)).toEqual(['cluster-wide']);
    expect(store.byIndex('namespace', 'zzz')).toEqual([]);
    expect(() => store.byIndex('nope', 'a')).toThrow(RangeError);
  });

  it('replace reports adds, changed objects as updates, and missing objects as deletes', () => {
    const store = new CacheStore<KubeObject>();
    expect(store.hasSynced()).toBe(false);
    store.replace([obj('n', 'keep', '1'), obj('n', 'change', '1'), obj('n', 'gone', '1')], '10');
    expect(store.hasSynced()).toBe(true);
    expect(store.resourceVersion).toBe('10');
    const delta = store.replace([obj('n', 'keep', '1'), obj('n', 'change', '5'), obj('n', 'new', '6')], '20');
    expect(delta.added.map(({ key, object }) => [key, object.metadata?.name])).toEqual([['n/new', 'new']]);
    expect(delta.updated.map((u) => [u.old.metadata?.resourceVersion, u.current.metadata?.resourceVersion])).toEqual([['1', '5']]);
    expect(delta.deleted.map(({ key, object }) => [key, object.metadata?.name])).toEqual([['n/gone', 'gone']]);
    expect(store.keys().sort()).toEqual(['n/change', 'n/keep', 'n/new']);
    expect(store.resourceVersion).toBe('20');
  });

  it('keeps custom indexes consistent across updates and deletes, including ones added later', () => {
    const store = new CacheStore<KubeObject>({ app: (o) => [o.metadata?.labels?.['app'] ?? ''] });
    store.upsert(obj('n', 'a', '1', { app: 'web', tier: 'front' }));
    store.upsert(obj('n', 'b', '1', { app: 'web', tier: 'back' }));
    expect(store.byIndex('app', 'web')).toHaveLength(2);
    store.upsert(obj('n', 'a', '2', { app: 'db', tier: 'back' }));
    expect(store.byIndex('app', 'web').map((o) => o.metadata?.name)).toEqual(['b']);
    expect(store.byIndex('app', 'db').map((o) => o.metadata?.name)).toEqual(['a']);
    store.addIndexer('tier', (o) => [o.metadata?.labels?.['tier'] ?? '']);
    expect(store.byIndex('tier', 'back')).toHaveLength(2);
    store.delete('n/b');
    expect(store.byIndex('app', 'web')).toEqual([]);
    expect(store.byIndex('tier', 'back').map((o) => o.metadata?.name)).toEqual(['a']);
    expect(store.delete('n/b')).toBeUndefined();
  });
});
