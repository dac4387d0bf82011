import { afterEach, describe, expect, it } from 'vitest';
import { CoreResources, collectionPath, objectPath } from '../../../src/kube/api-path.js';
import { LeaderElector, type Lease } from '../../../src/kube/leader-elector.js';
import { eventually, metricValue, startTestBed, type TestBed } from './support.js';

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.stop();
  bed = undefined;
});

interface Candidate {
  elector: LeaderElector;
  history: string[];
  stop: () => Promise<void>;
}

function candidate(testBed: TestBed, identity: string): Candidate {
  const history: string[] = [];
  const elector = new LeaderElector({
    client: testBed.client,
    leaseName: 'vcsync',
    namespace: 'default',
    identity,
    leaseDurationMs: 3000,
    renewDeadlineMs: 2000,
    retryPeriodMs: 300,
    metrics: testBed.metrics,
    onStartedLeading: async (signal) => {
      history.push('started');
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      history.push('work drained');
    },
    onStoppedLeading: () => history.push('stopped'),
  });
  const controller = new AbortController();
  const running = elector.run(controller.signal);
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    controller.abort();
    await running;
  };
  testBed.defer(stop);
  return { elector, history, stop };
}

const leasePath = objectPath(CoreResources.leases, 'default', 'vcsync');

describe('LeaderElector against a devcluster', () => {
  it('lets exactly one of two candidates lead, and hands over when the leader stops', async () => {
    bed = await startTestBed();
    const testBed = bed;
    const a = candidate(testBed, 'a');
    const b = candidate(testBed, 'b');
    await eventually(() => [a.elector.isLeader(), b.elector.isLeader()], (l) => l.includes(true), 'a leader');
    // Watch several renewals go by; at every look exactly one candidate leads.
    const renewTimes = new Set<string>();
    await eventually(
      async () => {
        const leaders = [a, b].filter((c) => c.elector.isLeader()).length;
        expect(leaders).toBe(1);
        const lease = await testBed.client.get<Lease>(leasePath);
        renewTimes.add(lease.spec?.renewTime ?? '');
        return renewTimes.size;
      },
      (n) => n >= 4,
      'four renewals',
    );
    const [leader, follower] = a.elector.isLeader() ? [a, b] : [b, a];
    const lease = await testBed.client.get<Lease>(leasePath);
    expect(lease.spec?.holderIdentity).toBe(leader === a ? 'a' : 'b');
    expect(follower.history).toEqual([]);
    expect(follower.elector.observedLeader).toBe(lease.spec?.holderIdentity);

    const stoppedAt = Date.now();
    await leader.stop();
    expect(leader.history).toEqual(['started', 'work drained', 'stopped']);
    expect(leader.elector.isLeader()).toBe(false);
    await eventually(() => follower.elector.isLeader(), (l) => l, 'the follower taking over');
    // The lease was released, so the hand-over does not wait for it to expire.
    expect(Date.now() - stoppedAt).toBeLessThan(3000);
    const taken = await testBed.client.get<Lease>(leasePath);
    expect(taken.spec?.holderIdentity).toBe(follower === a ? 'a' : 'b');
    expect(taken.spec?.leaseTransitions).toBe(1);
    expect(await metricValue(testBed.registry, 'vcsync_leader_election_is_leader', { lease: 'vcsync' })).toBe(1);
  });

  it('takes over a lease whose holder stopped renewing once it expires', async () => {
    bed = await startTestBed();
    const testBed = bed;
    const old = new Date(Date.now() - 60_000).toISOString().replace('Z', '000Z');
    await testBed.client.create<Lease>(collectionPath(CoreResources.leases, 'default'), {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'vcsync' },
      spec: { holderIdentity: 'crashed', leaseDurationSeconds: 2, renewTime: old, acquireTime: old, leaseTransitions: 4 },
    });
    const startedAt = Date.now();
    const c = candidate(testBed, 'c');
    await eventually(() => c.elector.isLeader(), (l) => l, 'taking over the expired lease');
    // Expiry is judged from when c first saw the lease, not from the stale renewTime in it.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2000);
    const lease = await testBed.client.get<Lease>(objectPath(CoreResources.leases, 'default', 'vcsync'));
    expect(lease.spec?.holderIdentity).toBe('c');
    expect(lease.spec?.leaseTransitions).toBe(5);
  });
});
