import { afterEach, describe, expect, it } from 'vitest';
import { CoreResources, collectionPath } from '../../../src/kube/api-path.js';
import { EventRecorder, type CoreEvent } from '../../../src/kube/event-recorder.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { startTestBed, type TestBed } from './support.js';

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.stop();
  bed = undefined;
});

describe('EventRecorder against a devcluster', () => {
  it('creates one Event for repeated identical events and counts them', async () => {
    bed = await startTestBed();
    const endpoints = await bed.client.create<KubeObject>(collectionPath(CoreResources.endpoints, 'default'), {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'web' },
    });
    const recorder = new EventRecorder({ client: bed.client, component: 'vcsync-syncer', host: 'test-host', metrics: bed.metrics });
    const subject = { ...endpoints, apiVersion: 'v1', kind: 'Endpoints' };
    for (let i = 0; i < 3; i++) recorder.record(subject, 'Warning', 'SyncError', 'host namespace is missing');
    recorder.record(subject, 'Normal', 'Synced', 'synced to host');
    await recorder.flush();
    const events = await bed.client.list<CoreEvent>(collectionPath(CoreResources.events, 'default'));
    const warnings = events.items.filter((e) => e.reason === 'SyncError');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      type: 'Warning',
      count: 3,
      message: 'host namespace is missing',
      source: { component: 'vcsync-syncer', host: 'test-host' },
      involvedObject: { kind: 'Endpoints', name: 'web', namespace: 'default', uid: endpoints.metadata?.uid },
    });
    expect(events.items.filter((e) => e.reason === 'Synced').map((e) => e.count)).toEqual([1]);
  });
});
