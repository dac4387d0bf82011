import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevCluster, type DevCluster } from '../../../src/devcluster/index.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import type { RestClient } from '../../../src/kube/rest-client.js';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import { LABEL_SKIP_MIRROR } from '../../../src/syncer/endpoints/translate.js';
import { singleNamespaceHostName } from '../../../src/translate/host-names.js';
import { realClusterMissing } from '../../support/kube-assets.js';
import { startRealControlPlane, type RealControlPlane } from '../../support/real-control-plane.js';
import { createSlice, readyEndpoint } from '../../support/endpointslices-fixtures.js';
import { clientFor, getOrUndefined, type SyncClusters } from '../../support/sync-harness.js';
import { startResourceSyncer, type RunningResourceSyncer } from '../../support/resource-syncer-harness.js';
import { endpointSlicesFixture, endpointsFixture } from '../../support/synced-resource-fixtures.js';
import { waitFor } from '../../support/wait-for.js';

// What the host's own kube-controller-manager does next to vcsync's Endpoints copies (ADR 0042):
// while EndpointSlices are synced, the copies carry skip-mirror and the host mirroring controller
// keeps no slice of its own for the Service; while they are not, it mirrors the copy into the one
// slice. A reload switches between the two on the copies that exist. With both syncs on, the host
// has the virtual slice once, written by vcsync alone. The tests are one flow, in order: each
// starts from the state the previous one left (one control plane per file).

const missing = realClusterMissing('the host endpoint writers test');

const VC = 'vc1';
const HOST_NAMESPACE = 'vcluster-vc1';
const HOST_SERVICE = singleNamespaceHostName('web', 'default', VC);
const MIRRORING = 'endpointslicemirroring-controller.k8s.io';
const SLICES = `/apis/discovery.k8s.io/v1/namespaces/${HOST_NAMESPACE}/endpointslices`;
const HOST_ENDPOINTS = `/api/v1/namespaces/${HOST_NAMESPACE}/endpoints/${HOST_SERVICE}`;
/** How long the host must stay unwritten once converged: the measured fights write every second. */
const QUIET_MS = 5_000;

const config = (slices: boolean): string =>
  `sync:\n  toHost:\n    endpoints:\n      enabled: true\n    endpointSlices:\n      enabled: ${String(slices)}\n`;

interface Slice extends KubeObject {
  endpoints?: { addresses: string[] }[];
}

/** The addresses of `slices`, sorted: each address once means one set. */
const addressesOf = (slices: readonly Slice[]): string[] => slices.flatMap((slice) => slice.endpoints?.flatMap((e) => e.addresses) ?? []).sort();

