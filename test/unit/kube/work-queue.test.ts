import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { DelayingWorkQueue } from '../../../src/kube/delaying-queue.js';
import { FakeClock } from '../../../src/kube/fake-clock.js';
import { KubeMetrics } from '../../../src/kube/metrics.js';
import { ItemExponentialFailureRateLimiter } from '../../../src/kube/rate-limiters.js';
import { RateLimitingWorkQueue } from '../../../src/kube/rate-limiting-queue.js';
import { DEFAULT_YIELD_EVERY, WorkQueue } from '../../../src/kube/work-queue.js';

/** Lets pending promise continuations run (no timers involved). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('WorkQueue', () => {
  it('queues a key once however often it is added, in first-added order', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    expect(queue.len()).toBe(2);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBe('b');
    expect(queue.len()).toBe(0);
  });

  it('never hands one key to two workers: a key re-added while processing waits for done', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    const first = await queue.get();
    expect(first).toBe('a');
    queue.add('a');
    queue.add('a');
    expect(queue.len()).toBe(0);
    let second: string | undefined;
    const worker = queue.get().then((key) => (second = key));
    await settle();
    expect(second).toBeUndefined();
    queue.done('a');
    await worker;
    expect(second).toBe('a');
    queue.done('a');
    expect(queue.len()).toBe(0);
  });

  it('does not requeue a key after done when it was not re-added', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    const key = await queue.get();
    queue.done(key ?? '');
    expect(queue.len()).toBe(0);
  });

  it('wakes a waiting worker when a key arrives', async () => {
    const queue = new WorkQueue();
    const got = queue.get();
    await settle();
    queue.add('x');
    expect(await got).toBe('x');
  });

  it('hands out remaining keys after shutDown, then undefined, and ignores later adds', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    queue.shutDown();
    queue.add('b');
    expect(queue.shuttingDown()).toBe(true);
    expect(await queue.get()).toBe('a');
    expect(await queue.get()).toBeUndefined();
  });

  it('releases idle workers on shutDown', async () => {
    const queue = new WorkQueue();
    const workers = [queue.get(), queue.get()];
    await settle();
    queue.shutDown();
    expect(await Promise.all(workers)).toEqual([undefined, undefined]);
  });

  it('shutDownWithDrain resolves only after in-flight keys are done', async () => {
    const queue = new WorkQueue();
    queue.add('a');
    queue.add('b');
    const a = await queue.get();
    const b = await queue.get();
    let drained = false;
    const drain = queue.shutDownWithDrain().then(() => (drained = true));
    await settle();
    expect(drained).toBe(false);
    queue.done(a ?? '');
    await settle();
    expect(drained).toBe(false);
    queue.done(b ?? '');
    await drain;
    expect(drained).toBe(true);
  });

  it('lets the event loop turn while workers drain keys whose work never waits for I/O', async () => {
    const keys = 2_000;
    const queue = new RateLimitingWorkQueue({ name: 'yield' });
    for (let i = 0; i < keys; i++) queue.add(`k${i}`);
    let processed = 0;
    const worker = async (): Promise<void> => {
      for (;;) {
        const key = await queue.get();
        if (key === undefined) return;
        await Promise.resolve(); // a reconcile that finds the object in sync: no I/O
        processed += 1;
        queue.forget(key);
        queue.done(key);
        if (queue.len() === 0) queue.shutDown();
      }
    };
    const processedWhenImmediateRan = new Promise<number>((resolve) => setImmediate(() => resolve(processed)));
    await Promise.all(Array.from({ length: 10 }, worker));
    expect(processed).toBe(keys);
    expect(await processedWhenImmediateRan).toBeLessThanOrEqual(DEFAULT_YIELD_EVERY);
  });

  it('reports depth, adds and durations as metrics on the fake clock', async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const queue = new WorkQueue({ name: 'things', clock, metrics: new KubeMetrics(registry) });
    queue.add('a');
    queue.add('a');
    queue.add('b');
    clock.advance(2000);
    const key = await queue.get();
    clock.advance(3000);
    const metrics = await registry.getMetricsAsJSON();
    const value = (name: string): number | undefined =>
      metrics.find((m) => m.name === name)?.values.find((v) => v.labels['name'] === 'things')?.value;
    expect(value('vcsync_workqueue_depth')).toBe(1);
    expect(value('vcsync_workqueue_adds_total')).toBe(2);
    expect(value('vcsync_workqueue_longest_running_processor_seconds')).toBe(3);
    expect(value('vcsync_workqueue_unfinished_work_seconds')).toBe(3);
    queue.done(key ?? '');
    const after = await registry.getMetricsAsJSON();
    const workSum = after
      .find((m) => m.name === 'vcsync_workqueue_work_duration_seconds')
      ?.values.find((v) => (v as { metricName?: string }).metricName === 'vcsync_workqueue_work_duration_seconds_sum');
    expect(workSum?.value).toBe(3);
    const queueSum = after
      .find((m) => m.name === 'vcsync_workqueue_queue_duration_seconds')
      ?.values.find((v) => (v as { metricName?: string }).metricName === 'vcsync_workqueue_queue_duration_seconds_sum');
    expect(queueSum?.value).toBe(2);
  });
});

describe('DelayingWorkQueue', () => {
  it('adds a key only when its delay has passed on the injected clock', async () => {
    const clock = new FakeClock();
    const queue = new DelayingWorkQueue({ clock });
    queue.addAfter('late', 1000);
    queue.addAfter('early', 500);
    queue.addAfter('now', 0);
    expect(queue.len()).toBe(1);
    expect(await queue.get()).toBe('now');
    clock.advance(499);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(queue.len()).toBe(1);
    clock.advance(500);
    expect(queue.len()).toBe(2);
    expect(await queue.get()).toBe('early');
    expect(await queue.get()).toBe('late');
  });

  it('keeps the earlier ready time when a waiting key is added again', () => {
    const clock = new FakeClock();
    const queue = new DelayingWorkQueue({ clock });
    queue.addAfter('k', 1000);
    queue.addAfter('k', 5000);
    clock.advance(1000);
    expect(queue.len()).toBe(1);
    queue.addAfter('j', 5000);
    queue.addAfter('j', 200);
    clock.advance(200);
    expect(queue.len()).toBe(2);
    expect(queue.waitingLen()).toBe(0);
  });

  it('drops waiting keys and timers at shutdown', () => {
    const clock = new FakeClock();
    const queue = new DelayingWorkQueue({ clock });
    queue.addAfter('k', 1000);
    queue.shutDown();
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(2000);
    expect(queue.len()).toBe(0);
  });
});

describe('RateLimitingWorkQueue', () => {
  it('delays retries exponentially per key and forget starts over', async () => {
    const clock = new FakeClock();
    const queue = new RateLimitingWorkQueue({ clock, rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 100 }) });
    queue.addRateLimited('k'); // 100 ms
    expect(queue.numRequeues('k')).toBe(1);
    clock.advance(99);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(queue.len()).toBe(1);
    const key = await queue.get();
    queue.addRateLimited('k'); // 200 ms, marked while the key is processing
    clock.advance(200);
    expect(queue.len()).toBe(0);
    queue.done(key ?? '');
    expect(queue.len()).toBe(1);
    queue.forget('k');
    expect(queue.numRequeues('k')).toBe(0);
  });

  it('counts retries in the metrics', async () => {
    const registry = new Registry();
    const clock = new FakeClock();
    const queue = new RateLimitingWorkQueue({ name: 'r', clock, metrics: new KubeMetrics(registry) });
    queue.addRateLimited('a');
    queue.addRateLimited('b');
    const retries = (await registry.getMetricsAsJSON()).find((m) => m.name === 'vcsync_workqueue_retries_total');
    expect(retries?.values.find((v) => v.labels['name'] === 'r')?.value).toBe(2);
  });
});
