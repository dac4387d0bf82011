import { describe, expect, it } from 'vitest';
import { EventWindow } from '../../../../src/devcluster/storage/event-window.js';
import type { StoreEvent } from '../../../../src/devcluster/storage/types.js';

function event(revision: number): StoreEvent {
  return { type: 'ADDED', resource: 'r', revision, object: { metadata: { name: `o${revision}`, resourceVersion: String(revision) } } };
}

describe('EventWindow', () => {
  it('keeps the newest events up to its capacity and finds those after a revision', () => {
    const window = new EventWindow(4);
    expect(window.oldest()).toBeUndefined();
    for (const revision of [2, 3, 5, 8, 9, 12]) {
      window.push(event(revision));
    }
    expect(window.size).toBe(4);
    expect(window.oldest()?.revision).toBe(5);
    expect(window.newest()?.revision).toBe(12);
    expect([...window.after(0)].map((e) => e.revision)).toEqual([5, 8, 9, 12]);
    expect([...window.after(6)].map((e) => e.revision)).toEqual([8, 9, 12]);
    expect([...window.after(9)].map((e) => e.revision)).toEqual([12]);
    expect([...window.after(12)]).toEqual([]);
    expect(() => window.push(event(12))).toThrow(RangeError);
  });

  it('yields events pushed during iteration, even when the ring wraps meanwhile', () => {
    const window = new EventWindow(3);
    window.push(event(1));
    window.push(event(2));
    const seen: number[] = [];
    let next = 3;
    for (const e of window.after(0)) {
      seen.push(e.revision);
      if (next <= 6) {
        window.push(event(next++));
        window.push(event(next++));
      }
    }
    // 1 and 2 were read before being dropped; after 2 come whatever is retained and newer.
    expect(seen[0]).toBe(1);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.at(-1)).toBe(6);
  });
});
