import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/kube/fake-clock.js';
import { LeaderElector, type Lease, type LeaderElectorOptions, type LeaseProblem } from '../../../src/kube/leader-elector.js';
import { MemoryLeaseClient } from '../../support/memory-lease-client.js';
import { waitFor } from '../../support/wait-for.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

function start(
  client: MemoryLeaseClient,
  clock: FakeClock,
  identity = 'me',
  overrides: Partial<LeaderElectorOptions> = {},
): { elector: LeaderElector; history: string[]; stop: () => Promise<void> } {
  const history: string[] = [];
  const elector = new LeaderElector({
    ...overrides,
    client,
    clock,
    leaseName: 'vcsync',
    namespace: 'ns',
    identity,
    onStartedLeading: async (signal) => {
      history.push('started');
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      history.push('drained');
    },
    onStoppedLeading: () => history.push('stopped'),
  });
  const controller = new AbortController();
  const running = elector.run(controller.signal);
  const stop = async (): Promise<void> => {
    controller.abort();
    await running;
  };
  stops.push(stop);
  return { elector, history, stop };
}

describe('LeaderElector', () => {
  it('rejects timings where the renew deadline is not below the lease duration', () => {
    expect(
      () =>
        new LeaderElector({
          client: new MemoryLeaseClient(),
          leaseName: 'l',
          namespace: 'n',
          identity: 'i',
          leaseDurationMs: 10_000,
          renewDeadlineMs: 10_000,
          onStartedLeading: () => undefined,
        }),
    ).toThrow(RangeError);
  });

  it('creates the lease, renews it every retry period with the same acquire time, and releases it on stop', async () => {
    const client = new MemoryLeaseClient();
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const { elector, history, stop } = start(client, clock);
    await waitFor('leading', () => elector.isLeader() && clock.pendingTimers() === 1);
    expect(client.lease?.spec).toMatchObject({ holderIdentity: 'me', leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(client.lease?.spec?.renewTime).toBe('2026-01-01T00:00:00.000000Z');
    clock.advance(2000);
    await waitFor('a renewal', () => client.lease?.spec?.renewTime === '2026-01-01T00:00:02.000000Z' && clock.pendingTimers() === 1);
    expect(client.lease?.spec?.acquireTime).toBe('2026-01-01T00:00:00.000000Z');
    await stop();
    expect(history).toEqual(['started', 'drained', 'stopped']);
    expect(client.lease?.spec?.holderIdentity).toBe('');
  });

  it('stops leading when it cannot renew within the renew deadline, without releasing', async () => {
    const client = new MemoryLeaseClient();
    const clock = new FakeClock();
    const { elector, history } = start(client, clock);
    await waitFor('leading', () => elector.isLeader() && clock.pendingTimers() === 1);
    client.down = true;
    for (let round = 1; round <= 4; round++) {
      const before = client.calls.length;
      clock.advance(2000);
      await waitFor(`failed renewal ${round}`, () => client.calls.length === before + 1 && clock.pendingTimers() === 1);
      expect(elector.isLeader()).toBe(true);
    }
    clock.advance(2000);
    await waitFor('losing leadership', () => history.includes('stopped'));
    expect(history).toEqual(['started', 'drained', 'stopped']);
    expect(elector.isLeader()).toBe(false);
    expect(client.lease?.spec?.holderIdentity).toBe('me');
  });

  it('leaves a lease alone while its holder renews it, and takes it over once renewals stop for the lease duration', async () => {
    const client = new MemoryLeaseClient();
    const clock = new FakeClock();
    await client.create('/leases', { metadata: { name: 'vcsync', namespace: 'ns' }, spec: { holderIdentity: 'other', leaseDurationSeconds: 15, leaseTransitions: 2 } });
    const renewByOther = async (): Promise<void> => {
      const lease = await client.get<Lease>('/leases/vcsync');
      await client.update('/leases/vcsync', { ...lease, spec: { ...lease.spec, renewTime: new Date(clock.now()).toISOString() } });
    };
    const me = start(client, clock, 'me');
    await waitFor('observing the holder', () => me.elector.observedLeader === 'other');
    for (let second = 0; second < 40; second++) {
      await renewByOther();
      clock.advance(1000);
      await new Promise((r) => setTimeout(r, 1));
      expect(me.elector.isLeader()).toBe(false);
    }
    for (let second = 0; second < 40 && !me.elector.isLeader(); second++) {
      clock.advance(1000);
      await new Promise((r) => setTimeout(r, 1));
    }
    await waitFor('taking over', () => me.elector.isLeader());
    expect(client.lease?.spec).toMatchObject({ holderIdentity: 'me', leaseTransitions: 3 });
  });

  it('reports a missing namespace once, backs off exponentially while it is missing, and recovers when it appears', async () => {
    const client = new MemoryLeaseClient();
    client.namespaceMissing = true;
    const clock = new FakeClock();
    const problems: Array<LeaseProblem | undefined> = [];
    const { elector } = start(client, clock, 'me', { random: () => 0, onProblemChanged: (problem) => problems.push(problem) });
    const creates = (): number => client.calls.filter((c) => c === 'create').length;
    await waitFor('the first attempt', () => creates() === 1 && clock.pendingTimers() === 1);
    expect(elector.status()).toEqual({ leading: false, holder: '', problem: { kind: 'namespaceMissing', namespace: 'ns' } });
    for (const [attempt, delayMs] of [2000, 4000, 8000, 16_000, 30_000, 30_000].entries()) {
      clock.advance(delayMs - 1);
      expect(clock.pendingTimers()).toBe(1); // the backoff timer has not fired yet
      clock.advance(1);
      await waitFor(`retry ${attempt + 1} after ${delayMs} ms`, () => creates() === attempt + 2 && clock.pendingTimers() === 1);
    }
    expect(problems).toEqual([{ kind: 'namespaceMissing', namespace: 'ns' }]);

    client.namespaceMissing = false;
    clock.advance(30_000);
    await waitFor('leading once the namespace exists', () => elector.isLeader());
    expect(problems).toEqual([{ kind: 'namespaceMissing', namespace: 'ns' }, undefined]);
    expect(elector.status()).toMatchObject({ leading: true, holder: 'me', problem: undefined });
  });
});
