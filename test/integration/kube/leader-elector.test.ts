import { Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CoreResources, collectionPath, objectPath } from '../../../src/kube/api-path.js';
import { loadClusterConfig } from '../../../src/kube/kube-config.js';
import { LeaderElector, type Lease } from '../../../src/kube/leader-elector.js';
import { KubeMetrics } from '../../../src/kube/metrics.js';
import { RestClient } from '../../../src/kube/rest-client.js';
import { realClusterMissing } from '../../support/kube-assets.js';
import { startRealControlPlane, type RealControlPlane } from '../../support/real-control-plane.js';
import { waitFor } from '../../support/wait-for.js';
import { metricValue, startTestBed, type TestBed } from './support.js';

/** What the lease tests need of a cluster: a client, metrics, and the namespace the lease lives in. */
type LeaseBed = Pick<TestBed, 'client' | 'registry' | 'metrics' | 'defer' | 'stop'> & { namespace: string };

let bed: LeaseBed | undefined;
afterEach(async () => {
  await bed?.stop();
  bed = undefined;
});

const BACKENDS = realClusterMissing('leader election on a real kube-apiserver') ? ['devcluster'] : ['devcluster', 'real'];

interface Candidate {
  elector: LeaderElector;
  history: string[];
  stop: () => Promise<void>;
}

function candidate(testBed: LeaseBed, identity: string): Candidate {
  const history: string[] = [];
  const elector = new LeaderElector({
    client: testBed.client,
    leaseName: 'vcsync',
    namespace: testBed.namespace,
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

const leasePathIn = (namespace: string): string => objectPath(CoreResources.leases, namespace, 'vcsync');

describe.each(BACKENDS)('LeaderElector against a %s', (backend) => {
  // A real control plane is shared by the file's tests, so each test gets its own lease namespace.
  let plane: RealControlPlane | undefined;
  let tests = 0;
  beforeAll(async () => {
    if (backend === 'real') plane = await startRealControlPlane();
  }, 240_000);
  afterAll(async () => {
    await plane?.close();
  });
  const startBed = async (): Promise<LeaseBed> => {
    if (plane === undefined) return { ...(await startTestBed()), namespace: 'default' };
    tests += 1;
    const namespace = `lease-${tests}`;
    const registry = new Registry();
    const metrics = new KubeMetrics(registry);
    const client = new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: plane.kubeconfig }, { name: 'test' }), qps: Infinity, metrics });
    await client.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const cleanups: Array<() => Promise<void> | void> = [() => client.close()];
    return {
      namespace,
      client,
      registry,
      metrics,
      defer: (cleanup) => {
        cleanups.push(cleanup);
      },
      stop: async () => {
        for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
      },
    };
  };

  it('lets exactly one of two candidates lead, and hands over when the leader stops', async () => {
    bed = await startBed();
    const testBed = bed;
    const a = candidate(testBed, 'a');
    const b = candidate(testBed, 'b');
    await waitFor('a leader', () => a.elector.isLeader() || b.elector.isLeader());
    // Watch several renewals go by; at every look exactly one candidate leads.
    const leasePath = leasePathIn(testBed.namespace);
    const renewTimes = new Set<string>();
    await waitFor(
      'four renewals',
      async () => {
        const leaders = [a, b].filter((c) => c.elector.isLeader()).length;
        expect(leaders).toBe(1);
        const lease = await testBed.client.get<Lease>(leasePath);
        renewTimes.add(lease.spec?.renewTime ?? '');
        return renewTimes.size >= 4;
      },
      { retryErrors: false },
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
    await waitFor('the follower taking over', () => follower.elector.isLeader());
    // The lease was released, so the hand-over does not wait for it to expire.
    expect(Date.now() - stoppedAt).toBeLessThan(3000);
    const taken = await testBed.client.get<Lease>(leasePath);
    expect(taken.spec?.holderIdentity).toBe(follower === a ? 'a' : 'b');
    expect(taken.spec?.leaseTransitions).toBe(1);
    expect(await metricValue(testBed.registry, 'vcsync_leader_election_is_leader', { lease: 'vcsync' })).toBe(1);
  });

  it('takes over a lease whose holder stopped renewing once it expires', async () => {
    bed = await startBed();
    const testBed = bed;
    const old = new Date(Date.now() - 60_000).toISOString().replace('Z', '000Z');
    await testBed.client.create<Lease>(collectionPath(CoreResources.leases, testBed.namespace), {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'vcsync' },
      spec: { holderIdentity: 'crashed', leaseDurationSeconds: 2, renewTime: old, acquireTime: old, leaseTransitions: 4 },
    });
    const startedAt = Date.now();
    const c = candidate(testBed, 'c');
    await waitFor('taking over the expired lease', () => c.elector.isLeader());
    // Expiry is judged from when c first saw the lease, not from the stale renewTime in it.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2000);
    const lease = await testBed.client.get<Lease>(leasePathIn(testBed.namespace));
    expect(lease.spec?.holderIdentity).toBe('c');
    expect(lease.spec?.leaseTransitions).toBe(5);
  });
});
