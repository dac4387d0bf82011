import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/apimachinery/index.js';
import type { Informer } from '../../../src/kube/informer.js';
import { defaultConfig } from '../../../src/config/index.js';
import { endpointsResource } from '../../../src/syncer/endpoints/endpoints-resource.js';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import type { ObjectPatcher } from '../../../src/syncer/object-patcher.js';
import { ToHostReconciler, type ClusterWriter } from '../../../src/syncer/to-host-reconciler.js';
import { createTranslator } from '../../../src/translate/translator.js';
import { cacheOf, passThrough } from '../../support/hand-filled-cache.js';

function alreadyExists(): ApiError {
  return new ApiError({ httpStatus: 409, status: { kind: 'Status', code: 409, reason: 'AlreadyExists', message: 'exists' }, verb: 'POST', path: '/x' });
}

describe('ToHostReconciler.reconcile', () => {
  const translator = createTranslator({ vclusterName: 'vc', hostNamespace: 'host-ns', config: defaultConfig() });
  const virtual: Endpoints = { metadata: { name: 'web', namespace: 'default', uid: 'v-uid', resourceVersion: '1' }, subsets: [] };
  const resource = endpointsResource({ get: () => ({ spec: {} }) });

  function controller(hostClient: ClusterWriter, enabled = true) {
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
    const client: ClusterWriter = {
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
    const untouched: ClusterWriter = {
      create: () => Promise.reject(new Error('unexpected create')),
      get: () => Promise.reject(new Error('unexpected get')),
      update: () => Promise.reject(new Error('unexpected update')),
      delete: () => Promise.reject(new Error('unexpected delete')),
    };
    expect(await controller(untouched, false).reconcile('default/web')).toEqual({ kind: 'skipped', cause: 'disabled', reason: 'sync.toHost.endpoints.enabled is false' });
  });

  it('fails terminally when the name is taken by an object this vcluster did not write', async () => {
    const client: ClusterWriter = {
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
    const hostClient: ClusterWriter = {
      get: () => Promise.reject(new Error('unexpected get')),
      create: <T>(_path: string, body: T) => { const stored = written(body as Endpoints); hostWrites.push(stored); return Promise.resolve(stored as T); },
      update: <T>(_path: string, body: T) => { const stored = written(body as Endpoints); hostWrites.push(stored); return Promise.resolve(stored as T); },
      delete: () => Promise.reject(new Error('unexpected delete')),
    };
    const virtualClient: ClusterWriter = {
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

  it('does not write the host from a virtual cache one write behind its own reverse sync (what flowed back stays on the host)', async () => {
    // Seen on the real kube-apiserver: a host label flowed back into the tenant's object, then a
    // reconcile that still read the tenant's object as it was before that write took the label off
    // the host again, and the next round took that removal for a host change and flowed it back.
    const { virtualCache, hostWrites, virtualWrites, newController, cacheHost } = handFilledBed();
    const sync = newController();
    virtualCache.set('default/web', { ...virtual, metadata: { ...virtual.metadata, labels: { app: 'web' } } });
    expect(await sync.reconcile('default/web')).toEqual({ kind: 'synced', action: 'created' });
    const created = hostWrites[0] as Endpoints;
    // Someone labels the host copy.
    cacheHost({ ...created, metadata: { ...created.metadata, resourceVersion: '50', labels: { ...created.metadata?.labels, team: 'blue' } } });
    expect(await sync.reconcile('default/web')).toEqual({ kind: 'synced', action: 'updated' });
    expect(virtualWrites.map((v) => v.metadata?.labels)).toEqual([{ app: 'web', team: 'blue' }]);
    expect(hostWrites[1]?.metadata?.annotations?.['vcluster.loft.sh/managed-labels']).toBe('app\nteam');
    cacheHost(hostWrites[1] as Endpoints);

    // Reconciled again before the virtual cache has seen the reverse write: it still shows the object without the label.
    expect(await sync.reconcile('default/web')).toMatchObject({ kind: 'requeue', reason: 'the virtual cache has not seen our last write yet' });
    expect(hostWrites).toHaveLength(2);
    expect(virtualWrites).toHaveLength(1);

    // Once it has, both sides are converged.
    virtualCache.set('default/web', virtualWrites[0] as Endpoints);
    expect(await sync.reconcile('default/web')).toEqual({ kind: 'unchanged' });
    expect(hostWrites).toHaveLength(2);
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
    const hostClient: ClusterWriter = {
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

});
