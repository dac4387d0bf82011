import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import {
  createEndpoints,
  createService,
  endpointsPath,
  getHostEndpoints,
  hostName,
  servicePath,
} from '../../support/endpoints-fixtures.js';
import { captureLogger, type CapturedLog } from '../../support/log-capture.js';
import { metricValue, runnableBackends, useSyncBackends, type SyncClusters } from '../../support/sync-harness.js';
import { startResourceSyncer, type RunningResourceSyncer } from '../../support/resource-syncer-harness.js';
import { endpointsFixture } from '../../support/synced-resource-fixtures.js';
import { waitFor } from '../../support/wait-for.js';

/** vcluster's rewritten label key: `safeConcatName("vcluster.loft.sh/label", vcluster, "x", first 10 hex of sha256(key))`. */
function rewrittenKey(key: string, vcluster = 'vc1'): string {
  return `vcluster.loft.sh/label-${vcluster}-x-${createHash('sha256').update(key).digest('hex').slice(0, 10)}`;
}

// The rules every resource shares (its Service, plugins, labels both ways) are in to-host-rules.test.ts.
describe.each(runnableBackends('the Endpoints sync rules on a real kube-apiserver'))('Endpoints-only sync rules ($virtual virtual, $host host, over HTTP)', (backends) => {
  const startClusters = useSyncBackends(backends);
  let clusters: SyncClusters;
  let log: CapturedLog;
  let syncer: RunningResourceSyncer | undefined;

  beforeEach(async () => {
    clusters = await startClusters();
    log = captureLogger();
  });

  afterEach(async () => {
    await syncer?.stop();
    syncer = undefined;
    await clusters.close();
  });

  const start = async (configYaml?: string): Promise<void> => {
    syncer = await startResourceSyncer(clusters, endpointsFixture, { logger: log.logger, ...(configYaml !== undefined ? { configYaml } : {}) });
  };
  /** Reconciles so far that skipped (any key), from the syncer's metrics. */
  const skips = (): Promise<number> => metricValue(syncer!.registry, 'vcsync_sync_operations_total', { controller: 'endpoints', result: 'skipped' });
  /**
   * Waits until the running syncer has skipped at least `atLeast` reconciles and a reconcile of
   * `key` (on the caches it now holds) skips it for `reason`: state, not log text.
   */
  const skipped = (key: string, reason: string, atLeast = 1) =>
    waitFor(`${key} skipped (${reason}), ${atLeast} skips counted`, async () => {
      if ((await skips()) < atLeast) return false;
      const outcome = await syncer!.syncer.reconciler.reconcile(key);
      return outcome.kind === 'skipped' && outcome.reason.includes(reason);
    });
  const hostCopy = (name: string) => getHostEndpoints(clusters.hostClient, clusters.hostNamespace, name);

  // Devcluster only: a real kube-apiserver on loopback has no default/kubernetes Endpoints (it
  // advertises 127.0.0.1, which Endpoints validation refuses).
  it.skipIf(backends.virtual === 'real')('never syncs default/kubernetes, even when it changes', async () => {
    const { virtualClient, hostClient, hostNamespace } = clusters;
    // The devcluster bootstraps a selector-less default/kubernetes Service and its Endpoints.
    expect(await virtualClient.get(servicePath('default', 'kubernetes'))).toBeDefined();
    await start();
    // default/kubernetes is the devcluster's only Endpoints: every skip counted is one of it.
    await skipped('default/kubernetes', 'never synced');
    const before = await skips();
    await virtualClient.patch(endpointsPath('default', 'kubernetes'), 'merge', { metadata: { labels: { touched: 'yes' } } });
    await skipped('default/kubernetes', 'never synced', before + 1);
    const host = await hostClient.list<Endpoints>(`/api/v1/namespaces/${hostNamespace}/endpoints`);
    expect(host.items.map((e) => e.metadata?.name)).toEqual([]);
  });

  it('copies subsets with Pod targetRefs translated (uid and resourceVersion cleared) and other refs untouched', async () => {
    const { virtualClient, hostNamespace } = clusters;
    await start();
    await createService(virtualClient, 'db');
    await createEndpoints(virtualClient, 'db', {
      subsets: [
        {
          addresses: [
            { ip: '10.1.0.1', hostname: 'db-0', nodeName: 'node-a', targetRef: { kind: 'Pod', name: 'db-0', namespace: 'default', uid: 'u-1', resourceVersion: '17' } },
            { ip: '10.1.0.2', targetRef: { kind: 'Node', name: 'node-b', uid: 'n-2', resourceVersion: '3' } },
          ],
          notReadyAddresses: [{ ip: '10.1.0.3', targetRef: { kind: 'Pod', name: 'db-1', namespace: 'other', uid: 'u-3', resourceVersion: '18' } }],
          ports: [{ name: 'sql', port: 5432, protocol: 'TCP', appProtocol: 'postgresql' }],
        },
        { addresses: [{ ip: '10.1.1.1' }], ports: [{ name: 'metrics', port: 9187, protocol: 'TCP' }] },
      ],
    });
    const host = await waitFor('host copy', () => hostCopy('db'));
    expect(host.subsets).toEqual([
      {
        addresses: [
          { ip: '10.1.0.1', hostname: 'db-0', nodeName: 'node-a', targetRef: { kind: 'Pod', name: hostName('db-0'), namespace: hostNamespace } },
          { ip: '10.1.0.2', targetRef: { kind: 'Node', name: 'node-b', uid: 'n-2', resourceVersion: '3' } },
        ],
        notReadyAddresses: [{ ip: '10.1.0.3', targetRef: { kind: 'Pod', name: hostName('db-1', 'other'), namespace: hostNamespace } }],
        ports: [{ name: 'sql', port: 5432, protocol: 'TCP', appProtocol: 'postgresql' }],
      },
      { addresses: [{ ip: '10.1.1.1' }], ports: [{ name: 'metrics', port: 9187, protocol: 'TCP' }] },
    ]);
  });

  it('writes the bookkeeping annotations, copies annotations except the leader record', async () => {
    const { virtualClient, hostNamespace } = clusters;
    await start();
    await createService(virtualClient, 'ctl');
    const virtual = await createEndpoints(virtualClient, 'ctl', {
      annotations: { 'control-plane.alpha.kubernetes.io/leader': '{"holderIdentity":"virtual-cp"}', 'example.com/owner': 'team-a' },
    });
    const host = await waitFor('host copy', () => hostCopy('ctl'));
    expect(host.metadata?.annotations).toEqual({
      'example.com/owner': 'team-a',
      'vcluster.loft.sh/object-name': 'ctl',
      'vcluster.loft.sh/object-namespace': 'default',
      'vcluster.loft.sh/object-uid': virtual.metadata?.uid,
      'vcluster.loft.sh/object-kind': '/v1, Kind=Endpoints',
      'vcluster.loft.sh/object-host-name': hostName('ctl'),
      'vcluster.loft.sh/object-host-namespace': hostNamespace,
      'vcluster.loft.sh/managed-annotations': 'example.com/owner',
    });
    // The leader record stays on the virtual object, untouched by the syncer.
    const after = await virtualClient.get<Endpoints>(endpointsPath('default', 'ctl'));
    expect(after.metadata?.annotations?.['control-plane.alpha.kubernetes.io/leader']).toBe('{"holderIdentity":"virtual-cp"}');
  });

  it('rewrites the four colliding label keys, drops labels already in rewritten form, and keeps its own managed-by and namespace labels', async () => {
    const { virtualClient } = clusters;
    await start();
    await createService(virtualClient, 'rel');
    await createEndpoints(virtualClient, 'rel', {
      labels: {
        app: 'rel',
        release: 'r1',
        'vcluster.loft.sh/namespace': 'spoofed-ns',
        'vcluster.loft.sh/managed-by': 'someone-else',
        // Empty: a non-empty value would make the object a plugin's (left alone, tested below).
        'vcluster.loft.sh/controlled-by': '',
        // Already the rewritten form of release: copied, it would overwrite the tenant's release.
        [rewrittenKey('release')]: 'spoofed-release',
      },
    });
    const host = await waitFor('host copy', () => hostCopy('rel'));
    expect(host.metadata?.labels).toEqual({
      app: 'rel',
      [rewrittenKey('release')]: 'r1',
      [rewrittenKey('vcluster.loft.sh/namespace')]: 'spoofed-ns',
      [rewrittenKey('vcluster.loft.sh/managed-by')]: 'someone-else',
      [rewrittenKey('vcluster.loft.sh/controlled-by')]: '',
      'vcluster.loft.sh/managed-by': 'vc1',
      'vcluster.loft.sh/namespace': 'default',
      // EndpointSlices are synced too (on by default): the host mirroring controller stays off.
      'endpointslice.kubernetes.io/skip-mirror': 'true',
    });
    expect(host.metadata?.annotations?.['vcluster.loft.sh/managed-labels']).toBe(
      ['app', 'release', 'vcluster.loft.sh/controlled-by', 'vcluster.loft.sh/managed-by', 'vcluster.loft.sh/namespace'].join('\n'),
    );
    // vcluster's own value for this key and name pins the key formula itself.
    expect(rewrittenKey('release', 'suffix')).toBe('vcluster.loft.sh/label-suffix-x-a4d451ec23');
  });

  it('does not copy forward-patched values back into the virtual object when the host changes', async () => {
    const { virtualClient, hostClient, hostNamespace } = clusters;
    await start(
      [
        'sync:',
        '  toHost:',
        '    endpoints:',
        '      enabled: true',
        '      patches:',
        '        - path: metadata.annotations["x"]',
        '          expression: \'"patched-" + value\'',
        '        - path: metadata.labels[*]',
        '          expression: \'typeof value === "string" ? value.toLowerCase() : value\'',
        '',
      ].join('\n'),
    );
    await createService(virtualClient, 'pat');
    await createEndpoints(virtualClient, 'pat', { labels: { app: 'Web' }, annotations: { x: 'a' } });
    const host = await waitFor('patched host copy', async () => {
      const h = await hostCopy('pat');
      return h?.metadata?.annotations?.['x'] === 'patched-a' ? h : undefined;
    });
    expect(host.metadata?.labels?.['app']).toBe('web');

    // A host-only change flows back; the patched values on the host are not the tenant's.
    await hostClient.patch(endpointsPath(hostNamespace, hostName('pat')), 'merge', { metadata: { labels: { team: 'blue' } } });
    const virtual = await waitFor('host label on the virtual object', async () => {
      const v = await virtualClient.get<Endpoints>(endpointsPath('default', 'pat'));
      return v.metadata?.labels?.['team'] === 'blue' ? v : undefined;
    });
    expect(virtual.metadata?.labels).toEqual({ app: 'Web', team: 'blue' });
    expect(virtual.metadata?.annotations?.['x']).toBe('a');
    const settled = await waitFor('host copy after the round trip', async () => {
      const h = await hostCopy('pat');
      return h?.metadata?.annotations?.['vcluster.loft.sh/managed-labels'] === 'app\nteam' ? h : undefined;
    });
    expect(settled.metadata?.annotations?.['x']).toBe('patched-a');
  });

  it('converges on what the server stores: once the copies are written, a reconcile answers unchanged and writes nothing', async () => {
    const { virtualClient } = clusters;
    await start();
    const operations = (result: string): Promise<number> =>
      metricValue(syncer!.registry, 'vcsync_sync_operations_total', { controller: 'endpoints', result });
    // Shapes a real API server normalises: no labels or annotations, a port without protocol (defaulted
    // to TCP), an address list left empty (dropped), no subsets at all.
    const shapes: Record<string, Partial<Endpoints>> = {
      plain: { subsets: [{ addresses: [{ ip: '10.2.0.1' }], ports: [{ port: 80 }] }] },
      sparse: { subsets: [{ addresses: [{ ip: '10.2.0.2' }], notReadyAddresses: [], ports: [{ name: 'http', port: 81 }] }] },
      empty: { subsets: [] },
    };
    for (const [name, shape] of Object.entries(shapes)) {
      await createService(virtualClient, name);
      await virtualClient.create(`/api/v1/namespaces/default/endpoints`, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name }, ...shape });
    }
    for (const name of Object.keys(shapes)) await waitFor(`host copy of ${name}`, () => hostCopy(name));
    await waitFor('every copy created once', async () => (await operations('created')) === Object.keys(shapes).length);
    const updatedBefore = await operations('updated');
    const unchangedBefore = await operations('unchanged');
    // A Service change wakes its Endpoints: each reconcile must now find the copy as desired.
    for (const name of Object.keys(shapes)) {
      await virtualClient.patch(servicePath('default', name), 'merge', { metadata: { labels: { touched: 'yes' } } });
    }
    await waitFor('a reconcile of every woken Endpoints', async () => (await operations('unchanged')) >= unchangedBefore + Object.keys(shapes).length);
    expect(await operations('updated')).toBe(updatedBefore);
    expect(updatedBefore).toBe(0);
  });
});
