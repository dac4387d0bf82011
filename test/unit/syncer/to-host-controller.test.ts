import { describe, expect, it } from 'vitest';
import { objectKey } from '../../../src/kube/object-key.js';
import { Registry } from 'prom-client';
import type { Informer, InformerHandler } from '../../../src/kube/informer.js';
import { RateLimitingWorkQueue } from '../../../src/kube/rate-limiting-queue.js';
import { defaultConfig } from '../../../src/config/index.js';
import { endpointsResource } from '../../../src/syncer/endpoints/endpoints-resource.js';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import { SyncerMetrics } from '../../../src/syncer/metrics.js';
import { ToHostController, type EventSink } from '../../../src/syncer/to-host-controller.js';
import { FakeClock } from '../../../src/kube/fake-clock.js';
import type { Clock } from '../../../src/kube/clock.js';
import type { Logger } from '../../../src/observe/logger.js';
import { ToHostReconciler, type ClusterWriter } from '../../../src/syncer/to-host-reconciler.js';
import { createTranslator } from '../../../src/translate/translator.js';
import { metricValue } from '../../support/metrics.js';
import { passThrough } from '../../support/hand-filled-cache.js';
import { waitFor } from '../../support/wait-for.js';
import { captureLogger } from '../../support/log-capture.js';

/** An informer whose cache and events the test drives by hand. */
class HandDriven {
  readonly byKey = new Map<string, Endpoints>();
  readonly handlers: InformerHandler<Endpoints>[] = [];
  get = (key: string): Endpoints | undefined => this.byKey.get(key);
  list = (): Endpoints[] => [...this.byKey.values()];
  addHandler = (handler: InformerHandler<Endpoints>): (() => void) => {
    this.handlers.push(handler);
    return () => undefined;
  };
  waitForCacheSync = (): Promise<boolean> => Promise.resolve(true);
  asInformer(): Informer<Endpoints> {
    return this as unknown as Informer<Endpoints>;
  }
}

const translator = createTranslator({ vclusterName: 'vc', hostNamespace: 'host-ns', config: defaultConfig() });
const resource = endpointsResource({ get: () => ({ spec: {} }) });
const virtual: Endpoints = { metadata: { name: 'web', namespace: 'default', uid: 'v-uid', resourceVersion: '1' }, subsets: [] };

/** What a test hands the controller; the rest (translator, resource, metrics registry) is shared. */
interface ControllerSetup {
  virtualInformer: HandDriven;
  hostInformer: HandDriven;
  hostClient: ClusterWriter;
  queue?: RateLimitingWorkQueue;
  events?: EventSink;
  workers?: number;
  clock?: Clock;
  logger?: Logger;
}

/** An Endpoints controller with a pass-through patcher over hand-driven informers, and its metrics registry. */
function controllerOver(setup: ControllerSetup): { sync: ToHostController<Endpoints>; registry: Registry } {
  const registry = new Registry();
  const reconciler = new ToHostReconciler<Endpoints>({
    resource,
    virtualCache: setup.virtualInformer.asInformer(),
    hostCache: setup.hostInformer.asInformer(),
    virtualClient: setup.hostClient,
    hostClient: setup.hostClient,
    state: { enabled: true, translator, patcher: passThrough },
  });
  const sync = new ToHostController<Endpoints>({
    kind: resource,
    reconciler,
    virtualInformer: setup.virtualInformer.asInformer(),
    hostInformer: setup.hostInformer.asInformer(),
    queue: setup.queue ?? new RateLimitingWorkQueue(),
    events: setup.events ?? { warning: () => { throw new Error('no event expected'); } },
    metrics: new SyncerMetrics(registry).controller('endpoints'),
    ...(setup.workers === undefined ? {} : { workers: setup.workers }),
    ...(setup.clock === undefined ? {} : { clock: setup.clock }),
    ...(setup.logger === undefined ? {} : { logger: setup.logger }),
  });
  return { sync, registry };
}

