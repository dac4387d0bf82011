import { describe, expect, it } from 'vitest';
import { WatchWriteTurns } from '../../../src/apiserver/watch-write-turns.js';

describe('WatchWriteTurns', () => {
  it('lets a few waiting watches write per turn, in the order they asked, yielding to I/O in between', async () => {
    const turns = new WatchWriteTurns(2);
    const order: string[] = [];
    const asked = ['a', 'b', 'c', 'd', 'e'].map((name) => turns.next().then(() => order.push(name)));
    // Between two turns the event loop runs other callbacks (an immediate queued now runs before the second turn).
    const between = new Promise<void>((resolve) => setImmediate(() => resolve(void order.push('other'))));
    await Promise.all([...asked, between]);
    expect(order).toEqual(['a', 'b', 'other', 'c', 'd', 'e']);
  });
});
