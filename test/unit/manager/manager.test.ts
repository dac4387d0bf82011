import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/kube/fake-clock.js';
import type { Lease } from '../../../src/kube/leader-elector.js';
import { Manager, ManagerError, type ManagerLeaderElection } from '../../../src/manager/manager.js';
import { metricsServerRunnable } from '../../../src/manager/metrics-server-runnable.js';
import type { Runnable } from '../../../src/manager/runnable.js';
import { HealthChecks } from '../../../src/observe/health.js';
import { silentLogger } from '../../../src/observe/logger.js';
import { MemoryLeaseClient } from '../../support/memory-lease-client.js';
import { waitFor } from '../../support/wait-for.js';

/** A runnable that records what happens to it and, once aborted, drains until `release()`. */
class Probe implements Runnable {
  readonly events: string[];
  readonly name: string;
  readonly needsLeader: boolean;
  signals: AbortSignal[] = [];
  #drained = Promise.resolve();
  #release: () => void = () => undefined;

  constructor(events: string[], name: string, needsLeader: boolean, options: { holdDrain?: boolean } = {}) {
    this.events = events;
    this.name = name;
    this.needsLeader = needsLeader;
    if (options.holdDrain === true) this.#drained = new Promise<void>((resolve) => (this.#release = resolve));
  }

  get running(): boolean {
    const last = this.signals[this.signals.length - 1];
    return last !== undefined && !last.aborted;
  }

  release(): void {
    this.#release();
  }

  async run(signal: AbortSignal): Promise<void> {
    this.signals.push(signal);
    this.events.push(`${this.name} started`);
    if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    this.events.push(`${this.name} aborted`);
    await this.#drained;
    this.events.push(`${this.name} stopped`);
  }
}

const running: Array<{ abort: AbortController; done: Promise<unknown> }> = [];
afterEach(async () => {
  for (const { abort, done } of running.splice(0)) {
    abort.abort();
    await done;
  }
});

function start(manager: Manager): { abort: AbortController; done: Promise<void> } {
  const abort = new AbortController();
  const done = manager.run(abort.signal);
  running.push({ abort, done: done.catch(() => undefined) });
  return { abort, done };
}

