import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config/index.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import type { Informer } from '../../../src/kube/informer.js';
import { PatchSandbox } from '../../../src/patches/index.js';
import type { Service } from '../../../src/syncer/endpoints/endpoints-types.js';
import { cachedBodyDigest } from '../../../src/syncer/host-changes.js';
import { createService, servicePath } from '../../support/endpoints-fixtures.js';
import { startResourceSyncer, type RunningResourceSyncer } from '../../support/resource-syncer-harness.js';
import { payload, resourceCases } from '../../support/synced-resource-fixtures.js';
import { runnableBackends, useSyncBackends, type SyncClusters } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';
import { registryConfigSchema } from '../../../src/syncer/resources.js';

const managedFieldsOf = (object: KubeObject | undefined): unknown => object?.metadata?.['managedFields'];

/** The informer named `name` of a running syncer (its caches are read-only here). */
function informerNamed(running: RunningResourceSyncer, name: string): Informer<KubeObject> {
  const found = running.informers.informers().find((i) => i.name === name);
  if (found === undefined) throw new Error(`the ${running.resource.name} syncer has no informer ${name} (it has ${running.informers.informers().map((i) => i.name).join(', ')})`);
  return found;
}

describe.each(resourceCases(runnableBackends('the syncer caches on a real kube-apiserver')))('what the $resource syncer caches ($virtual virtual, $host host, over HTTP)', (matrix) => {
  const fx = matrix.fixture;
  const startClusters = useSyncBackends(matrix);
  let clusters: SyncClusters | undefined;
  let running: RunningResourceSyncer | undefined;
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
    const syncer = (running = await startResourceSyncer(c, fx));
    await createService(c.virtualClient, 'web');
    const created = await fx.createVirtual(c.virtualClient, 'web', { labels: { app: 'web' }, payload: payload('10.0.0.8') });
    await waitFor('the host copy', () => fx.hostCopy(c.hostClient, c.hostNamespace, 'web'));
    const hostKey = `${c.hostNamespace}/${fx.hostObjectName('web')}`;
    const cachedHost = await waitFor('the host copy cached', () => informerNamed(syncer, fx.hostInformer).get(hostKey));

    // The servers serve managedFields (a real kube-apiserver does, and so does the devcluster): dropping them is the cache's doing.
    expect(managedFieldsOf(await c.virtualClient.get<KubeObject>(fx.virtualPath('default', 'web')))).toBeInstanceOf(Array);
    expect(managedFieldsOf(await c.hostClient.get<KubeObject>(fx.hostPath(c.hostNamespace, 'web')))).toBeInstanceOf(Array);
    const service = await c.virtualClient.get<Service>(servicePath('default', 'web'));
    expect(managedFieldsOf(service)).toBeInstanceOf(Array);

    const cachedVirtual = informerNamed(syncer, fx.virtualInformer).get(`default/${fx.objectName('web')}`);
    expect(managedFieldsOf(cachedVirtual)).toBeUndefined();
    expect(fx.bodyOf(cachedVirtual)).toEqual(fx.bodyOf(created));
    expect(informerNamed(syncer, 'virtual-services').get('default/web')).toEqual({
      metadata: { name: 'web', namespace: 'default', uid: service.metadata?.uid, resourceVersion: service.metadata?.resourceVersion },
    });
    expect(managedFieldsOf(cachedHost)).toBeUndefined();
    for (const field of fx.bodyFields) expect(cachedHost).not.toHaveProperty(field);
    expect(cachedBodyDigest(cachedHost)).toBeDefined();
    expect(cachedHost.metadata?.labels?.['app']).toBe('web');

    // Drift inside the digested body (one port number): detected and repaired from the virtual object.
    const hostPath = fx.hostPath(c.hostNamespace, 'web');
    await c.hostClient.patch(hostPath, 'merge', fx.payloadPatch(payload('10.0.0.8', 9999)));
    await waitFor('the drifted port repaired', async () => fx.payloadOf(await fx.hostCopy(c.hostClient, c.hostNamespace, 'web'))?.port === 8080);

    // Reverse sync reads the metadata the cache keeps: a host-side label flows back.
    await c.hostClient.patch(hostPath, 'merge', { metadata: { labels: { team: 'blue' } } });
    const virtual = await waitFor('the host label on the virtual object', async () => {
      const v = await c.virtualClient.get<KubeObject>(fx.virtualPath('default', 'web'));
      return v.metadata?.labels?.['team'] === 'blue' ? v : undefined;
    });
    expect(virtual.metadata?.labels).toEqual({ ...fx.ownLabels('web'), app: 'web', team: 'blue' });
    expect(fx.payloadOf(virtual)).toEqual(payload('10.0.0.8'));
  });

  it('after a reload adds a patch that reads context.hostObject, reads host copies cached without their body whole (GET)', async () => {
    const c = (clusters = await startClusters());
    const syncer = (running = await startResourceSyncer(c, fx));
    const hostCache = informerNamed(syncer, fx.hostInformer);
    await createService(c.virtualClient, 'web');
    await fx.createVirtual(c.virtualClient, 'web', { annotations: { 'seen-ip': 'none' }, payload: payload('10.0.0.8') });
    await waitFor('the host copy', () => fx.hostCopy(c.hostClient, c.hostNamespace, 'web'));
    const hostKey = `${c.hostNamespace}/${fx.hostObjectName('web')}`;
    await waitFor('the host copy cached without its body', () => {
      const cached = hostCache.get(hostKey);
      return cached !== undefined && cachedBodyDigest(cached) !== undefined;
    });

    const config = fx.configYaml([
      '      patches:',
      '        - path: metadata.annotations["seen-ip"]',
      `          expression: 'context.hostObject ? ${fx.hostFirstAddressExpression} : value'`,
    ]);
    const parsed = parseConfig(config, 'vcluster.yaml', registryConfigSchema());
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    sandbox = new PatchSandbox();
    const built = syncer.resource.buildState({ vclusterName: 'vc1', hostNamespace: c.hostNamespace, config: parsed.config, sandbox });
    if (!built.ok) throw new Error(built.errors.map((e) => e.message).join('; '));
    syncer.syncer.updateState(built.state);

    // The expression read the host copy's body: it was fetched, not taken from the cache.
    const host = await waitFor('the patched host copy', async () => {
      const h = await fx.hostCopy(c.hostClient, c.hostNamespace, 'web');
      return h?.metadata?.annotations?.['seen-ip'] !== 'none' ? h : undefined;
    });
    expect(host.metadata?.annotations?.['seen-ip']).toBe('10.0.0.8');
    // Objects cached from now on keep their body (the patches read it).
    await waitFor('the patched copy cached whole', () => hostCache.get(hostKey)?.metadata?.annotations?.['seen-ip'] === '10.0.0.8');
    const cached = hostCache.get(hostKey) ?? {};
    expect(fx.payloadOf(cached)).toEqual(payload('10.0.0.8'));
    expect(cachedBodyDigest(cached)).toBeUndefined();
  });
});