describe.skipIf(missing)('host Endpoints copies next to the real kube-controller-manager (mirroring controller on)', () => {
  let plane: RealControlPlane;
  let virtual: DevCluster;
  let virtualClient: RestClient;
  let host: RestClient;
  let syncer: RunningResourceSyncer | undefined;
  let slicesSyncer: RunningResourceSyncer | undefined;

  beforeAll(async () => {
    [plane, virtual] = await Promise.all([startRealControlPlane({ controllers: true }), startDevCluster()]);
    virtualClient = clientFor(virtual, 'virtual');
    host = plane.adminClient;
    await host.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: HOST_NAMESPACE } });
    // The host Service as vcluster syncs a selector-less virtual one: what the mirroring controller keys on.
    await host.create(`/api/v1/namespaces/${HOST_NAMESPACE}/services`, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: HOST_SERVICE, labels: { 'vcluster.loft.sh/managed-by': VC } },
      spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
    });
    await virtualClient.create('/api/v1/namespaces/default/services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
    });
    await virtualClient.create('/api/v1/namespaces/default/endpoints', {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'web', labels: { app: 'web' } },
      subsets: [{ addresses: [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }],
    });
  }, 240_000);

  afterAll(async () => {
    await slicesSyncer?.stop();
    await syncer?.stop();
    virtualClient?.close();
    await Promise.all([plane?.close(), virtual?.close()]);
  });

  const clusters = (): SyncClusters => ({
    backends: { virtual: 'devcluster', host: 'real' },
    virtualClient,
    hostClient: host,
    hostNamespace: HOST_NAMESPACE,
    clientAs: () => {
      throw new Error('not used by this test');
    },
    kubeconfigYaml: (side) => (side === 'host' ? plane.kubeconfigYaml : virtual.kubeConfigYaml()),
    close: async () => undefined,
  });

  /** The slices of the host Service the host mirroring controller keeps. */
  const mirroredSlices = async (): Promise<Slice[]> =>
    (await host.list<Slice>(SLICES, { labelSelector: `kubernetes.io/service-name=${HOST_SERVICE},endpointslice.kubernetes.io/managed-by=${MIRRORING}` })).items;

  const hostSkipMirror = async (): Promise<string | undefined> =>
    (await getOrUndefined<Endpoints>(host, HOST_ENDPOINTS))?.metadata?.labels?.[LABEL_SKIP_MIRROR];

  /** Watch events on host Endpoints and EndpointSlices of the host namespace during `ms`. */
  async function hostWritesDuring(ms: number): Promise<string[]> {
    const seen: string[] = [];
    const stop = new AbortController();
    const watch = async (path: string): Promise<void> => {
      const { metadata } = await host.list(path);
      const stream = await host.watch(path, { resourceVersion: metadata?.resourceVersion ?? '', signal: stop.signal, allowWatchBookmarks: false });
      try {
        for await (const event of stream) seen.push(`${event.type} ${path} ${JSON.stringify(event.object).slice(0, 200)}`);
      } catch (error) {
        if (!stop.signal.aborted) throw error;
      }
    };
    const watches = [watch(`/api/v1/namespaces/${HOST_NAMESPACE}/endpoints`), watch(SLICES)];
    // The window is the measurement (writes per period), not a wait for something to happen.
    await new Promise((resolve) => setTimeout(resolve, ms));
    stop.abort();
    await Promise.all(watches);
    return seen;
  }

  it('slices not synced: no skip-mirror, so the host mirroring controller makes the one slice', async () => {
    syncer = await startResourceSyncer(clusters(), endpointsFixture, { vclusterName: VC, configYaml: config(false) });
    await waitFor('the host Endpoints copy', () => getOrUndefined<Endpoints>(host, HOST_ENDPOINTS));
    expect(await hostSkipMirror()).toBeUndefined();
    const [slice] = await waitFor('the mirrored host slice', async () => ((await mirroredSlices()).length === 1 ? mirroredSlices() : undefined), { timeoutMs: 60_000 });
    expect(slice?.endpoints?.flatMap((e) => e.addresses).sort()).toEqual(['10.1.0.1', '10.1.0.2']);
  }, 120_000);

  it('a reload that syncs slices adds skip-mirror to the copy, the host mirroring controller removes its slice, and the host stays unwritten', async () => {
    syncer?.reload(config(true));
    await waitFor('skip-mirror on the host Endpoints copy', async () => (await hostSkipMirror()) === 'true');
    await waitFor('the mirrored host slice to be deleted', async () => (await mirroredSlices()).length === 0, { timeoutMs: 60_000 });
    expect(await hostWritesDuring(QUIET_MS)).toEqual([]);
    const virtualEndpoints = await virtualClient.get<Endpoints>('/api/v1/namespaces/default/endpoints/web');
    expect(virtualEndpoints.metadata?.labels).toEqual({ app: 'web' });
  }, 120_000);

  it('a host-side edit of skip-mirror is repaired and never reaches the virtual Endpoints', async () => {
    const current = await host.get<Endpoints>(HOST_ENDPOINTS);
    await host.update(HOST_ENDPOINTS, { ...current, metadata: { ...current.metadata, labels: { ...current.metadata?.labels, [LABEL_SKIP_MIRROR]: 'false' } } });
    await waitFor('skip-mirror repaired on the host copy', async () => (await hostSkipMirror()) === 'true');
    await waitFor('no mirrored slice left', async () => (await mirroredSlices()).length === 0, { timeoutMs: 60_000 });
    const virtualEndpoints = await virtualClient.get<Endpoints>('/api/v1/namespaces/default/endpoints/web');
    expect(virtualEndpoints.metadata?.labels).toEqual({ app: 'web' });
  }, 120_000);

  it('a reload that stops syncing slices removes skip-mirror, and the host mirroring controller makes its slice again', async () => {
    syncer?.reload(config(false));
    await waitFor('skip-mirror gone from the host Endpoints copy', async () => (await hostSkipMirror()) === undefined);
    await waitFor('the mirrored host slice back', async () => (await mirroredSlices()).length === 1, { timeoutMs: 60_000 });
  }, 120_000);

  it('both syncs on: the host holds the virtual slice once, written by vcsync alone, also after a change', async () => {
    // The slice the virtual cluster's own mirroring controller makes, labelled as such.
    await createSlice(virtualClient, 'web-mirrored', {
      service: 'web',
      labels: { app: 'web', 'endpointslice.kubernetes.io/managed-by': MIRRORING },
      endpoints: [readyEndpoint('10.1.0.1'), readyEndpoint('10.1.0.2')],
    });
    syncer?.reload(config(true));
    slicesSyncer = await startResourceSyncer(clusters(), endpointSlicesFixture, { vclusterName: VC, configYaml: config(true) });
    const serviceSlices = async (): Promise<Slice[]> => (await host.list<Slice>(SLICES, { labelSelector: `kubernetes.io/service-name=${HOST_SERVICE}` })).items;
    const [copy] = await waitFor('one host slice of the Service, vcsync\'s copy', async () => {
      const slices = await serviceSlices();
      return slices.length === 1 && slices[0]?.metadata?.labels?.['endpointslice.kubernetes.io/managed-by'] === 'vcsync.vcluster.loft.sh' ? slices : undefined;
    }, { timeoutMs: 60_000 });
    expect(addressesOf(copy === undefined ? [] : [copy])).toEqual(['10.1.0.1', '10.1.0.2']);
    expect(await hostWritesDuring(QUIET_MS)).toEqual([]);

    // A new address, as the virtual controllers write it into both objects.
    const endpoints = await virtualClient.get<Endpoints>('/api/v1/namespaces/default/endpoints/web');
    await virtualClient.update('/api/v1/namespaces/default/endpoints/web', { ...endpoints, subsets: [{ addresses: [{ ip: '10.1.0.3' }, { ip: '10.1.0.2' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }] });
    const slice = await virtualClient.get<Slice>('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/web-mirrored');
    await virtualClient.update('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/web-mirrored', { ...slice, endpoints: [readyEndpoint('10.1.0.3'), readyEndpoint('10.1.0.2')] });
    const changed = await waitFor('the host slice with the new address', async () => {
      const slices = await serviceSlices();
      return addressesOf(slices).join() === '10.1.0.2,10.1.0.3' ? slices : undefined;
    });
    expect(changed).toHaveLength(1);
    expect(await hostWritesDuring(QUIET_MS)).toEqual([]);
    // Every write of the copy was vcsync's: no host controller took it for its own.
    const managedFields = (changed[0]?.metadata as { managedFields?: { manager?: string }[] } | undefined)?.managedFields ?? [];
    const managers = new Set(managedFields.map((entry) => entry.manager));
    expect([...managers]).toEqual(['vcsync']);
  }, 120_000);
});
