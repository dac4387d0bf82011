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
import { metricValue, runnableBackends, startEndpointsSyncer, useSyncBackends, type RunningSyncer, type SyncClusters } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';

/** REFERENCE.md 2: `safeConcatName("vcluster.loft.sh/label", vcluster, "x", first 10 hex of sha256(key))`. */
function rewrittenKey(key: string, vcluster = 'vc1'): string {
  return `vcluster.loft.sh/label-${vcluster}-x-${createHash('sha256').update(key).digest('hex').slice(0, 10)}`;
}

describe.each(runnableBackends('the Endpoints sync rules on a real kube-apiserver'))('Endpoints sync rules ($virtual virtual, $host host, over HTTP)', (backends) => {
  const startClusters = useSyncBackends(backends);
  let clusters: SyncClusters;
  let log: CapturedLog;
  let syncer: RunningSyncer | undefined;

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
    syncer = await startEndpointsSyncer(clusters, { logger: log.logger, ...(configYaml !== undefined ? { configYaml } : {}) });
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

  it('does not sync Endpoints without a Service, and syncs them once the Service is created', async () => {
    const { virtualClient } = clusters;
    await start();
    await createEndpoints(virtualClient, 'lonely');
    await skipped('default/lonely', 'no virtual Service');
    expect(await hostCopy('lonely')).toBeUndefined();

    await createService(virtualClient, 'lonely');
    const host = await waitFor('host copy after the Service appeared', () => hostCopy('lonely'));
    expect(host.subsets).toEqual([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 8080, protocol: 'TCP' }] }]);
  });

  it('does not sync Endpoints of a Service with a selector', async () => {
    const { virtualClient } = clusters;
    await start();
    await createService(virtualClient, 'selected', { selector: { app: 'selected' } });
    await createEndpoints(virtualClient, 'selected');
    await skipped('default/selected', 'has a selector');
    expect(await hostCopy('selected')).toBeUndefined();
  });

  it('deletes the host copy when the Service gains a selector, and syncs again when it loses it', async () => {
    const { virtualClient } = clusters;
    await start();
    await createService(virtualClient, 'web');
    await createEndpoints(virtualClient, 'web');
    const first = await waitFor('host copy', () => hostCopy('web'));

    await virtualClient.patch(servicePath('default', 'web'), 'merge', { spec: { selector: { app: 'web' } } });
    await waitFor('host copy deleted after the selector was added', async () => (await hostCopy('web')) === undefined);
    // The virtual Endpoints are the tenant's: only the host copy goes.
    expect(await virtualClient.get(endpointsPath('default', 'web'))).toBeDefined();

    await virtualClient.patch(servicePath('default', 'web'), 'merge', { spec: { selector: null } });
    const again = await waitFor('host copy after the selector was removed', () => hostCopy('web'));
    expect(again.metadata?.uid).not.toBe(first.metadata?.uid);
    expect(again.subsets).toEqual(first.subsets);
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
    // REFERENCE.md's worked example pins the key formula itself.
    expect(rewrittenKey('release', 'suffix')).toBe('vcluster.loft.sh/label-suffix-x-a4d451ec23');
  });

  it('leaves a plugin\'s objects alone on both sides: a controlled-by virtual object is not copied, a host copy taken over is neither repaired nor deleted', async () => {
    const { virtualClient, hostClient, hostNamespace } = clusters;
    await start();
    await createService(virtualClient, 'plugged');
    await createEndpoints(virtualClient, 'plugged', { labels: { 'vcluster.loft.sh/controlled-by': 'my-plugin' } });
    await skipped('default/plugged', 'vcluster.loft.sh/controlled-by=my-plugin');
    expect(await hostCopy('plugged')).toBeUndefined();

    await createService(virtualClient, 'taken');
    await createEndpoints(virtualClient, 'taken');
    await waitFor('host copy of taken', () => hostCopy('taken'));
    // A plugin takes the host copy over (its own syncer's name in the annotation).
    await hostClient.patch(endpointsPath(hostNamespace, hostName('taken')), 'merge', { metadata: { annotations: { 'vcluster.loft.sh/controlled-by': 'plugin-syncer' } } });
    await waitFor('the host cache sees the takeover', async () => {
      const outcome = await syncer!.syncer.reconciler.reconcile('default/taken');
      return outcome.kind === 'skipped' && outcome.cause === 'controlled_elsewhere';
    });
    const before = await skips();
    await virtualClient.patch(endpointsPath('default', 'taken'), 'merge', { subsets: [{ addresses: [{ ip: '10.9.9.9' }], ports: [{ port: 8080, protocol: 'TCP' }] }] });
    await skipped('default/taken', 'plugin-syncer', before + 1);
    expect((await hostCopy('taken'))?.subsets).toEqual([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 8080, protocol: 'TCP' }] }]);

    const beforeDelete = await skips();
    await virtualClient.delete(endpointsPath('default', 'taken'));
    await skipped('default/taken', 'plugin-syncer', beforeDelete + 1);
    expect(await hostCopy('taken')).toBeDefined();
  });

  it('syncs labels both ways: virtual removals and changes win on the host, a host-side addition flows back', async () => {
    const { virtualClient, hostClient, hostNamespace } = clusters;
    await start();
    await createService(virtualClient, 'two');
    await createEndpoints(virtualClient, 'two', { labels: { app: 'two', tier: 'a' } });
    await waitFor('host copy with both labels', async () => (await hostCopy('two'))?.metadata?.labels?.['tier'] === 'a');

    await virtualClient.patch(endpointsPath('default', 'two'), 'merge', { metadata: { labels: { tier: null } } });
    const withoutTier = await waitFor('tier removed on the host', async () => {
      const host = await hostCopy('two');
      return host !== undefined && host.metadata?.labels?.['tier'] === undefined ? host : undefined;
    });
    expect(withoutTier.metadata?.labels?.['app']).toBe('two');
    expect(withoutTier.metadata?.annotations?.['vcluster.loft.sh/managed-labels']).toBe('app');

    await hostClient.patch(endpointsPath(hostNamespace, hostName('two')), 'merge', { metadata: { labels: { team: 'blue' } } });
    const virtual = await waitFor('the host-side label on the virtual object', async () => {
      const v = await virtualClient.get<Endpoints>(endpointsPath('default', 'two'));
      return v.metadata?.labels?.['team'] === 'blue' ? v : undefined;
    });
    expect(virtual.metadata?.labels).toEqual({ app: 'two', team: 'blue' });

    await virtualClient.patch(endpointsPath('default', 'two'), 'merge', { metadata: { labels: { app: 'two-v2' } } });
    const host = await waitFor('the virtual change on the host', async () => {
      const h = await hostCopy('two');
      return h?.metadata?.labels?.['app'] === 'two-v2' ? h : undefined;
    });
    expect(host.metadata?.labels).toMatchObject({ app: 'two-v2', team: 'blue', 'vcluster.loft.sh/managed-by': 'vc1' });
    const finalVirtual = await virtualClient.get<Endpoints>(endpointsPath('default', 'two'));
    expect(finalVirtual.metadata?.labels).toEqual({ app: 'two-v2', team: 'blue' });
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
