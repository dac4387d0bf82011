import { describe, expect, it } from 'vitest';
import { WatchWriteTurns } from '../../../src/apiserver/watch-write-turns.js';

describe('WatchWriteTurns', () => {
  /** Turns on a clock that only the bursts move. */
  function turnsOnClock(budgetMs: number): { turns: WatchWriteTurns; spend: (ms: number) => void } {
    let now = 0;
    return { turns: new WatchWriteTurns({ budgetMs, now: () => now }), spend: (ms) => (now += ms) };
  }

  it('runs waiting bursts in the order they asked until the budget is spent, yielding to I/O in between', async () => {
    const { turns, spend } = turnsOnClock(2);
    const order: string[] = [];
    const asked = ['a', 'b', 'c', 'd', 'e'].map((name) =>
      turns.run(() => {
        spend(1);
        order.push(name);
      }),
    );
    // Between two turns the event loop runs other callbacks (an immediate queued now runs before the second turn).
    const between = new Promise<void>((resolve) => setImmediate(() => resolve(void order.push('other'))));
    await Promise.all([...asked, between]);
    expect(order).toEqual(['a', 'b', 'other', 'c', 'd', 'e']);
  });

  it('yields after one burst that takes longer than the budget, whatever the number of watches waiting', async () => {
    const { turns, spend } = turnsOnClock(2);
    const order: string[] = [];
    const asked = ['slow', 'next'].map((name) =>
      turns.run(() => {
        spend(name === 'slow' ? 50 : 1);
        order.push(name);
      }),
    );
    const between = new Promise<void>((resolve) => setImmediate(() => resolve(void order.push('other'))));
    await Promise.all([...asked, between]);
    expect(order).toEqual(['slow', 'other', 'next']);
  });

  it('rejects only the run whose burst threw', async () => {
    const { turns } = turnsOnClock(2);
    const failed = turns.run(() => {
      throw new Error('socket gone');
    });
    const fine = turns.run(() => undefined);
    await expect(failed).rejects.toThrow('socket gone');
    await expect(fine).resolves.toBeUndefined();
  });
});
