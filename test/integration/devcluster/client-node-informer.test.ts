import { CoreV1Api, KubeConfig, Watch, type V1Endpoints } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints, useDevclusterFixture } from '../../support/devcluster-fixture.js';
import { waitFor } from '../../support/wait-for.js';

const fx = useDevclusterFixture({ watchWindow: 10 });
let kc: KubeConfig;
const controllers: AbortController[] = [];
beforeAll(async () => {
  kc = new KubeConfig();
  kc.loadFromString(fx.cluster.kubeConfigYaml());
});
afterAll(async () => {
  // Runs before the fixture's own afterAll (registered earlier): the watches end before the server closes.
  for (const controller of controllers) controller.abort();
});

const PATH = '/api/v1/namespaces/default/endpoints';

describe('@kubernetes/client-node against the devcluster', () => {
  it('lists and watches: sees create, update and delete in order', async () => {
    const api = kc.makeApiClient(CoreV1Api);
    const list = await api.listNamespacedEndpoints({ namespace: 'default' });
    const seen: [string, string][] = [];
    let finished: unknown = 'open';
    const controller = await new Watch(kc).watch(
      PATH,
      { resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true },
      (phase, object: V1Endpoints) => seen.push([phase, object.metadata?.name ?? '']),
      (error) => {
        finished = error;
      },
    );
    controllers.push(controller);
    const body: V1Endpoints = endpoints('informed', ['10.0.0.1']) as V1Endpoints;
    const created = await api.createNamespacedEndpoints({ namespace: 'default', body });
    expect(created.metadata?.uid).toBeDefined();
    await api.replaceNamespacedEndpoints({ namespace: 'default', name: 'informed', body: { ...created, metadata: { ...created.metadata, labels: { v: '2' } } } });
    await api.deleteNamespacedEndpoints({ namespace: 'default', name: 'informed' });
    await waitFor('three events', () => seen.length >= 3);
    expect(seen).toEqual([
      ['ADDED', 'informed'],
      ['MODIFIED', 'informed'],
      ['DELETED', 'informed'],
    ]);
    expect(finished).toBe('open');
  });

  it('reports HTTP errors as Status-carrying ApiExceptions', async () => {
    const api = kc.makeApiClient(CoreV1Api);
    await expect(api.readNamespacedEndpoints({ namespace: 'default', name: 'absent' })).rejects.toMatchObject({ code: 404 });
  });

  it('a watch resumed from a too-old resourceVersion gets one ERROR event 410 Expired, as from the real server', async () => {
    const api = kc.makeApiClient(CoreV1Api);
    const first = await api.createNamespacedEndpoints({ namespace: 'default', body: endpoints('churn', ['10.0.0.1']) as V1Endpoints });
    for (let index = 0; index < 15; index += 1) {
      await api.patchNamespacedEndpoints({ namespace: 'default', name: 'churn', body: [{ op: 'add', path: '/metadata/labels', value: { n: String(index) } }] });
    }
    let done = false;
    const events: [string, unknown][] = [];
    const controller = await new Watch(kc).watch(
      PATH,
      { resourceVersion: first.metadata?.resourceVersion },
      (phase, object: { code?: unknown; reason?: unknown }) => events.push([phase, `${String(object.code)} ${String(object.reason)}`]),
      () => {
        done = true;
      },
    );
    controllers.push(controller);
    await waitFor('the watch to end', () => done);
    expect(events).toEqual([['ERROR', '410 Expired']]);
  });

  it('a watch ended by the server (timeoutSeconds) completes cleanly', async () => {
    let result: unknown = 'open';
    const controller = await new Watch(kc).watch(PATH, { timeoutSeconds: 1 }, () => undefined, (error) => {
      result = error;
    });
    controllers.push(controller);
    await waitFor('the watch to end', () => result !== 'open');
    expect(result).toBeNull();
  });
});
