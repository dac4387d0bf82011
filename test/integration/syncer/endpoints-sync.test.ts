import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { parseConfig } from '../../../src/config/index.js';
import { KubeMetrics } from '../../../src/kube/metrics.js';
import { PatchSandbox } from '../../../src/patches/index.js';
import { createEndpointsSyncer, type EndpointsSyncer } from '../../../src/syncer/endpoints/endpoints-syncer.js';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import { SyncerMetrics } from '../../../src/syncer/metrics.js';
import { buildEndpointsSyncState } from '../../../src/syncer/sync-state.js';
import { getOrUndefined, startTwoClusters, type TwoClusters } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';

const VC = 'vc1';

describe('Endpoints syncer against two devclusters', () => {
  let clusters: TwoClusters;
  let sandbox: PatchSandbox;
  let stop: AbortController;
  let running: Promise<void>;
  let syncer: EndpointsSyncer;
  let registry: Registry;

  beforeEach(async () => {
    clusters = await startTwoClusters();
    sandbox = new PatchSandbox();
    const parsed = parseConfig('sync:\n  toHost:\n    endpoints:\n      enabled: true\n', 'vcluster.yaml');
    if (!parsed.ok) throw new Error('config');
    const built = buildEndpointsSyncState({ vclusterName: VC, hostNamespace: clusters.hostNamespace, config: parsed.config, sandbox });
    if (!built.ok) throw new Error('state');
    registry = new Registry();
    syncer = createEndpointsSyncer({
      virtualClient: clusters.virtualClient,
      hostClient: clusters.hostClient,
      vclusterName: VC,
      hostWatchNamespace: clusters.hostNamespace,
      state: built.state,
      events: { warning: () => undefined },
      kubeMetrics: new KubeMetrics(registry),
      controllerMetrics: new SyncerMetrics(registry).controller('endpoints'),
      logger: (await import('../../../src/observe/logger.js')).silentLogger(),
    });
    stop = new AbortController();
    running = syncer.run(stop.signal);
  });

  afterEach(async () => {
    stop.abort();
    await running;
    sandbox.dispose();
    await clusters.close();
  });

  it('copies Endpoints of a selector-less Service to the host namespace, translated', async () => {
    const { virtualClient, hostClient, hostNamespace } = clusters;
    await virtualClient.create('/api/v1/namespaces/default/services', {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] },
    });
    await virtualClient.create('/api/v1/namespaces/default/endpoints', {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', labels: { app: 'web' } },
      subsets: [{ addresses: [{ ip: '10.0.0.1', targetRef: { kind: 'Pod', name: 'web-1', namespace: 'default', uid: 'abc' } }], ports: [{ port: 8080 }] }],
    });
    const host = await waitFor('host endpoints', () =>
      getOrUndefined<Endpoints>(hostClient, `/api/v1/namespaces/${hostNamespace}/endpoints/web-x-default-x-vc1`));
    expect(host.metadata?.labels).toMatchObject({ app: 'web', 'vcluster.loft.sh/managed-by': VC, 'vcluster.loft.sh/namespace': 'default' });
    expect(host.subsets?.[0]?.addresses?.[0]).toEqual({ ip: '10.0.0.1', targetRef: { kind: 'Pod', name: 'web-1-x-default-x-vc1', namespace: hostNamespace } });
    await waitFor('managed gauge at 1', async () =>
      (await registry.getSingleMetricAsString('vcsync_managed_objects')).includes('vcsync_managed_objects{controller="endpoints"} 1'));

    await virtualClient.delete('/api/v1/namespaces/default/endpoints/web');
    await waitFor('host endpoints deleted', async () =>
      (await getOrUndefined(hostClient, `/api/v1/namespaces/${hostNamespace}/endpoints/web-x-default-x-vc1`)) === undefined);
    expect(syncer.hasSynced()).toBe(true);
  });
});