describe('ToHostController: which host events it queues', () => {
  /**
   * A running controller over hand-driven informers whose handlers are registered, recording
   * every key it queues; `stop()` ends it.
   */
  async function runningController(virtualInformer: HandDriven, hostInformer: HandDriven, hostClient: ClusterWriter) {
    const queue = new RateLimitingWorkQueue();
    const queued: string[] = [];
    const add = queue.add.bind(queue);
    queue.add = (key: string): void => {
      queued.push(key);
      add(key);
    };
    const { sync, registry } = controllerOver({ virtualInformer, hostInformer, hostClient, queue });
    const controller = new AbortController();
    const running = sync.run(controller.signal);
    const stop = async (): Promise<void> => {
      controller.abort();
      await running;
    };
    try {
      await waitFor('handlers registered', () => virtualInformer.handlers.length === 1 && hostInformer.handlers.length === 1);
    } catch (error) {
      await stop();
      throw error;
    }
    return { queued, registry, stop };
  }


  it('does not queue the host watch echo of its own write (nor a resync), but queues real host changes and deletes', async () => {
    const virtualInformer = new HandDriven();
    const hostInformer = new HandDriven();
    virtualInformer.byKey.set('default/web', virtual);
    const hostWrites: Endpoints[] = [];
    const hostClient: ClusterWriter = {
      get: () => Promise.reject(new Error('unexpected get')),
      create: <T>(_path: string, body: T) => {
        const b = body as Endpoints;
        const stored = { ...b, metadata: { ...b.metadata, uid: 'h-uid', resourceVersion: '50' } };
        hostWrites.push(stored);
        return Promise.resolve(stored as T);
      },
      update: () => Promise.reject(new Error('unexpected update')),
      delete: () => Promise.reject(new Error('unexpected delete')),
    };
    const { queued, registry, stop } = await runningController(virtualInformer, hostInformer, hostClient);
    try {
      await virtualInformer.handlers[0]?.onAdd?.(virtual, false, objectKey(virtual));
      await waitFor('the create counted', async () => (await metricValue(registry, 'vcsync_sync_operations_total', { result: 'created' })) === 1);
      expect(queued).toEqual(['default/web']);

      const echo = hostWrites[0] as Endpoints;
      hostInformer.byKey.set('host-ns/web-x-default-x-vc', echo);
      await hostInformer.handlers[0]?.onAdd?.(echo, false, objectKey(echo)); // the watch echo of our create
      await hostInformer.handlers[0]?.onUpdate?.(echo, echo, objectKey(echo)); // a periodic resync
      expect(queued).toEqual(['default/web']);

      const edited = { ...echo, metadata: { ...echo.metadata, resourceVersion: '51', labels: { ...echo.metadata?.labels, edited: 'by-someone' } } };
      await hostInformer.handlers[0]?.onUpdate?.(echo, edited, objectKey(edited));
      await hostInformer.handlers[0]?.onDelete?.(echo, objectKey(echo));
      expect(queued).toEqual(['default/web', 'default/web', 'default/web']);
    } finally {
      await stop();
    }
  });

  it('decides on a host event that arrives before its own write\'s answer once that answer is in: an echo is not queued', async () => {
    const virtualInformer = new HandDriven();
    const hostInformer = new HandDriven();
    virtualInformer.byKey.set('default/web', virtual);
    let answer: (() => void) | undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const bodies: Endpoints[] = [];
    const hostClient: ClusterWriter = {
      get: () => Promise.reject(new Error('unexpected get')),
      create: async <T>(_path: string, body: T): Promise<T> => {
        bodies.push(body as Endpoints);
        await answered;
        const b = body as Endpoints;
        return { ...b, metadata: { ...b.metadata, uid: 'h-uid', resourceVersion: '60' } } as T;
      },
      update: () => Promise.reject(new Error('unexpected update')),
      delete: () => Promise.reject(new Error('unexpected delete')),
    };
    const { queued, registry, stop } = await runningController(virtualInformer, hostInformer, hostClient);
    try {
      await virtualInformer.handlers[0]?.onAdd?.(virtual, false, objectKey(virtual));
      const body = await waitFor('the create in flight', () => bodies[0]);
      // The watch delivers our object before the POST answers.
      const early = { ...body, metadata: { ...body.metadata, uid: 'h-uid', resourceVersion: '60' } };
      hostInformer.byKey.set('host-ns/web-x-default-x-vc', early);
      await hostInformer.handlers[0]?.onAdd?.(early, false, objectKey(early));
      answer?.();
      await waitFor('the create counted', async () => (await metricValue(registry, 'vcsync_sync_operations_total', { result: 'created' })) === 1);
      expect(queued).toEqual(['default/web']);
    } finally {
      await stop();
    }
  });
});

describe('ToHostController at the end of a leadership term', () => {
  it('takes no queued key once its signal fired, and does not report the write the end of the term cut as a sync error', async () => {
    const virtualInformer = new HandDriven();
    for (const name of ['a', 'b', 'c']) virtualInformer.byKey.set(`default/${name}`, { metadata: { name, namespace: 'default', uid: `v-${name}`, resourceVersion: '1' }, subsets: [] });
    let fail: (error: Error) => void = () => undefined;
    const creates: string[] = [];
    const hostClient: ClusterWriter = {
      get: () => Promise.reject(new Error('unexpected get')),
      // The first write hangs until the term ends; then it fails as a write aborted in flight does.
      create: <T>(_path: string, body: T) => {
        creates.push((body as Endpoints).metadata?.name ?? '');
        if (creates.length > 1) return Promise.reject(new Error('the term is over: this write would reach the host late'));
        return new Promise<T>((_, reject) => (fail = reject));
      },
      update: () => Promise.reject(new Error('unexpected update')),
      delete: () => Promise.reject(new Error('unexpected delete')),
    };
    const events: string[] = [];
    const { sync, registry } = controllerOver({
      virtualInformer,
      hostInformer: new HandDriven(),
      hostClient,
      events: { warning: (_object, reason) => events.push(reason) },
      workers: 1,
    });
    const term = new AbortController();
    const running = sync.run(term.signal);
    await waitFor('handlers registered', () => virtualInformer.handlers.length === 1);
    for (const object of virtualInformer.list()) await virtualInformer.handlers[0]?.onAdd?.(object, false, objectKey(object));
    await waitFor('the first write in flight', () => creates.length === 1);
    term.abort();
    fail(new Error('This operation was aborted'));
    await running;
    expect(creates).toEqual(['a-x-default-x-vc']);
    expect(events).toEqual([]);
    expect(await metricValue(registry, 'vcsync_sync_operations_total', { result: 'error' })).toBe(0);
  });
});