describe('Manager: runnables, leader gating, stop order, failures, one health registry', () => {
  it('without leader election runs every runnable at once; on the signal, leader-gated ones drain before the others are stopped', async () => {
    const events: string[] = [];
    const syncer = new Probe(events, 'syncer', true, { holdDrain: true });
    const server = new Probe(events, 'server', false);
    const manager = new Manager();
    manager.add(syncer);
    manager.add(server);
    const { abort, done } = start(manager);
    await waitFor('both running', () => syncer.running && server.running);
    expect(manager.isLeading()).toBe(true);
    expect(manager.health.report()).toEqual({ ready: true, checks: [{ name: 'shutdown', ready: true }] });

    abort.abort();
    await waitFor('the syncer draining', () => events.includes('syncer aborted'));
    // The server still answers while the syncer drains, and says the process is going away.
    expect(server.running).toBe(true);
    expect(manager.health.report()).toEqual({ ready: false, checks: [{ name: 'shutdown', ready: false, reason: 'vcsync is shutting down' }] });
    syncer.release();
    await done;
    expect(events.slice(events.indexOf('syncer aborted'))).toEqual(['syncer aborted', 'syncer stopped', 'server aborted', 'server stopped']);
  });

  it('starts leader-gated runnables only while holding the Lease, stops them on losing it, starts them again on the next term', async () => {
    const events: string[] = [];
    const syncer = new Probe(events, 'syncer', true);
    const server = new Probe(events, 'server', false);
    const client = new MemoryLeaseClient();
    const clock = new FakeClock();
    await client.create('/leases', { metadata: { name: 'vcsync-vc1', namespace: 'ns' }, spec: { holderIdentity: 'other', leaseDurationSeconds: 15 } });
    const leaderElection: ManagerLeaderElection = {
      client,
      clock,
      leaseName: 'vcsync-vc1',
      namespace: 'ns',
      identity: 'me',
      random: () => 0,
      missingNamespaceHint: { check: 'pass --host-namespace', log: 'pass --host-namespace' },
    };
    const manager = new Manager({ leaderElection });
    manager.add(syncer);
    manager.add(server);
    const { abort, done } = start(manager);

    await waitFor('the Lease looked at and a retry waiting', () => server.running && client.calls.includes('get') && clock.pendingTimers() === 1);
    for (let second = 1; second <= 6; second++) {
      clock.advance(1000);
      await waitFor(`the attempts due at ${second} s answered`, () => clock.pendingTimers() === 1);
    }
    expect(client.calls.filter((call) => call === 'get').length).toBeGreaterThanOrEqual(3);
    expect(syncer.signals).toHaveLength(0);
    expect(manager.isLeading()).toBe(false);
    expect(manager.health.reportGroup('sync').checks).toEqual([{ name: 'leader-election', ready: true }]);

    client.lease = undefined; // the other holder released it
    for (let second = 0; second < 10 && !syncer.running; second++) {
      clock.advance(1000);
      // Leading, it also has the timer of its fence (the renew deadline).
      await waitFor(`retry ${second + 1} done`, () => clock.pendingTimers() === (manager.isLeading() ? 2 : 1));
    }
    await waitFor('leading and syncing', () => syncer.running && manager.isLeading());

    client.down = true;
    for (let round = 1; round <= 4; round++) {
      const before = client.calls.length;
      clock.advance(2000);
      await waitFor(`failed renewal ${round}`, () => client.calls.length === before + 1 && clock.pendingTimers() === 2);
      expect(syncer.running).toBe(true);
    }
    clock.advance(2000);
    await waitFor('the syncer stopped on losing the Lease', () => events.includes('syncer stopped'));
    expect(manager.isLeading()).toBe(false);
    expect(server.running).toBe(true);
    await waitFor('the failing attempt reported', () => manager.health.reportGroup('sync').checks[0]?.ready === false);
    expect(manager.health.reportGroup('sync').checks[0]?.reason).toMatch(/^the Lease vcsync-vc1 cannot be taken or renewed: .*; retrying with backoff$/);

    client.down = false;
    await waitFor('a retry waiting', () => clock.pendingTimers() === 1);
    clock.advance(30_000);
    await waitFor('the second term', () => syncer.signals.length === 2 && syncer.running);
    abort.abort();
    await done;
    expect(events.filter((e) => e.startsWith('syncer'))).toEqual(['syncer started', 'syncer aborted', 'syncer stopped', 'syncer started', 'syncer aborted', 'syncer stopped']);
    expect((await client.get<Lease>('/leases/vcsync-vc1')).spec?.holderIdentity).toBe(''); // released on the way out
  });

  it('stops every runnable when one fails and rejects naming it', async () => {
    const events: string[] = [];
    const syncer = new Probe(events, 'syncer', true);
    const server = new Probe(events, 'server', false);
    let fail: (error: Error) => void = () => undefined;
    const manager = new Manager({ logger: silentLogger() });
    manager.add(syncer);
    manager.add(server);
    manager.add({ name: 'management-server', needsLeader: false, run: () => new Promise<void>((_, reject) => (fail = reject)) });
    const { done } = start(manager);
    await waitFor('running', () => syncer.running && server.running);
    const cause = new Error('listen EADDRINUSE: address already in use 0.0.0.0:8443');
    fail(cause);
    const error = await done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ManagerError);
    expect(error).toMatchObject({ message: 'management-server failed: listen EADDRINUSE: address already in use 0.0.0.0:8443', runnables: ['management-server'], cause });
    expect(events).toEqual(expect.arrayContaining(['syncer stopped', 'server stopped']));
    expect(events.indexOf('syncer stopped')).toBeLessThan(events.indexOf('server aborted'));
  });

  it('rejects naming the runnables that did not stop within the deadline', async () => {
    const events: string[] = [];
    const manager = new Manager({ stopDeadlineMs: 50 });
    manager.add(new Probe(events, 'server', false));
    manager.add({ name: 'stuck', needsLeader: false, run: () => new Promise<void>(() => undefined) });
    const { abort, done } = start(manager);
    await waitFor('running', () => events.includes('server started'));
    abort.abort();
    await expect(done).rejects.toThrow(new ManagerError('stuck did not stop within 50 ms', ['stuck']));
    expect(events).toContain('server stopped');
  });

  it('serves the one registry on /readyz, /syncz and /livez, and stays up saying so while leader-gated work drains', async () => {
    const events: string[] = [];
    const health = new HealthChecks();
    let wedged = false;
    health.add({ name: 'config', check: () => ({ ready: true }) });
    health.addSync({ name: 'informers', check: () => ({ ready: false, reason: 'caches not synced yet' }) });
    health.addLiveness({ name: 'event-loop', check: () => (wedged ? { ready: false, reason: 'blocked for 30 s' } : { ready: true }) });
    const syncer = new Probe(events, 'syncer', true, { holdDrain: true });
    let url = '';
    const manager = new Manager({ health });
    manager.add(metricsServerRunnable({ host: '127.0.0.1', port: 0, registry: new Registry(), health, logger: silentLogger(), onListening: (u) => (url = u) }));
    manager.add(syncer);
    const { abort, done } = start(manager);
    await waitFor('listening', () => url !== '' && syncer.running);
    const get = async (path: string) => {
      const response = await fetch(`${url}${path}`);
      return { status: response.status, text: await response.text() };
    };

    expect(await get('/readyz?verbose')).toEqual({ status: 200, text: '[+]config ok\n[+]shutdown ok\n[-]sync/informers failed: caches not synced yet\nreadyz check passed\n' });
    expect(await get('/syncz')).toEqual({ status: 503, text: '[-]informers failed: caches not synced yet\nsyncz check failed\n' });
    expect(await get('/livez')).toEqual({ status: 200, text: 'ok\n' });
    wedged = true;
    expect(await get('/livez')).toEqual({ status: 503, text: '[-]event-loop failed: blocked for 30 s\nlivez check failed\n' });
    expect((await get('/healthz')).status).toBe(503);

    abort.abort();
    await waitFor('the syncer draining', () => events.includes('syncer aborted'));
    expect(await get('/readyz')).toEqual({ status: 503, text: '[-]shutdown failed: vcsync is shutting down\nreadyz check failed\n' });
    syncer.release();
    await done;
    await expect(fetch(`${url}/readyz`)).rejects.toThrow();
  });
});
