import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CountingHistogram } from '../../../src/observe/counting-histogram.js';
import { PendingCounts } from '../../../src/observe/pending-counts.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const OBSERVED = [0.0005, 0.001, 0.002, 0.05, 0.5, 3, 0, 1];

describe('CountingHistogram', () => {
  it('exposes the same series as prom-client’s Histogram for the same observations', async () => {
    const theirs = new Registry();
    const reference = new Histogram({ name: 'h_seconds', help: 'h', labelNames: ['name'], buckets: BUCKETS, registers: [theirs] });
    const ours = new Registry();
    const histogram = new CountingHistogram({ name: 'h_seconds', help: 'h', labelNames: ['name'], buckets: BUCKETS, registers: [ours] });
    const a = histogram.series({ name: 'a' });
    const b = histogram.series({ name: 'b' });
    for (const value of OBSERVED) {
      reference.observe({ name: 'a' }, value);
      a.observe(value);
    }
    reference.observe({ name: 'b' }, 0.02);
    b.observe(0.02);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    // prom-client adds an empty exemplar field to each sample; the samples are otherwise the same.
    const withoutExemplars = (json: unknown): unknown => JSON.parse(JSON.stringify(json, (key, value: unknown) => (key === 'exemplar' ? undefined : value)));
    expect(withoutExemplars(await ours.getMetricsAsJSON())).toEqual(withoutExemplars(await theirs.getMetricsAsJSON()));
  });

  it('exports a series at zero once asked for, hands out one series per label set, and refuses what prom-client refuses', async () => {
    const registry = new Registry();
    const histogram = new CountingHistogram({ name: 'h_seconds', help: 'h', labelNames: ['name'], buckets: BUCKETS, registers: [registry] });
    expect(histogram.series({ name: 'q' })).toBe(histogram.series({ name: 'q' }));
    const text = await registry.metrics();
    expect(text).toContain('h_seconds_bucket{le="+Inf",name="q"} 0');
    expect(text).toContain('h_seconds_count{name="q"} 0');
    expect(() => histogram.series({ name: 'q' }).observe(Number.NaN)).toThrow(TypeError);
    expect(() => new CountingHistogram({ name: 'h_seconds', help: 'h', labelNames: ['name'], buckets: BUCKETS, registers: [registry] })).toThrow();
    expect(() => new CountingHistogram({ name: 'other', help: 'h', labelNames: [], buckets: [1, 0.5], registers: [] })).toThrow();
  });
});

describe('PendingCounts', () => {
  it('adds what was counted to the counter when it is collected, once', async () => {
    const registry = new Registry();
    const pending = new PendingCounts<'name'>();
    new Counter({
      name: 'c_total',
      help: 'c',
      labelNames: ['name'],
      registers: [registry],
      collect(): void {
        pending.flush(this);
      },
    });
    const count = pending.entry({ name: 'q' });
    expect(pending.entry({ name: 'q' })).toBe(count);
    count.pending += 3;
    expect(await registry.metrics()).toContain('c_total{name="q"} 3');
    count.pending += 1;
    expect(await registry.metrics()).toContain('c_total{name="q"} 4');
    expect(await registry.metrics()).toContain('c_total{name="q"} 4');
  });
});
