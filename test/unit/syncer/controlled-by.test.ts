import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { defaultConfig } from '../../../src/config/index.js';
import { endpointsResource } from '../../../src/syncer/endpoints/endpoints-resource.js';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import type { ReconcileOutcome } from '../../../src/syncer/reconcile-outcome.js';
import { ToHostReconciler, type ClusterWriter } from '../../../src/syncer/to-host-reconciler.js';
import { LABEL_CONTROLLED_BY } from '../../../src/translate/keys.js';
import { createTranslator } from '../../../src/translate/translator.js';
import { cacheOf, passThrough } from '../../support/hand-filled-cache.js';

const translator = createTranslator({ vclusterName: 'vc', hostNamespace: 'host-ns', config: defaultConfig() });
const KIND = '/v1, Kind=Endpoints';

function virtualWeb(extra: { labels?: Record<string, string>; annotations?: Record<string, string>; subsets?: Endpoints['subsets'] } = {}): Endpoints {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'v-uid', resourceVersion: '1', ...(extra.labels ? { labels: extra.labels } : {}), ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    subsets: extra.subsets ?? [{ addresses: [{ ip: '10.0.0.1' }] }],
  };
}

/** The host copy vcsync wrote for `virtualWeb()`, with extra host-side labels and annotations. */
function hostCopy(extra: { labels?: Record<string, string>; annotations?: Record<string, string> } = {}): Endpoints {
  const translated = translator.hostMetadata({ virtual: virtualWeb().metadata ?? {}, kind: KIND });
  if (!translated.synced) throw new Error('not synced');
  const { metadata } = translated;
  return {
    metadata: {
      ...metadata,
      uid: 'h-uid',
      resourceVersion: '7',
      labels: { ...metadata.labels, ...extra.labels },
      annotations: { ...metadata.annotations, ...extra.annotations },
    },
    subsets: [{ addresses: [{ ip: '10.0.0.1' }] }],
  };
}

/** Runs one reconcile of default/web over the given caches; returns the outcome and the host writes made. */
async function reconcileWeb(virtual: Endpoints | undefined, host: Endpoints | undefined): Promise<{ outcome: ReconcileOutcome; writes: string[] }> {
  const writes: string[] = [];
  const client: ClusterWriter = {
    get: () => Promise.reject(new Error('unexpected get')),
    create: <T>(_path: string, body: T) => {
      writes.push('create');
      return Promise.resolve({ ...body, metadata: { ...(body as KubeObject).metadata, resourceVersion: '8' } } as T);
    },
    update: <T>(_path: string, body: T) => {
      writes.push('update');
      return Promise.resolve(body);
    },
    delete: <T>() => {
      writes.push('delete');
      return Promise.resolve({} as T);
    },
  };
  const controller = new ToHostReconciler<Endpoints>({
    resource: endpointsResource({ get: () => ({ spec: {} }) }),
    virtualCache: cacheOf(virtual === undefined ? [] : [virtual]),
    hostCache: cacheOf(host === undefined ? [] : [host]),
    virtualClient: client,
    hostClient: client,
    state: { enabled: true, translator, patcher: passThrough },
  });
  return { outcome: await controller.reconcile('default/web'), writes };
}

describe('objects that belong to a plugin or another syncer are left alone on both sides (vcluster excludeVirtual / excludePhysical)', () => {
  const plugin = { [LABEL_CONTROLLED_BY]: 'my-plugin' };
  const otherSyncer = { [LABEL_CONTROLLED_BY]: 'services' };
  const thisSyncer = { [LABEL_CONTROLLED_BY]: 'endpoints' };
  // virtual before, host before → outcome kind (and skip cause), host writes
  const table: { name: string; virtual: Endpoints | undefined; host: Endpoints | undefined; outcome: string; writes: string[] }[] = [
    { name: 'virtual labelled controlled-by, no host copy: not created', virtual: virtualWeb({ labels: plugin }), host: undefined, outcome: 'skipped:controlled_elsewhere', writes: [] },
    { name: 'virtual labelled controlled-by, stale host copy: neither updated nor deleted', virtual: virtualWeb({ labels: plugin, subsets: [] }), host: hostCopy(), outcome: 'skipped:controlled_elsewhere', writes: [] },
    { name: 'virtual annotated for another syncer: not created', virtual: virtualWeb({ annotations: otherSyncer }), host: undefined, outcome: 'skipped:controlled_elsewhere', writes: [] },
    { name: 'virtual annotated for this syncer: created', virtual: virtualWeb({ annotations: thisSyncer }), host: undefined, outcome: 'synced', writes: ['create'] },
    { name: 'virtual with an empty controlled-by label: created', virtual: virtualWeb({ labels: { [LABEL_CONTROLLED_BY]: '' } }), host: undefined, outcome: 'synced', writes: ['create'] },
    { name: 'host copy labelled controlled-by on the host, virtual changed: not repaired', virtual: virtualWeb({ subsets: [] }), host: hostCopy({ labels: plugin }), outcome: 'skipped:controlled_elsewhere', writes: [] },
    { name: 'host copy annotated for another syncer, virtual deleted: not deleted', virtual: undefined, host: hostCopy({ annotations: otherSyncer }), outcome: 'skipped:controlled_elsewhere', writes: [] },
    { name: 'host copy annotated for this syncer, virtual deleted: deleted', virtual: undefined, host: hostCopy({ annotations: thisSyncer }), outcome: 'deleted', writes: ['delete'] },
    { name: 'plain host copy, virtual deleted: deleted', virtual: undefined, host: hostCopy(), outcome: 'deleted', writes: ['delete'] },
  ];
  for (const row of table) {
    it(row.name, async () => {
      const { outcome, writes } = await reconcileWeb(row.virtual, row.host);
      expect(outcome.kind === 'skipped' ? `skipped:${outcome.cause}` : outcome.kind).toBe(row.outcome);
      if (outcome.kind === 'skipped') expect(outcome.reason).toContain(LABEL_CONTROLLED_BY);
      expect(writes).toEqual(row.writes);
    });
  }
});
