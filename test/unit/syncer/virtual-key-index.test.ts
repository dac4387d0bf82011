import { describe, expect, it } from 'vitest';
import { objectKey } from '../../../src/kube/object-key.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { VirtualKeyIndex } from '../../../src/syncer/virtual-key-index.js';

/** An object of namespace `shop` indexed under the value of its `group` label. */
function object(name: string, group: string | undefined, resourceVersion = '1'): KubeObject {
  return { metadata: { name, namespace: 'shop', resourceVersion, ...(group !== undefined ? { labels: { group } } : {}) } };
}

const byGroup = (o: KubeObject): string | undefined => o.metadata?.labels?.['group'];

describe('VirtualKeyIndex', () => {
  it('holds one key per value, then several, then one again, and forgets a value with no keys left', () => {
    const index = new VirtualKeyIndex(byGroup);
    const [a, b, c] = [object('a', 'g'), object('b', 'g'), object('c', 'g')];
    void index.handler.onAdd?.(a, true, objectKey(a));
    expect(index.keysOf('g')).toEqual(['shop/a']);
    void index.handler.onAdd?.(b, true, objectKey(b));
    void index.handler.onAdd?.(c, true, objectKey(c));
    expect(index.keysOf('g').sort()).toEqual(['shop/a', 'shop/b', 'shop/c']);
    void index.handler.onDelete?.(a, objectKey(a));
    void index.handler.onDelete?.(c, objectKey(c));
    expect(index.keysOf('g')).toEqual(['shop/b']);
    void index.handler.onAdd?.(a, false, objectKey(a));
    expect(index.keysOf('g').sort()).toEqual(['shop/a', 'shop/b']);
    void index.handler.onDelete?.(a, objectKey(a));
    void index.handler.onDelete?.(b, objectKey(b));
    expect(index.keysOf('g')).toEqual([]);
  });

  it('keeps a key once however often it is added, updated or resynced', () => {
    const index = new VirtualKeyIndex(byGroup);
    const a = object('a', 'g');
    void index.handler.onAdd?.(a, true, objectKey(a));
    void index.handler.onAdd?.(a, false, objectKey(a));
    void index.handler.onUpdate?.(a, a, objectKey(a));
    void index.handler.onUpdate?.(a, object('a', 'g', '2'), objectKey(object('a', 'g', '2')));
    expect(index.keysOf('g')).toEqual(['shop/a']);
    void index.handler.onDelete?.(object('a', 'g', '2'), objectKey(object('a', 'g', '2')));
    expect(index.keysOf('g')).toEqual([]);
  });

  it('moves a key when the value changes, and drops it when the object yields none', () => {
    const index = new VirtualKeyIndex(byGroup);
    const [a, b] = [object('a', 'g'), object('b', 'g')];
    void index.handler.onAdd?.(a, true, objectKey(a));
    void index.handler.onAdd?.(b, true, objectKey(b));
    void index.handler.onUpdate?.(b, object('b', 'h', '2'), objectKey(object('b', 'h', '2')));
    expect([index.keysOf('g'), index.keysOf('h')]).toEqual([['shop/a'], ['shop/b']]);
    void index.handler.onUpdate?.(object('b', 'h', '2'), object('b', undefined, '3'), objectKey(object('b', undefined, '3')));
    expect(index.keysOf('h')).toEqual([]);
    void index.handler.onUpdate?.(object('b', undefined, '3'), object('b', 'g', '4'), objectKey(object('b', 'g', '4')));
    expect(index.keysOf('g').sort()).toEqual(['shop/a', 'shop/b']);
  });

  it('indexes an object first seen in an update (a handler added after the object was cached)', () => {
    const index = new VirtualKeyIndex(byGroup);
    const a = object('a', 'g');
    void index.handler.onUpdate?.(a, a, objectKey(a));
    expect(index.keysOf('g')).toEqual(['shop/a']);
  });

  it('leaves other keys of a value alone when deleting a key it does not hold', () => {
    const index = new VirtualKeyIndex(byGroup);
    void index.handler.onAdd?.(object('a', 'g'), true, objectKey(object('a', 'g')));
    void index.handler.onDelete?.(object('z', 'g'), objectKey(object('z', 'g')));
    expect(index.keysOf('g')).toEqual(['shop/a']);
  });
});
