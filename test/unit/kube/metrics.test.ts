import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { KubeMetrics } from '../../../src/kube/metrics.js';

describe('KubeMetrics', () => {
  it('registers every metric on the injected registry from the start', async () => {
    const registry = new Registry();
    new KubeMetrics(registry);
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name).sort();
    expect(names).toEqual(
      [
        'vcsync_event_recorder_failures_total',
        'vcsync_informer_handler_errors_total',
        'vcsync_leader_election_is_leader',
        'vcsync_leader_election_transitions_total',
        'vcsync_rest_client_rate_limiter_wait_seconds',
        'vcsync_rest_client_requests_total',
        'vcsync_watch_events_total',
        'vcsync_watch_last_event_timestamp_seconds',
        'vcsync_watch_relists_total',
        'vcsync_watch_restarts_total',
        'vcsync_workqueue_adds_total',
        'vcsync_workqueue_depth',
        'vcsync_workqueue_longest_running_processor_seconds',
        'vcsync_workqueue_queue_duration_seconds',
        'vcsync_workqueue_retries_total',
        'vcsync_workqueue_unfinished_work_seconds',
        'vcsync_workqueue_work_duration_seconds',
      ].sort(),
    );
    expect(() => new KubeMetrics(registry)).toThrow();
  });

  it('exports zero series for a queue and an informer as soon as they exist', async () => {
    const registry = new Registry();
    const metrics = new KubeMetrics(registry);
    metrics.workQueue('endpoints');
    metrics.watch('virtual-endpoints');
    const text = await registry.metrics();
    expect(text).toContain('vcsync_workqueue_depth{name="endpoints"} 0');
    expect(text).toContain('vcsync_workqueue_adds_total{name="endpoints"} 0');
    expect(text).toContain('vcsync_workqueue_retries_total{name="endpoints"} 0');
    expect(text).toContain('vcsync_workqueue_unfinished_work_seconds{name="endpoints"} 0');
    expect(text).toContain('vcsync_watch_restarts_total{informer="virtual-endpoints"} 0');
    expect(text).toContain('vcsync_watch_events_total{informer="virtual-endpoints",type="BOOKMARK"} 0');
    expect(text).toContain('vcsync_watch_events_total{informer="virtual-endpoints",type="ERROR"} 0');
  });

  it('hands the same bound metrics to every layer of one queue', () => {
    const metrics = new KubeMetrics(new Registry());
    expect(metrics.workQueue('q')).toBe(metrics.workQueue('q'));
  });
});
