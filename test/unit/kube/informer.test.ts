import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/apimachinery/index.js';
import { TransportError } from '../../../src/kube/kube-errors.js';
import { indexByNamespace, NAMESPACE_INDEX } from '../../../src/kube/cache-store.js';
import { FakeClock } from '../../../src/kube/fake-clock.js';
import { Informer, type InformerOptions } from '../../../src/kube/informer.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { objectKey } from '../../../src/kube/object-key.js';
import { KubeMetrics } from '../../../src/kube/metrics.js';
import { FakeListerWatcher } from './fake-lister-watcher.js';
import { waitFor } from '../../support/wait-for.js';

function obj(name: string, rv: string): KubeObject {
  return { metadata: { namespace: 'ns', name, resourceVersion: rv } };
}

interface Harness {
  informer: Informer<KubeObject>;
  lw: FakeListerWatcher;
  clock: FakeClock;
  registry: Registry;
  log: string[];
  done: Promise<void>;
}

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

function start(lw: FakeListerWatcher, options: Partial<InformerOptions> = {}): Harness {
  const clock = new FakeClock();
  const registry = new Registry();
  const informer = new Informer<KubeObject>({
    name: 'things',
    client: lw,
    resource: { version: 'v1', resource: 'configmaps' },
    clock,
    random: () => 0,
    backoffJitter: 0,
    minWatchTimeoutSeconds: 300,
    maxWatchTimeoutSeconds: 600,
    watchSilenceLimitMs: 60_000,
    resyncPeriodMs: 0,
    metrics: new KubeMetrics(registry),
    ...options,
  });
  const log: string[] = [];
  // Every delivery names the object's key; a wrong or missing one shows in the log.
  const wrongKey = (o: KubeObject, key: string): string => (key === objectKey(o) ? '' : ` under ${String(key)}`);
  informer.addHandler({
    onAdd: (o, initial, key) => {
      log.push(`add ${o.metadata?.name}@${o.metadata?.resourceVersion}${initial ? ' initial' : ''}${wrongKey(o, key)}`);
    },
    onUpdate: (old, cur, key) => {
      log.push(`update ${cur.metadata?.name} ${old.metadata?.resourceVersion}->${cur.metadata?.resourceVersion}${wrongKey(cur, key)}`);
    },
    onDelete: (o, key) => {
      log.push(`delete ${o.metadata?.name}${wrongKey(o, key)}`);
    },
  });
  const controller = new AbortController();
  const done = informer.run(controller.signal);
  stops.push(async () => {
    controller.abort();
    await done;
  });
  return { informer, lw, clock, registry, log, done };
}

async function counter(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = metric?.values.find((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want));
  return value?.value ?? Number.NaN;
}

