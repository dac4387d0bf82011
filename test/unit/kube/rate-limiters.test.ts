import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/kube/fake-clock.js';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from '../../../src/kube/rate-limiters.js';
import { TokenBucket } from '../../../src/kube/token-bucket.js';

describe('ItemExponentialFailureRateLimiter', () => {
  it('waits 5 ms · 2ⁿ per key, capped at 1000 s', () => {
    const limiter = new ItemExponentialFailureRateLimiter();
    const delays = Array.from({ length: 5 }, () => limiter.when('a'));
    expect(delays).toEqual([5, 10, 20, 40, 80]);
    expect(limiter.when('b')).toBe(5);
    for (let i = 0; i < 30; i++) limiter.when('a');
    expect(limiter.when('a')).toBe(1_000_000);
    for (let i = 0; i < 2000; i++) limiter.when('a');
    expect(limiter.when('a')).toBe(1_000_000);
    expect(limiter.numRequeues('b')).toBe(1);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(5);
  });
});

describe('TokenBucket', () => {
  it('allows a burst, then spaces reservations at 1/qps and refills over time', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 10, burst: 3, clock });
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 0]);
    expect(bucket.reserve()).toBeCloseTo(100);
    expect(bucket.reserve()).toBeCloseTo(200);
    clock.advance(200);
    expect(bucket.reserve()).toBeCloseTo(100);
    clock.advance(10_000);
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 0]);
    expect(bucket.reserve()).toBeCloseTo(100);
  });

  it('wait() resolves after the reserved delay and returns the token when aborted', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ qps: 1, burst: 1, clock });
    expect(await bucket.wait()).toBe(0);
    let waited: number | undefined;
    const pending = bucket.wait().then((ms) => (waited = ms));
    clock.advance(999);
    await Promise.resolve();
    expect(waited).toBeUndefined();
    clock.advance(1);
    await pending;
    expect(waited).toBe(1000);

    const controller = new AbortController();
    const aborted = bucket.wait(controller.signal);
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    clock.advance(1000);
    expect(bucket.reserve()).toBe(0);
  });

  it('never delays when unlimited', () => {
    const bucket = new TokenBucket({ qps: Infinity, clock: new FakeClock() });
    for (let i = 0; i < 1000; i++) expect(bucket.reserve()).toBe(0);
  });
});

describe('BucketRateLimiter and MaxOfRateLimiter', () => {
  it('the default controller limiter is the max of per-item backoff and a 10 qps / burst 100 bucket', () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter(clock);
    for (let i = 0; i < 100; i++) expect(limiter.when(`k${i}`)).toBe(5);
    expect(limiter.when('k100')).toBeCloseTo(100);
    expect(limiter.when('k101')).toBeCloseTo(200);
    expect(limiter.numRequeues('k1')).toBe(1);
    limiter.forget('k1');
    expect(limiter.numRequeues('k1')).toBe(0);
  });

  it('takes the largest delay of its strategies', () => {
    const clock = new FakeClock();
    const limiter = new MaxOfRateLimiter(
      new ItemExponentialFailureRateLimiter({ baseDelayMs: 1000 }),
      new BucketRateLimiter({ qps: 1, burst: 1, clock }),
    );
    expect(limiter.when('a')).toBe(1000);
    expect(limiter.when('b')).toBe(1000);
    expect(limiter.when('c')).toBeCloseTo(2000);
  });
});
