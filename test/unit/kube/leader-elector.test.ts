import { afterEach, describe, expect, it } from 'vitest';
import { LeadershipEndedError } from '../../../src/kube/kube-errors.js';
import type { Clock, TimerHandle } from '../../../src/kube/clock.js';
import { FakeClock } from '../../../src/kube/fake-clock.js';
import { LeaderElector, type Lease, type LeaderElectorOptions, type LeaseProblem } from '../../../src/kube/leader-elector.js';
import { MemoryLeaseClient } from '../../support/memory-lease-client.js';
import { waitFor } from '../../support/wait-for.js';

/** Timers of a leader between renewals: the wait for the next one, and its fence (the renew deadline). */
const LEADING_TIMERS = 2;

/** A {@link FakeClock} that counts the timers ever set, to tell a candidate mid-attempt from one between attempts. */
class CountingClock extends FakeClock {
  timersSet = 0;

  override setTimer(callback: () => void, delayMs: number): TimerHandle {
    this.timersSet += 1;
    return super.setTimer(callback, delayMs);
  }
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

function start(
  client: MemoryLeaseClient,
  clock: FakeClock,
  identity = 'me',
  overrides: Partial<LeaderElectorOptions> = {},
): { elector: LeaderElector; history: string[]; terms: AbortSignal[]; stop: () => Promise<void> } {
  const history: string[] = [];
  const terms: AbortSignal[] = [];
  const elector = new LeaderElector({
    client,
    clock,
    leaseName: 'vcsync',
    namespace: 'ns',
    identity,
    onStartedLeading: async (signal) => {
      terms.push(signal);
      history.push('started');
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      history.push('drained');
    },
    onStoppedLeading: () => history.push('stopped'),
    ...overrides,
  });
  const controller = new AbortController();
  const running = elector.run(controller.signal);
  const stop = async (): Promise<void> => {
    controller.abort();
    await running;
  };
  stops.push(stop);
  return { elector, history, terms, stop };
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
    await waitFor('leading', () => elector.isLeader() && clock.pendingTimers() === LEADING_TIMERS);
    expect(client.lease?.spec).toMatchObject({ holderIdentity: 'me', leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(client.lease?.spec?.renewTime).toBe('2026-01-01T00:00:00.000000Z');
    clock.advance(2000);
    await waitFor('a renewal', () => client.lease?.spec?.renewTime === '2026-01-01T00:00:02.000000Z' && clock.pendingTimers() === LEADING_TIMERS);
    expect(client.lease?.spec?.acquireTime).toBe('2026-01-01T00:00:00.000000Z');
    await stop();
    expect(history).toEqual(['started', 'drained', 'stopped']);
    expect(client.lease?.spec?.holderIdentity).toBe('');
  });

  it('stops leading when it cannot renew within the renew deadline, without releasing', async () => {
    const client = new MemoryLeaseClient();
    const clock = new FakeClock();
    const { elector, history } = start(client, clock);
    await waitFor('leading', () => elector.isLeader() && clock.pendingTimers() === LEADING_TIMERS);
    client.down = true;
    for (let round = 1; round <= 4; round++) {
      const before = client.calls.length;
      clock.advance(2000);
      await waitFor(`failed renewal ${round}`, () => client.calls.length === before + 1 && clock.pendingTimers() === LEADING_TIMERS);
      expect(elector.isLeader()).toBe(true);
    }
    clock.advance(2000);
    await waitFor('losing leadership', () => history.includes('stopped'));
    expect(history).toEqual(['started', 'drained', 'stopped']);
    expect(elector.isLeader()).toBe(false);
    expect(client.lease?.spec?.holderIdentity).toBe('me');
  });

  it('ends the term at the renew deadline after its last renewal when a renewal hangs (a partition), aborting that renewal', async () => {
    const client = new MemoryLeaseClient();
    const clock = new FakeClock();
    const { elector, history, terms } = start(client, clock);
    try {
      await waitFor('leading', () => elector.isLeader() && clock.pendingTimers() === LEADING_TIMERS);
      clock.advance(2000);
      await waitFor('a renewal', () => client.calls.filter((c) => c === 'update').length === 1 && clock.pendingTimers() === LEADING_TIMERS);
      client.stalled = true;
      clock.advance(2000);
      await waitFor('a renewal hanging', () => client.calls.length === 4); // create, get, update, get
      // The fence: the renewTime of the last successful renewal (2 s) + the renew deadline (10 s).
      const timersBefore = clock.pendingTimers();
      clock.advance(7999);
      // No timer fell due (the same ones are pending), so no callback ran and nothing could end the term.
      expect({ holds: elector.holdsLease(), aborted: terms[0]?.aborted, pendingTimers: clock.pendingTimers() }).toEqual({
        holds: true,
        aborted: false,
        pendingTimers: timersBefore,
      });
      clock.advance(1);
      expect(terms[0]?.aborted).toBe(true);
      expect(terms[0]?.reason).toBeInstanceOf(LeadershipEndedError);
      expect(elector.holdsLease()).toBe(false);
      await waitFor('stopped leading', () => history.includes('stopped'));
      expect(history).toEqual(['started', 'drained', 'stopped']);
    } finally {
      client.stalled = false;
    }
  });

  it('answers holdsLease() false from the fence on, ending the term, even before the timer that ends it has run', async () => {
    const client = new MemoryLeaseClient();
    const clock = new FakeClock();
    // A clock whose time runs ahead of its timers: an event loop too busy to run a due timer yet.
    let lagMs = 0;
    const busy: Clock = {
      now: () => clock.now() + lagMs,
      setTimer: (callback, delayMs) => clock.setTimer(callback, delayMs + lagMs),
      clearTimer: (handle) => clock.clearTimer(handle),
    };
    const { elector, terms } = start(client, clock, 'me', { clock: busy });
    await waitFor('leading', () => elector.isLeader() && clock.pendingTimers() === LEADING_TIMERS);
    lagMs = 9999;
    expect(elector.holdsLease()).toBe(true);
    lagMs = 10_000;
    expect(terms[0]?.aborted).toBe(false);
    expect(elector.holdsLease()).toBe(false);
    expect(terms[0]?.aborted).toBe(true);
    expect(terms[0]?.reason).toBeInstanceOf(LeadershipEndedError);
  });

  it('ends the term at the first renewal that finds another holder, without waiting for the renew deadline', async () => {
    const client = new MemoryLeaseClient();
    const clock = new FakeClock();
    const { elector, history } = start(client, clock);
    await waitFor('leading', () => elector.isLeader() && clock.pendingTimers() === LEADING_TIMERS);
    // Someone else wrote the Lease (an operator, or a replica whose clock ran ahead).
    await client.update('/leases/vcsync', { ...client.lease, spec: { ...client.lease?.spec, holderIdentity: 'other' } });
    clock.advance(2000);
    await waitFor('stopped leading', () => history.includes('stopped'));
    expect(history).toEqual(['started', 'drained', 'stopped']);
    expect(client.lease?.spec?.holderIdentity).toBe('other');
  });

  it('stopped while an attempt to take the Lease is answered, does not lead: releases the Lease and returns', async () => {
    const client = new MemoryLeaseClient();
    const clock = new FakeClock();
    let answer = (): void => undefined;
    client.gate = new Promise<void>((resolve) => (answer = resolve));
    const { elector, history, stop } = start(client, clock);
    await waitFor('the first attempt sent', () => client.calls.length === 1);
    const stopped = stop();
    answer();
    client.gate = undefined;
    await stopped;
    expect(history).toEqual([]);
    expect(elector.isLeader()).toBe(false);
    expect(client.lease?.spec?.holderIdentity).toBe('');
  });

  it('leaves a lease alone while its holder renews it, and takes it over once renewals stop for the lease duration', async () => {
    const client = new MemoryLeaseClient();
    const clock = new CountingClock();
    await client.create('/leases', { metadata: { name: 'vcsync', namespace: 'ns' }, spec: { holderIdentity: 'other', leaseDurationSeconds: 15, leaseTransitions: 2 } });
    const renewByOther = async (): Promise<void> => {
      const lease = await client.get<Lease>('/leases/vcsync');
      await client.update('/leases/vcsync', { ...lease, spec: { ...lease.spec, renewTime: new Date(clock.now()).toISOString() } });
    };
    const me = start(client, clock, 'me');
    // Between attempts a candidate has set two timers per attempt (the attempt's deadline, then
    // the wait for the next) and only the wait is pending: it has seen the Lease and decided.
    const settled = (): boolean => me.elector.isLeader() || (clock.timersSet % 2 === 0 && clock.pendingTimers() === 1);
    await waitFor('observing the holder', () => me.elector.observedLeader === 'other' && settled());
    for (let second = 0; second < 40; second++) {
      await renewByOther();
      clock.advance(1000);
      await waitFor(`the candidate settled at second ${second}`, settled);
      expect(me.elector.isLeader()).toBe(false);
    }
    for (let second = 0; second < 40 && !me.elector.isLeader(); second++) {
      clock.advance(1000);
      await waitFor(`the candidate settled at second ${40 + second}`, settled);
    }
    expect(me.elector.isLeader()).toBe(true);
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