describe('ToHostController: the end of the initial pass', () => {
  it('is recorded once every key queued by the initial lists was reconciled and none is in flight, not before', async () => {
    const virtualInformer = new HandDriven();
    const hostInformer = new HandDriven();
    virtualInformer.byKey.set('default/web', virtual);
    let listed: (() => void) | undefined;
    const cachesSynced = new Promise<boolean>((resolve) => (listed = () => resolve(true)));
    virtualInformer.waitForCacheSync = () => cachesSynced;
    let answer: (() => void) | undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    let creates = 0;
    const hostClient: ClusterWriter = {
      get: () => Promise.reject(new Error('unexpected get')),
      create: async <T>(_path: string, body: T): Promise<T> => {
        creates += 1;
        await answered;
        const b = body as Endpoints;
        return { ...b, metadata: { ...b.metadata, uid: 'h-uid', resourceVersion: '60' } } as T;
      },
      update: () => Promise.reject(new Error('unexpected update')),
      delete: () => Promise.reject(new Error('unexpected delete')),
    };
    const { sync, registry } = controllerOver({ virtualInformer, hostInformer, hostClient });
    const controller = new AbortController();
    const running = sync.run(controller.signal);
    const doneAt = (): Promise<number> => metricValue(registry, 'vcsync_initial_sync_done_timestamp_seconds', { controller: 'endpoints' });
    try {
      await waitFor('handlers registered', () => virtualInformer.handlers.length === 1);
      await virtualInformer.handlers[0]?.onAdd?.(virtual, true, objectKey(virtual)); // the initial list's add
      expect(await doneAt()).toBe(0);
      const before = Date.now() / 1000;
      listed?.();
      await waitFor('the create in flight', () => creates === 1);
      expect(await doneAt()).toBe(0); // queue empty, but the key is still being reconciled
      answer?.();
      await waitFor('the create counted', async () => (await metricValue(registry, 'vcsync_sync_operations_total', { result: 'created' })) === 1);
      const done = await waitFor('the end of the initial pass recorded', async () => {
        const value = await doneAt();
        return value > 0 ? value : undefined;
      });
      expect(done).toBeGreaterThanOrEqual(Math.floor(before));
    } finally {
      controller.abort();
      await running;
    }
  });

  it('logs a large pass\'s end at the moment it records it, with the keys it reconciled, without waiting for a progress tick', async () => {
    const virtualInformer = new HandDriven();
    const hostInformer = new HandDriven();
    const keys = 1000; // the size from which a pass logs its progress and its end
    for (let i = 0; i < keys; i += 1) virtualInformer.byKey.set(`default/e${i}`, { metadata: { name: `e${i}`, namespace: 'default', uid: `v-${i}`, resourceVersion: '1' }, subsets: [] });
    const hostClient: ClusterWriter = {
      get: () => Promise.reject(new Error('unexpected get')),
      create: <T>(_path: string, body: T): Promise<T> => {
        const b = body as Endpoints;
        return Promise.resolve({ ...b, metadata: { ...b.metadata, uid: `h-${b.metadata?.name ?? ''}`, resourceVersion: '70' } } as T);
      },
      update: () => Promise.reject(new Error('unexpected update')),
      delete: () => Promise.reject(new Error('unexpected delete')),
    };
    const log = captureLogger('info');
    const clock = new FakeClock(); // never advanced: no progress tick ever fires
    const queue = new RateLimitingWorkQueue();
    for (const key of virtualInformer.byKey.keys()) queue.add(key); // what the initial list's adds queue
    const { sync, registry } = controllerOver({ virtualInformer, hostInformer, hostClient, queue, clock, logger: log.logger });
    const controller = new AbortController();
    const running = sync.run(controller.signal);
    try {
      await waitFor('the end of the initial pass recorded', async () => (await metricValue(registry, 'vcsync_initial_sync_done_timestamp_seconds', { controller: 'endpoints' })) > 0);
      expect(log.matching('initial sync done', { total: keys })).toHaveLength(1);
      expect(log.matching('initial sync in progress')).toEqual([]);
      expect(await metricValue(registry, 'vcsync_sync_operations_total', { result: 'created' })).toBe(keys);
    } finally {
      controller.abort();
      await running;
    }
  });
});
