import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/index.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { PatchSandbox } from '../../../src/patches/index.js';
import type { Endpoints, Service } from '../../../src/syncer/endpoints/endpoints-types.js';
import { cachedBodyDigest } from '../../../src/syncer/host-changes.js';
import { buildEndpointsSyncState } from '../../../src/syncer/endpoints/config-section.js';
import { createEndpoints, createService, endpointsPath, getHostEndpoints, hostName, servicePath, simpleSubset } from '../../support/endpoints-fixtures.js';
import { runnableBackends, startEndpointsSyncer, useSyncBackends, type RunningSyncer, type SyncClusters } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';
import { registryConfigSchema } from '../../../src/syncer/resources.js';

const managedFieldsOf = (object: KubeObject | undefined): unknown => object?.metadata?.['managedFields'];

describe.each(runnableBackends('the syncer caches on a real kube-apiserver'))('what the syncer caches ($virtual virtual, $host host, over HTTP)', (backends) => {
  const startClusters = useSyncBackends(backends);
  let clusters: SyncClusters | undefined;
  let running: RunningSyncer | undefined;
  let sandbox: PatchSandbox | undefined;

  afterEach(async () => {
    await running?.stop();
    await clusters?.close();
    sandbox?.dispose();
    running = undefined;
    clusters = undefined;
    sandbox = undefined;
  });

  it('keeps only what it reads (no managedFields, Services as their selector, host copies as metadata + digest), and still repairs drift in the digested body and flows host labels back', async () => {
    const c = (clusters = await startClusters());
    const { syncer } = (running = await startEndpointsSyncer(c));
    await createService(c.virtualClient, 'web');
    await createEndpoints(c.virtualClient, 'web', { labels: { app: 'web' }, subsets: [simpleSubset('10.0.0.8')] });
    await waitFor('the host copy', () => getHostEndpoints(c.hostClient, c.hostNamespace, 'web'));
    const hostKey = `${c.hostNamespace}/${hostName('web')}`;
    const cachedHost = await waitFor('the host copy cached', () => syncer.cache<Endpoints>('host-endpoints').get(hostKey));

    // The servers serve managedFields (a real kube-apiserver does, and so does the devcluster): dropping them is the cache's doing.
    expect(managedFieldsOf(await c.virtualClient.get<Endpoints>(endpointsPath('default', 'web')))).toBeInstanceOf(Array);
    expect(managedFieldsOf(await c.hostClient.get<Endpoints>(endpointsPath(c.hostNamespace, hostName('web'))))).toBeInstanceOf(Array);
    const service = await c.virtualClient.get<Service>(servicePath('default', 'web'));
    expect(managedFieldsOf(service)).toBeInstanceOf(Array);

    const cachedVirtual = syncer.cache<Endpoints>('virtual-endpoints').get('default/web');
    expect(managedFieldsOf(cachedVirtual)).toBeUndefined();
    expect(cachedVirtual?.subsets).toEqual([simpleSubset('10.0.0.8')]);
    expect(syncer.cache('virtual-services').get('default/web')).toEqual({
      metadata: { name: 'web', namespace: 'default', uid: service.metadata?.uid, resourceVersion: service.metadata?.resourceVersion },
    });
    expect(managedFieldsOf(cachedHost)).toBeUndefined();
    expect(cachedHost).not.toHaveProperty('subsets');
    expect(cachedBodyDigest(cachedHost)).toBeDefined();
    expect(cachedHost.metadata?.labels?.['app']).toBe('web');

    // Drift inside the digested body (one port number): detected and repaired from the virtual object.
    const hostPath = endpointsPath(c.hostNamespace, hostName('web'));
    await c.hostClient.patch(hostPath, 'merge', { subsets: [simpleSubset('10.0.0.8', 9999)] });
    await waitFor('the drifted port repaired', async () => (await getHostEndpoints(c.hostClient, c.hostNamespace, 'web'))?.subsets?.[0]?.ports?.[0]?.port === 8080);

    // Reverse sync reads the metadata the cache keeps: a host-side label flows back.
    await c.hostClient.patch(hostPath, 'merge', { metadata: { labels: { team: 'blue' } } });
    const virtual = await waitFor('the host label on the virtual object', async () => {
      const v = await c.virtualClient.get<Endpoints>(endpointsPath('default', 'web'));
      return v.metadata?.labels?.['team'] === 'blue' ? v : undefined;
    });
    expect(virtual.metadata?.labels).toEqual({ app: 'web', team: 'blue' });
    expect(virtual.subsets).toEqual([simpleSubset('10.0.0.8')]);
  });

  it('after a reload adds a patch that reads context.hostObject, reads host copies cached without their body whole (GET)', async () => {
    const c = (clusters = await startClusters());
    const { syncer } = (running = await startEndpointsSyncer(c));
    await createService(c.virtualClient, 'web');
    await createEndpoints(c.virtualClient, 'web', { annotations: { 'seen-ip': 'none' }, subsets: [simpleSubset('10.0.0.8')] });
    await waitFor('the host copy', () => getHostEndpoints(c.hostClient, c.hostNamespace, 'web'));
    const hostKey = `${c.hostNamespace}/${hostName('web')}`;
    await waitFor('the host copy cached without its body', () => {
      const cached = syncer.cache<Endpoints>('host-endpoints').get(hostKey);
      return cached !== undefined && cachedBodyDigest(cached) !== undefined;
    });

    const config = [
      'sync:',
      '  toHost:',
      '    endpoints:',
      '      enabled: true',
      '      patches:',
      '        - path: metadata.annotations["seen-ip"]',
      '          expression: \'context.hostObject ? context.hostObject.subsets[0].addresses[0].ip : value\'',
      '',
    ].join('\n');
    const parsed = parseConfig(config, 'vcluster.yaml', registryConfigSchema());
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    sandbox = new PatchSandbox();
    const built = buildEndpointsSyncState({ vclusterName: 'vc1', hostNamespace: c.hostNamespace, config: parsed.config, sandbox });
    if (!built.ok) throw new Error(built.errors.map((e) => e.message).join('; '));
    syncer.updateState(built.state);

    // The expression read the host copy's subsets: the body was fetched, not taken from the cache.
    const host = await waitFor('the patched host copy', async () => {
      const h = await getHostEndpoints(c.hostClient, c.hostNamespace, 'web');
      return h?.metadata?.annotations?.['seen-ip'] !== 'none' ? h : undefined;
    });
    expect(host.metadata?.annotations?.['seen-ip']).toBe('10.0.0.8');
    // Objects cached from now on keep their body (the patches read it).
    await waitFor('the patched copy cached whole', () => syncer.cache<Endpoints>('host-endpoints').get(hostKey)?.metadata?.annotations?.['seen-ip'] === '10.0.0.8');
    const cached = syncer.cache<Endpoints>('host-endpoints').get(hostKey) ?? {};
    expect((cached as Endpoints).subsets).toEqual([simpleSubset('10.0.0.8')]);
    expect(cachedBodyDigest(cached)).toBeUndefined();
  });
});
