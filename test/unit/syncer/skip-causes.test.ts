import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { SKIP_CAUSES } from '../../../src/syncer/reconcile-outcome.js';
import { SyncerMetrics } from '../../../src/syncer/metrics.js';
import { metricValue } from '../../support/metrics.js';

describe('vcsync_sync_skips_total', () => {
  it('has a series at zero for every skip cause from the start, and counts skips by cause', async () => {
    const registry = new Registry();
    const metrics = new SyncerMetrics(registry).controller('endpoints');
    for (const cause of SKIP_CAUSES) expect(await metricValue(registry, 'vcsync_sync_skips_total', { controller: 'endpoints', cause })).toBe(0);
    metrics.reconciled('skipped', 0.001, 'disabled');
    metrics.reconciled('skipped', 0.001, 'disabled');
    metrics.reconciled('skipped', 0.001, 'excluded');
    metrics.reconciled('created', 0.001);
    expect(await metricValue(registry, 'vcsync_sync_skips_total', { controller: 'endpoints', cause: 'disabled' })).toBe(2);
    expect(await metricValue(registry, 'vcsync_sync_skips_total', { controller: 'endpoints', cause: 'excluded' })).toBe(1);
    expect(await metricValue(registry, 'vcsync_sync_operations_total', { controller: 'endpoints', result: 'skipped' })).toBe(3);
  });
});