describe('Informer over a scripted list/watch', () => {
  it('lists all pages, syncs, then watches from the list resourceVersion with bookmarks and a timeout', async () => {
    const lw = new FakeListerWatcher();
    lw.listScript = [
      { items: [obj('a', '5')], metadata: { resourceVersion: '7', continue: 'page2' } },
      { items: [obj('b', '6')], metadata: { resourceVersion: '7' } },
    ];
    const { informer, log } = start(lw, { pageSize: 1, indexers: { [NAMESPACE_INDEX]: indexByNamespace } });
    const controller = new AbortController();
    expect(await informer.waitForCacheSync(controller.signal)).toBe(true);
    expect(lw.listCalls.map((c) => [c.limit, c.continue])).toEqual([[1, undefined], [1, 'page2']]);
    expect(log).toEqual(['add a@5 initial', 'add b@6 initial']);
    await waitFor('the watch', () => lw.watches.length === 1);
    expect(lw.lastWatch.options).toMatchObject({ resourceVersion: '7', allowWatchBookmarks: true, timeoutSeconds: 300 });
    expect(informer.byIndex('namespace', 'ns')).toHaveLength(2);
  });

  it('stores and delivers a large first list over several turns of the event loop, each object once, synced after the last; a handler added meanwhile misses none', async () => {
    const lw = new FakeListerWatcher();
    const count = 3500;
    lw.listScript = [{ items: Array.from({ length: count }, (_, i) => obj(`o${i}`, String(i + 1))), metadata: { resourceVersion: '9000' } }];
    const { informer, log } = start(lw);
    // Runs on a turn of the event loop: with the list delivered in one block it would see all or nothing.
    const seenBetweenTurns: number[] = [];
    const late: string[] = [];
    const onTurn = (): void => {
      if (informer.hasSynced()) return;
      seenBetweenTurns.push(log.length);
      if (log.length > 0 && late.length === 0) informer.addHandler({ onAdd: (o, initial) => void late.push(`${o.metadata?.name}${initial ? ' initial' : ''}`) });
      setImmediate(onTurn);
    };
    setImmediate(onTurn);
    expect(await informer.waitForCacheSync(new AbortController().signal)).toBe(true);
    expect(log).toHaveLength(count);
    expect(new Set(log).size).toBe(count);
    expect(log.every((line) => line.endsWith(' initial'))).toBe(true);
    expect(seenBetweenTurns.some((seen) => seen > 0 && seen < count)).toBe(true);
    expect(late).toHaveLength(count);
    expect(new Set(late).size).toBe(count);
    expect(informer.list()).toHaveLength(count);
    expect(informer.resourceVersion).toBe('9000');
    await waitFor('the watch', () => lw.watches.length === 1);
    expect(lw.lastWatch.options.resourceVersion).toBe('9000');
  });

  it('delivers watch events in order and restarts a cleanly ended watch from the last resourceVersion without relisting', async () => {
    const lw = new FakeListerWatcher();
    const { informer, log, registry } = start(lw);
    await waitFor('the first watch', () => lw.watches.length === 1);
    const first = lw.lastWatch;
    first.push({ type: 'ADDED', object: obj('a', '2') });
    first.push({ type: 'MODIFIED', object: obj('a', '3') });
    first.push({ type: 'DELETED', object: obj('a', '4') });
    first.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } });
    first.end();
    await waitFor('the restarted watch', () => lw.watches.length === 2);
    expect(log).toEqual(['add a@2', 'update a 2->3', 'delete a']);
    expect(lw.lastWatch.options.resourceVersion).toBe('9');
    expect(lw.listCalls).toHaveLength(1);
    expect(informer.resourceVersion).toBe('9');
    expect(await counter(registry, 'vcsync_watch_restarts_total')).toBe(1);
    expect(await counter(registry, 'vcsync_watch_relists_total')).toBe(1);
    expect(await counter(registry, 'vcsync_watch_events_total', { type: 'BOOKMARK' })).toBe(1);
  });

  it('caches and delivers every listed and watched object as its transform returns it (client-go SetTransform)', async () => {
    const lw = new FakeListerWatcher();
    const big = (name: string, rv: string): KubeObject => ({ ...obj(name, rv), data: { payload: 'x'.repeat(100) } } as KubeObject);
    lw.listScript = [{ items: [big('a', '1')], metadata: { resourceVersion: '1' } }];
    const seen: KubeObject[] = [];
    const { informer } = start(lw, { transform: (o) => ({ metadata: { ...o.metadata, labels: { slim: 'yes' } } }) });
    informer.addHandler({ onAdd: (o) => void seen.push(o), onUpdate: (_old, o) => void seen.push(o), onDelete: (o) => void seen.push(o) });
    await waitFor('the first watch', () => lw.watches.length === 1);
    lw.lastWatch.push({ type: 'ADDED', object: big('b', '2') });
    lw.lastWatch.push({ type: 'MODIFIED', object: big('a', '3') });
    lw.lastWatch.push({ type: 'DELETED', object: big('b', '4') });
    await waitFor('the listed object and three watch deliveries', () => seen.length === 4);
    for (const object of [...seen, ...informer.list()]) {
      expect(object).not.toHaveProperty('data');
      expect(object.metadata?.labels).toEqual({ slim: 'yes' });
    }
    expect(informer.get('ns/a')?.metadata?.resourceVersion).toBe('3');
    expect(informer.get('ns/b')).toBeUndefined();
  });

  it('transforms a listed page before fetching the next: whole objects of one page at most are alive at a time', async () => {
    const lw = new FakeListerWatcher();
    lw.listScript = [
      { items: [obj('a', '5')], metadata: { resourceVersion: '7', continue: 'page2' } },
      { items: [obj('b', '6')], metadata: { resourceVersion: '7' } },
    ];
    const pagesFetchedAtTransform: Record<string, number> = {};
    const { informer } = start(lw, {
      pageSize: 1,
      transform: (o) => {
        pagesFetchedAtTransform[o.metadata?.name ?? ''] = lw.listCalls.length;
        return o;
      },
    });
    expect(await informer.waitForCacheSync(new AbortController().signal)).toBe(true);
    expect(pagesFetchedAtTransform).toEqual({ a: 1, b: 2 });
  });

  it('keeps no index it was not given: nobody queries one, and each costs a set entry per object', () => {
    const { informer } = start(new FakeListerWatcher());
    expect(() => informer.byIndex(NAMESPACE_INDEX, 'ns')).toThrow(RangeError);
  });

  it('relists on an in-stream Expired error and delivers the difference', async () => {
    const lw = new FakeListerWatcher();
    lw.listScript = [{ items: [obj('a', '1'), obj('b', '1')], metadata: { resourceVersion: '1' } }];
    const { log } = start(lw);
    await waitFor('the first watch', () => lw.watches.length === 1);
    lw.listScript = [{ items: [obj('a', '1'), obj('c', '8')], metadata: { resourceVersion: '8' } }];
    lw.lastWatch.push({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } });
    await waitFor('the watch after relist', () => lw.watches.length === 2);
    expect(lw.listCalls).toHaveLength(2);
    expect(log.slice(2)).toEqual(['add c@8', 'delete b']);
    expect(lw.lastWatch.options.resourceVersion).toBe('8');
  });

  it('relists when opening the watch answers 410 Gone', async () => {
    const lw = new FakeListerWatcher();
    lw.watchErrors = [new ApiError({ httpStatus: 410, status: { kind: 'Status', code: 410, reason: 'Gone' }, verb: 'WATCH', path: '/x' })];
    start(lw);
    await waitFor('a watch after the relist', () => lw.watches.length === 1);
    expect(lw.listCalls).toHaveLength(2);
  });

  it('backs off 800 ms doubling after other errors and resumes from the last resourceVersion', async () => {
    const lw = new FakeListerWatcher();
    const refused = (): TransportError => new TransportError('refused', new Error('ECONNREFUSED'));
    const { clock } = start(lw);
    await waitFor('the first watch', () => lw.watches.length === 1);
    lw.lastWatch.push({ type: 'ADDED', object: obj('a', '3') });
    lw.watchErrors = [refused(), refused()];
    lw.lastWatch.fail(refused());
    await waitFor('the first backoff', () => lw.watches[0]?.closed === true && clock.pendingTimers() === 1);
    clock.advance(799);
    // The informer is parked on the backoff timer, which has not fired: nothing else can open a watch.
    expect({ attempts: lw.watchAttempts, pendingTimers: clock.pendingTimers() }).toEqual({ attempts: 1, pendingTimers: 1 });
    clock.advance(1);
    await waitFor('the second backoff', () => lw.watchAttempts === 2 && clock.pendingTimers() === 1);
    clock.advance(1599);
    expect({ attempts: lw.watchAttempts, pendingTimers: clock.pendingTimers() }).toEqual({ attempts: 2, pendingTimers: 1 });
    clock.advance(1);
    await waitFor('the third backoff', () => lw.watchAttempts === 3 && clock.pendingTimers() === 1);
    clock.advance(3200);
    await waitFor('a new watch', () => lw.watches.length === 2);
    expect(lw.lastWatch.options.resourceVersion).toBe('3');
    expect(lw.listCalls).toHaveLength(1);
  });

  it('starts the backoff over after a quiet watch that worked for a while breaks: repeated cuts never grow the delay (the chaos run lagged 50 s)', async () => {
    const lw = new FakeListerWatcher();
    const { clock } = start(lw);
    for (let cut = 1; cut <= 4; cut += 1) {
      await waitFor(`watch ${cut}`, () => lw.watches.length === cut && clock.pendingTimers() === 1);
      clock.advance(3_000);
      lw.lastWatch.fail(new TransportError('connection lost', new Error('aborted')));
      await waitFor(`the backoff after cut ${cut}`, () => lw.watches[cut - 1]?.closed === true && clock.pendingTimers() === 1);
      clock.advance(799);
      // Parked on a backoff timer that has not fired: no watch can have been attempted since the cut.
      expect({ attempts: lw.watchAttempts, pendingTimers: clock.pendingTimers() }).toEqual({ attempts: cut, pendingTimers: 1 });
      clock.advance(1);
    }
    await waitFor('the fifth watch', () => lw.watches.length === 5);
    expect(lw.listCalls).toHaveLength(1);
  });

  it('relists at once on an expired watch that resumed after another failure: only a relist expiring again at once backs off', async () => {
    const lw = new FakeListerWatcher();
    const gone = (): ApiError => new ApiError({ httpStatus: 410, status: { kind: 'Status', code: 410, reason: 'Expired' }, verb: 'WATCH', path: '/x' });
    lw.watchErrors = [gone()];
    const { clock } = start(lw);
    await waitFor('the watch after the first relist', () => lw.watches.length === 1 && clock.pendingTimers() === 1);
    expect(lw.listCalls).toHaveLength(2);
    lw.lastWatch.fail(new TransportError('connection lost', new Error('aborted')));
    await waitFor('the backoff after the cut', () => lw.watches[0]?.closed === true && clock.pendingTimers() === 1);
    lw.watchErrors = [gone()];
    clock.advance(800);
    await waitFor('the relist after the resumed watch expired', () => lw.watches.length === 2);
    expect(lw.listCalls).toHaveLength(3);
  });

  it('restarts a watch that stays silent past the limit', async () => {
    const lw = new FakeListerWatcher();
    const { clock, informer } = start(lw, { watchSilenceLimitMs: 10_000 });
    await waitFor('the first watch', () => lw.watches.length === 1);
    lw.lastWatch.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '4' } } });
    await waitFor('the bookmark and the watchdog', () => informer.resourceVersion === '4' && clock.pendingTimers() === 1);
    clock.advance(9_999);
    expect(lw.lastWatch.closed).toBe(false);
    clock.advance(1);
    await waitFor('the restarted watch', () => lw.watches.length === 2);
    expect(lw.watches[0]?.closed).toBe(true);
    expect(lw.lastWatch.options.resourceVersion).toBe('4');
    expect(lw.listCalls).toHaveLength(1);
  });

  it('keeps a watch whose events come more often than the silence limit, and restarts it a limit after the last one', async () => {
    const lw = new FakeListerWatcher();
    const { clock, informer } = start(lw, { watchSilenceLimitMs: 10_000 });
    await waitFor('the first watch', () => lw.watches.length === 1);
    for (let i = 1; i <= 5; i += 1) {
      clock.advance(6_000);
      lw.lastWatch.push({ type: 'ADDED', object: obj(`o${i}`, String(i + 1)) });
      await waitFor(`event ${i}`, () => informer.get(`ns/o${i}`) !== undefined);
    }
    // 30 s of watch, never 10 s without an event: the same watch, one watchdog timer.
    expect(lw.watches).toHaveLength(1);
    expect(lw.lastWatch.closed).toBe(false);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(9_999);
    expect(lw.lastWatch.closed).toBe(false);
    clock.advance(1);
    await waitFor('the restarted watch', () => lw.watches.length === 2);
    expect(lw.watches[0]?.closed).toBe(true);
    expect(lw.lastWatch.options.resourceVersion).toBe('6');
  });

  it('keeps delivering when a handler throws, and counts the failure', async () => {
    const lw = new FakeListerWatcher();
    const { informer, log, registry } = start(lw);
    informer.addHandler({
      onAdd: () => {
        throw new Error('handler bug');
      },
      onUpdate: async () => {
        throw new Error('async handler bug');
      },
    });
    await waitFor('the watch', () => lw.watches.length === 1);
    lw.lastWatch.push({ type: 'ADDED', object: obj('a', '2') });
    lw.lastWatch.push({ type: 'MODIFIED', object: obj('a', '3') });
    await waitFor('both events', () => log.length === 2);
    await waitFor('the cache', () => informer.get('ns/a')?.metadata?.resourceVersion === '3');
    // The async handler's rejection is counted when it settles, after the delivery.
    await waitFor('both handler failures counted', async () => (await counter(registry, 'vcsync_informer_handler_errors_total')) === 2);
  });

  it('redelivers every cached object as an update each resync period', async () => {
    const lw = new FakeListerWatcher();
    lw.listScript = [{ items: [obj('a', '1'), obj('b', '1')], metadata: { resourceVersion: '1' } }];
    const { log, clock } = start(lw, { resyncPeriodMs: 60_000, resyncJitter: 0 });
    await waitFor('the watch', () => lw.watches.length === 1);
    await waitFor('resync and watchdog timers', () => clock.pendingTimers() === 2);
    clock.advance(60_000);
    await waitFor('the resync', () => log.length === 4);
    expect(log.slice(2)).toEqual(['update a 1->1', 'update b 1->1']);
  });

  it('gives a handler added after sync an add for each cached object', async () => {
    const lw = new FakeListerWatcher();
    lw.listScript = [{ items: [obj('a', '1')], metadata: { resourceVersion: '1' } }];
    const { informer } = start(lw);
    expect(await informer.waitForCacheSync(new AbortController().signal)).toBe(true);
    const seen: string[] = [];
    const remove = informer.addHandler({
      onAdd: (o, _initial, key) => {
        seen.push(`${o.metadata?.name ?? ''} ${key}`);
      },
    });
    expect(seen).toEqual(['a ns/a']);
    remove();
    lw.lastWatch.push({ type: 'ADDED', object: obj('z', '2') });
    await waitFor('the new object', () => informer.get('ns/z') !== undefined);
    expect(seen).toEqual(['a ns/a']);
  });

  it('keeps pluggable indexes in step with watch events', async () => {
    const lw = new FakeListerWatcher();
    const labelled = (name: string, rv: string, app: string): KubeObject => ({ metadata: { namespace: 'ns', name, resourceVersion: rv, labels: { app } } });
    lw.listScript = [{ items: [labelled('a', '1', 'web'), labelled('b', '1', 'db')], metadata: { resourceVersion: '1' } }];
    const { informer } = start(lw, { indexers: { app: (o) => [o.metadata?.labels?.['app'] ?? ''] } });
    await waitFor('the watch', () => lw.watches.length === 1);
    expect(informer.byIndex('app', 'web').map((o) => o.metadata?.name)).toEqual(['a']);
    lw.lastWatch.push({ type: 'MODIFIED', object: labelled('b', '2', 'web') });
    await waitFor('b moving to the web index', () => informer.byIndex('app', 'web').length === 2);
    expect(informer.byIndex('app', 'db')).toEqual([]);
  });

  it('run resolves after abort with the watch closed', async () => {
    const lw = new FakeListerWatcher();
    const { done } = start(lw);
    await waitFor('the watch', () => lw.watches.length === 1);
    const stop = stops.pop();
    await stop?.();
    await done;
    expect(lw.lastWatch.closed).toBe(true);
  });
});
