import { describe, expect, it } from 'vitest';
import { Backoff } from '../../../src/kube/backoff.js';
import { sleep } from '../../../src/kube/clock.js';
import { FakeClock } from '../../../src/kube/fake-clock.js';

describe('Backoff', () => {
  it('starts at 0.8 s, doubles up to 30 s and starts over after reset', () => {
    const backoff = new Backoff({ jitter: 0 });
    const delays = Array.from({ length: 8 }, () => backoff.next());
    expect(delays).toEqual([800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]);
    backoff.reset();
    expect(backoff.next()).toBe(800);
  });

  it('stretches each delay by up to the jitter fraction', () => {
    const backoff = new Backoff({ jitter: 0.5, random: () => 0.999 });
    expect(backoff.next()).toBeCloseTo(800 * 1.4995);
    const low = new Backoff({ jitter: 0.5, random: () => 0 });
    expect(low.next()).toBe(800);
  });
});

describe('FakeClock and sleep', () => {
  it('fires timers in due order, including timers set by firing callbacks', () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.setTimer(() => fired.push('b@200'), 200);
    clock.setTimer(() => {
      fired.push('a@100');
      clock.setTimer(() => fired.push('c@150'), 50);
    }, 100);
    const cancelled = clock.setTimer(() => fired.push('never'), 120);
    clock.clearTimer(cancelled);
    clock.advance(199);
    expect(fired).toEqual(['a@100', 'c@150']);
    clock.advance(1);
    expect(fired).toEqual(['a@100', 'c@150', 'b@200']);
    expect(clock.now()).toBe(200);
  });

  it('sleep resolves true after the delay, false at once when aborted', async () => {
    const clock = new FakeClock();
    const done = sleep(clock, 1000);
    clock.advance(1000);
    expect(await done).toBe(true);
    const controller = new AbortController();
    const interrupted = sleep(clock, 1000, controller.signal);
    controller.abort();
    expect(await interrupted).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
  });
});
