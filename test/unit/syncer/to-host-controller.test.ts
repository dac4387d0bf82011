import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { ApiError } from '../../../src/kube/api-error.js';
import type { Informer, InformerHandler } from '../../../src/kube/informer.js';
import { RateLimitingWorkQueue } from '../../../src/kube/rate-limiting-queue.js';
import { defaultConfig } from '../../../src/config/index.js';
import { endpointsResource } from '../../../src/syncer/endpoints/endpoints-resource.js';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import { SyncerMetrics } from '../../../src/syncer/metrics.js';
import type { ObjectPatcher } from '../../../src/syncer/object-patcher.js';
import { ToHostController } from '../../../src/syncer/to-host-controller.js';
import { ToHostReconciler, type ObjectWriter } from '../../../src/syncer/to-host-reconciler.js';
import { createTranslator } from '../../../src/translate/translator.js';
import { metricValue } from '../../support/metrics.js';
import { cacheOf, passThrough } from '../../support/hand-filled-cache.js';
import { waitFor } from '../../support/wait-for.js';

function alreadyExists(): ApiError {
  return new ApiError({ httpStatus: 409, status: { kind: 'Status', code: 409, reason: 'AlreadyExists', message: 'exists' }, verb: 'POST', path: '/x' });
}

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

describe('ToHostReconciler.reconcile, and the controller around it', () => {
  const translator = createTranslator({ vclusterName: 'vc', hostNamespace: 'host-ns', config: defaultConfig() });
  const virtual: Endpoints = { metadata: { name: 'web', namespace: 'default', uid: 'v-uid', resourceVersion: '1' }, subsets: [] };
  const resource = endpointsResource({ get: () => ({ spec: {} }) });

  /**
   * A running controller over hand-driven informers whose handlers are registered, recording
   * every key it queues; `stop()` ends it.
   */
  async function runningController(virtualInformer: HandDriven, hostInformer: HandDriven, hostClient: ObjectWriter) {
    const queue = new RateLimitingWorkQueue();
    const queued: string[] = [];
    const add = queue.add.bind(queue);
    queue.add = (key: string): void => {
      queued.push(key);
      add(key);
    };
    const registry = new Registry();
    const reconciler = new ToHostReconciler<Endpoints>({
      resource,
      virtualCache: virtualInformer.asInformer(),
      hostCache: hostInformer.asInformer(),
      virtualClient: hostClient,
      hostClient,
      state: { enabled: true, translator, patcher: passThrough },
    });
    const sync = new ToHostController<Endpoints>({
      kind: resource,
      reconciler,
      virtualInformer: virtualInformer.asInformer(),
      hostInformer: hostInformer.asInformer(),
      queue,
      events: { warning: () => { throw new Error('no event expected'); } },
      metrics: new SyncerMetrics(registry).controller('endpoints'),
    });
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

  function controller(hostClient: ObjectWriter, enabled = true) {
    return new ToHostReconciler<Endpoints>({
      resource,
      virtualCache: cacheOf([virtual]),
      hostCache: cacheOf<Endpoints>([]),
      virtualClient: hostClient,
      hostClient,
      state: { enabled, translator, patcher: passThrough },
    });
  }

  it('requeues without an error when the host already has our copy and the cache lags', async () => {
    const ours = translator.hostMetadata({ virtual: virtual.metadata ?? {}, kind: '/v1, Kind=Endpoints' });
    if (!ours.synced) throw new Error('not synced');
    const client: ObjectWriter = {
      create: () => Promise.reject(alreadyExists()),
      get: <T>() => Promise.resolve({ metadata: ours.metadata } as T),
      update: () => Promise.reject(new Error('unexpected update')),
      delete: () => Promise.reject(new Error('unexpected delete')),
    };
    expect(await controller(client).reconcile('default/web')).toEqual({
      kind: 'requeue', afterMs: 100, reason: 'the host cache has not seen the host object yet',
    });
  });

  it('names the cause of a skip: a disabled resource skips every key', async () => {
    const untouched: ObjectWriter = {
      create: () => Promise.reject(new Error('unexpected create')),
      get: () => Promise.reject(new Error('unexpected get')),
      update: () => Promise.reject(new Error('unexpected update')),
      delete: () => Promise.reject(new Error('unexpected delete')),
    };
    expect(await controller(untouched, false).reconcile('default/web')).toEqual({ kind: 'skipped', cause: 'disabled', reason: 'sync.toHost.endpoints.enabled is false' });
  });

  it('fails terminally when the name is taken by an object this vcluster did not write', async () => {
    const client: ObjectWriter = {
      create: () => Promise.reject(alreadyExists()),
      get: <T>() => Promise.resolve({ metadata: { name: 'web-x-default-x-vc', namespace: 'host-ns' } } as T),
      update: () => Promise.reject(new Error('unexpected update')),
      delete: () => Promise.reject(new Error('unexpected delete')),
    };
    await expect(controller(client).reconcile('default/web')).rejects.toMatchObject({ name: 'TerminalError', code: 'HostObjectNotManaged' });
  });

  /**
   * Caches filled by hand and writers that play the API servers (assigning resourceVersions),
   * recording every write; `newController()` makes a controller over them (a second one plays a
   * restarted process, or one whose create answer was lost: it remembers nothing).
   */
  function handFilledBed() {
    const virtualCache = new Map<string, Endpoints>();
    const hostCache = new Map<string, Endpoints>();
    const cache = (byKey: Map<string, Endpoints>): Informer<Endpoints> => ({ get: (key: string) => byKey.get(key), list: () => [...byKey.values()] }) as unknown as Informer<Endpoints>;
    let version = 10;
    const written = (body: Endpoints): Endpoints => ({ ...body, metadata: { ...body.metadata, resourceVersion: String(++version) } });
    const hostWrites: Endpoints[] = [];
    const virtualWrites: Endpoints[] = [];
    const hostClient: ObjectWriter = {
      get: () => Promise.reject(new Error('unexpected get')),
      create: <T>(_path: string, body: T) => { const stored = written(body as Endpoints); hostWrites.push(stored); return Promise.resolve(stored as T); },
      update: <T>(_path: string, body: T) => { const stored = written(body as Endpoints); hostWrites.push(stored); return Promise.resolve(stored as T); },
      delete: () => Promise.reject(new Error('unexpected delete')),
    };
    const virtualClient: ObjectWriter = {
      ...hostClient,
      create: () => Promise.reject(new Error('unexpected virtual create')),
      update: <T>(_path: string, body: T) => { const stored = written(body as Endpoints); virtualWrites.push(stored); return Promise.resolve(stored as T); },
    };
    const newController = (): ToHostReconciler<Endpoints> =>
      new ToHostReconciler<Endpoints>({
        resource,
        virtualCache: cache(virtualCache),
        hostCache: cache(hostCache),
        virtualClient,
        hostClient,
        state: { enabled: true, translator, patcher: passThrough },
      });
    const cacheHost = (object: Endpoints): void => void hostCache.set(`${object.metadata?.namespace}/${object.metadata?.name}`, object);
    return { virtualCache, hostWrites, virtualWrites, newController, cacheHost };
  }

  it('does not take a host cache one write behind for a host change (no stale labels flow back)', async () => {
    const { virtualCache, hostWrites, virtualWrites, newController, cacheHost } = handFilledBed();
    const sync = newController();
    virtualCache.set('default/web', { ...virtual, metadata: { ...virtual.metadata, labels: { app: 'two' } } });
    expect(await sync.reconcile('default/web')).toEqual({ kind: 'synced', action: 'created' });
    cacheHost(hostWrites[0] as Endpoints);

    // The tenant changes the label; the host is updated to it.
    virtualCache.set('default/web', { ...virtual, metadata: { ...virtual.metadata, resourceVersion: '2', labels: { app: 'two-v2' } } });
    expect(await sync.reconcile('default/web')).toEqual({ kind: 'synced', action: 'updated' });
    expect(hostWrites[1]?.metadata?.labels?.['app']).toBe('two-v2');

    // Reconciled again before the host cache has seen that write: it still shows the first copy.
    const outcome = await sync.reconcile('default/web');
    expect(virtualWrites).toEqual([]);
    expect(hostWrites).toHaveLength(2);
    expect(outcome).toMatchObject({ kind: 'requeue' });
  });

  it('does not take the copy its first write replaced for a host change, when it remembered nothing before that write (a lost create answer, a restart)', async () => {
    // Found by the chaos run: a create whose answer was lost, an update over its copy, then a host
    // list answered late that still showed the created copy: its old label was copied back into
    // the tenant's object.
    const { virtualCache, hostWrites, virtualWrites, newController, cacheHost } = handFilledBed();
    virtualCache.set('default/web', { ...virtual, metadata: { ...virtual.metadata, labels: { app: 'v0' } } });
    expect(await newController().reconcile('default/web')).toEqual({ kind: 'synced', action: 'created' });
    const created = hostWrites[0] as Endpoints;
    cacheHost(created);

    const sync = newController(); // remembers nothing of that create
    virtualCache.set('default/web', { ...virtual, metadata: { ...virtual.metadata, resourceVersion: '2', labels: { app: 'v1' } } });
    expect(await sync.reconcile('default/web')).toEqual({ kind: 'synced', action: 'updated' });
    // The host cache goes back to the created copy (a late list): still not a host change.
    cacheHost(created);
    const outcome = await sync.reconcile('default/web');
    expect(virtualWrites).toEqual([]);
    expect(hostWrites).toHaveLength(2);
    expect(outcome).toMatchObject({ kind: 'requeue' });
  });

  it('skips the echo of its own write: no translation, patching or host call while both resourceVersions match the last converge', async () => {
    const virtualCache = new Map<string, Endpoints>([['default/web', virtual]]);
    const hostCache = new Map<string, Endpoints>();
    const cache = (byKey: Map<string, Endpoints>): Informer<Endpoints> => ({ get: (key: string) => byKey.get(key), list: () => [...byKey.values()] }) as unknown as Informer<Endpoints>;
    const hostCalls: string[] = [];
    const hostClient: ObjectWriter = {
      get: () => { hostCalls.push('get'); return Promise.reject(new Error('unexpected get')); },
      create: <T>(_path: string, body: T) => { hostCalls.push('create'); const b = body as Endpoints; return Promise.resolve({ ...b, metadata: { ...b.metadata, uid: 'h-uid', resourceVersion: '50' } } as T); },
      update: () => { hostCalls.push('update'); return Promise.reject(new Error('unexpected update')); },
      delete: () => { hostCalls.push('delete'); return Promise.reject(new Error('unexpected delete')); },
    };
    let toHostCalls = 0;
    const counting: ObjectPatcher = { ...passThrough, toHost: (input) => { toHostCalls += 1; return passThrough.toHost(input); } };
    const state = { enabled: true, translator, patcher: counting };
    const sync = new ToHostReconciler<Endpoints>({
      resource,
      virtualCache: cache(virtualCache),
      hostCache: cache(hostCache),
      virtualClient: hostClient,
      hostClient,
      state,
    });
    expect(await sync.reconcile('default/web')).toEqual({ kind: 'synced', action: 'created' });
    expect(toHostCalls).toBe(1);
    expect(hostCalls).toEqual(['create']);
    const created = { ...virtual, metadata: { ...virtual.metadata, name: 'web-x-default-x-vc', namespace: 'host-ns', uid: 'h-uid', resourceVersion: '50' } };
    const ours = translator.hostMetadata({ virtual: virtual.metadata ?? {}, kind: '/v1, Kind=Endpoints' });
    if (!ours.synced) throw new Error('not synced');
    hostCache.set('host-ns/web-x-default-x-vc', { ...created, metadata: { ...ours.metadata, uid: 'h-uid', resourceVersion: '50' } });

    // The host watch delivers our create (and a resync re-delivers both objects): nothing moved.
    expect(await sync.reconcile('default/web')).toEqual({ kind: 'unchanged' });
    expect(await sync.reconcile('default/web')).toEqual({ kind: 'unchanged' });
    expect(toHostCalls).toBe(1);
    expect(hostCalls).toEqual(['create']);

    // A reloaded configuration may want another host object: the same versions are reconciled in full.
    sync.updateState({ ...state });
    expect(await sync.reconcile('default/web')).toEqual({ kind: 'unchanged' });
    expect(toHostCalls).toBe(2);
    // The virtual object moved: reconciled in full again.
    virtualCache.set('default/web', { ...virtual, metadata: { ...virtual.metadata, resourceVersion: '2' } });
    expect(await sync.reconcile('default/web')).toEqual({ kind: 'unchanged' });
    expect(toHostCalls).toBe(3);
    expect(hostCalls).toEqual(['create']);
  });

  it('does not queue the host watch echo of its own write (nor a resync), but queues real host changes and deletes', async () => {
    const virtualInformer = new HandDriven();
    const hostInformer = new HandDriven();
    virtualInformer.byKey.set('default/web', virtual);
    const hostWrites: Endpoints[] = [];
    const hostClient: ObjectWriter = {
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
      await virtualInformer.handlers[0]?.onAdd?.(virtual, false);
      await waitFor('the create counted', async () => (await metricValue(registry, 'vcsync_sync_operations_total', { result: 'created' })) === 1);
      expect(queued).toEqual(['default/web']);

      const echo = hostWrites[0] as Endpoints;
      hostInformer.byKey.set('host-ns/web-x-default-x-vc', echo);
      await hostInformer.handlers[0]?.onAdd?.(echo, false); // the watch echo of our create
      await hostInformer.handlers[0]?.onUpdate?.(echo, echo); // a periodic resync
      expect(queued).toEqual(['default/web']);

      const edited = { ...echo, metadata: { ...echo.metadata, resourceVersion: '51', labels: { ...echo.metadata?.labels, edited: 'by-someone' } } };
      await hostInformer.handlers[0]?.onUpdate?.(echo, edited);
      await hostInformer.handlers[0]?.onDelete?.(echo);
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
    const hostClient: ObjectWriter = {
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
      await virtualInformer.handlers[0]?.onAdd?.(virtual, false);
      const body = await waitFor('the create in flight', () => bodies[0]);
      // The watch delivers our object before the POST answers.
      const early = { ...body, metadata: { ...body.metadata, uid: 'h-uid', resourceVersion: '60' } };
      hostInformer.byKey.set('host-ns/web-x-default-x-vc', early);
      await hostInformer.handlers[0]?.onAdd?.(early, false);
      answer?.();
      await waitFor('the create counted', async () => (await metricValue(registry, 'vcsync_sync_operations_total', { result: 'created' })) === 1);
      expect(queued).toEqual(['default/web']);
    } finally {
      await stop();
    }
  });
});

describe('ToHostController at the end of a leadership term', () => {
  const translator = createTranslator({ vclusterName: 'vc', hostNamespace: 'host-ns', config: defaultConfig() });
  const resource = endpointsResource({ get: () => ({ spec: {} }) });

  it('takes no queued key once its signal fired, and does not report the write the end of the term cut as a sync error', async () => {
    const virtualInformer = new HandDriven();
    for (const name of ['a', 'b', 'c']) virtualInformer.byKey.set(`default/${name}`, { metadata: { name, namespace: 'default', uid: `v-${name}`, resourceVersion: '1' }, subsets: [] });
    let fail: (error: Error) => void = () => undefined;
    const creates: string[] = [];
    const hostClient: ObjectWriter = {
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
    const registry = new Registry();
    const hostInformer = new HandDriven().asInformer();
    const reconciler = new ToHostReconciler<Endpoints>({
      resource,
      virtualCache: virtualInformer.asInformer(),
      hostCache: hostInformer,
      virtualClient: hostClient,
      hostClient,
      state: { enabled: true, translator, patcher: passThrough },
    });
    const sync = new ToHostController<Endpoints>({
      kind: resource,
      reconciler,
      virtualInformer: virtualInformer.asInformer(),
      hostInformer,
      queue: new RateLimitingWorkQueue(),
      events: { warning: (_object, reason) => events.push(reason) },
      metrics: new SyncerMetrics(registry).controller('endpoints'),
      workers: 1,
    });
    const term = new AbortController();
    const running = sync.run(term.signal);
    await waitFor('handlers registered', () => virtualInformer.handlers.length === 1);
    for (const object of virtualInformer.list()) await virtualInformer.handlers[0]?.onAdd?.(object, false);
    await waitFor('the first write in flight', () => creates.length === 1);
    term.abort();
    fail(new Error('This operation was aborted'));
    await running;
    expect(creates).toEqual(['a-x-default-x-vc']);
    expect(events).toEqual([]);
    expect(await metricValue(registry, 'vcsync_sync_operations_total', { result: 'error' })).toBe(0);
  });
});
