import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ApiError, statusFromHttpCode } from '../../../src/apimachinery/index.js';
import { EventRecorder, type CoreEvent, type EventClient } from '../../../src/kube/event-recorder.js';
import { FakeClock } from '../../../src/kube/fake-clock.js';
import { KubeMetrics } from '../../../src/kube/metrics.js';
import type { PatchType } from '../../../src/kube/rest-client.js';

class FakeEventClient implements EventClient {
  readonly events = new Map<string, CoreEvent>();
  readonly calls: string[] = [];
  failWith: unknown;

  async create<T>(path: string, body: T): Promise<T> {
    this.calls.push(`create ${path}`);
    if (this.failWith !== undefined) throw this.failWith;
    const event = body as unknown as CoreEvent;
    this.events.set(`${event.metadata?.namespace}/${event.metadata?.name}`, structuredClone(event));
    return body;
  }

  async patch<T>(path: string, type: PatchType, patch: unknown): Promise<T> {
    this.calls.push(`patch ${type} ${path}`);
    const [, , , , namespace, , name] = path.split('/');
    const event = this.events.get(`${namespace}/${name}`);
    if (event === undefined) {
      throw new ApiError({ httpStatus: 404, status: statusFromHttpCode(404, 'gone'), verb: 'PATCH', path });
    }
    Object.assign(event, patch);
    return event as unknown as T;
  }
}

const endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { namespace: 'web', name: 'api', uid: 'u1', resourceVersion: '7' } };

describe('EventRecorder', () => {
  it('creates an Event in the object namespace with involvedObject, source and timestamps', async () => {
    const client = new FakeEventClient();
    const recorder = new EventRecorder({ client, component: 'vcsync', host: 'node-1', clock: new FakeClock(Date.UTC(2026, 0, 1)) });
    recorder.record(endpoints, 'Warning', 'SyncError', 'could not sync');
    await recorder.flush();
    expect(client.calls).toEqual(['create /api/v1/namespaces/web/events']);
    const [event] = [...client.events.values()];
    expect(event).toMatchObject({
      involvedObject: { kind: 'Endpoints', namespace: 'web', name: 'api', uid: 'u1', resourceVersion: '7' },
      type: 'Warning',
      reason: 'SyncError',
      message: 'could not sync',
      source: { component: 'vcsync', host: 'node-1' },
      count: 1,
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:00:00Z',
    });
  });

  it('aggregates identical events within the window and starts a new Event after it', async () => {
    const client = new FakeEventClient();
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const recorder = new EventRecorder({ client, component: 'vcsync', clock, aggregationWindowMs: 60_000 });
    recorder.record(endpoints, 'Warning', 'SyncError', 'boom');
    recorder.record(endpoints, 'Warning', 'SyncError', 'boom');
    clock.advance(30_000);
    recorder.record(endpoints, 'Warning', 'SyncError', 'boom');
    recorder.record(endpoints, 'Warning', 'SyncError', 'different');
    await recorder.flush();
    expect(client.events.size).toBe(2);
    const aggregated = [...client.events.values()].find((e) => e.message === 'boom');
    expect(aggregated?.count).toBe(3);
    expect(aggregated?.lastTimestamp).toBe('2026-01-01T00:00:30Z');
    expect(aggregated?.firstTimestamp).toBe('2026-01-01T00:00:00Z');
    clock.advance(61_000);
    recorder.record(endpoints, 'Warning', 'SyncError', 'boom');
    await recorder.flush();
    expect(client.events.size).toBe(3);
  });

  it('recreates an aggregated Event that was deleted meanwhile', async () => {
    const client = new FakeEventClient();
    const recorder = new EventRecorder({ client, component: 'vcsync', clock: new FakeClock() });
    recorder.record(endpoints, 'Normal', 'Synced', 'ok');
    await recorder.flush();
    client.events.clear();
    recorder.record(endpoints, 'Normal', 'Synced', 'ok');
    await recorder.flush();
    expect(client.events.size).toBe(1);
    expect([...client.events.values()][0]?.count).toBe(1);
  });

  it('never throws to the caller; failures are counted', async () => {
    const client = new FakeEventClient();
    client.failWith = new ApiError({ httpStatus: 403, status: statusFromHttpCode(403, 'no'), verb: 'POST', path: '/x' });
    const registry = new Registry();
    const recorder = new EventRecorder({ client, component: 'vcsync', clock: new FakeClock(), metrics: new KubeMetrics(registry) });
    expect(() => recorder.record(endpoints, 'Warning', 'SyncError', 'x')).not.toThrow();
    await recorder.flush();
    const failures = (await registry.getMetricsAsJSON()).find((m) => m.name === 'vcsync_event_recorder_failures_total');
    expect(failures?.values.find((v) => v.labels['component'] === 'vcsync')?.value).toBe(1);
  });
});
