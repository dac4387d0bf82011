import { describe, expect, it } from 'vitest';
import { WatchEventCache } from '../../../src/apiserver/watch-event-cache.js';
import type { StoredObject } from '../../../src/apiserver/storage.js';

describe('WatchEventCache', () => {
  const object: StoredObject = Object.freeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: Object.freeze({ name: 'a', resourceVersion: '3' }) });

  it('serialises a line once per object, event type and representation, and hands out the same bytes', () => {
    const encoded: string[] = [];
    const cache = new WatchEventCache((representation) => encoded.push(representation));
    const json = { representation: 'json', shared: true, encode: (stored: StoredObject) => stored };
    const first = cache.line('ADDED', object, json);
    expect(cache.line('ADDED', object, json)).toBe(first);
    expect(first.toString()).toBe(`${JSON.stringify({ type: 'ADDED', object })}\n`);
    cache.line('MODIFIED', object, json);
    cache.line('ADDED', object, { representation: 'partial', shared: true, encode: (stored) => ({ metadata: stored.metadata }) });
    expect(encoded).toEqual(['json', 'json', 'partial']);
  });

  it('encodes a per-watcher representation every time', () => {
    const encoded: string[] = [];
    const cache = new WatchEventCache((representation) => encoded.push(representation));
    let calls = 0;
    const table = { representation: 'table', shared: false, encode: () => ({ calls: (calls += 1) }) };
    expect(cache.line('ADDED', object, table).toString()).toContain('"calls":1');
    expect(cache.line('ADDED', object, table).toString()).toContain('"calls":2');
    expect(encoded).toEqual(['table', 'table']);
  });
});
