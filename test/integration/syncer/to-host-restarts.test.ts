import { afterEach, describe, expect, it } from 'vitest';
import { startDevCluster } from '../../../src/devcluster/index.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import type { RestClient } from '../../../src/kube/rest-client.js';
import { freePorts } from '../../../testbed/free-ports.js';
import { createService, servicePath, tempDir } from '../../support/endpoints-fixtures.js';
import { startResourceSyncer, type RunningResourceSyncer } from '../../support/resource-syncer-harness.js';
import { payload, SYNCED_RESOURCES, type Payload } from '../../support/synced-resource-fixtures.js';
import { clientFor, metricValue, startTwoClusters, type TwoClusters } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';

function sameMap(a: Map<string, string>, b: Map<string, string>): boolean {
  return a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);
}

// Devcluster only: these tests stop a devcluster and start it again on the same port and data dir
// (changes while down, watch windows); the real control plane's harness has no restart in place.
describe.each(SYNCED_RESOURCES.map((fixture) => ({ resource: fixture.resource, fixture })))('$resource syncer across restarts (two devclusters over HTTP)', ({ fixture: fx }) => {
  let clusters: TwoClusters | undefined;
  const syncers: RunningResourceSyncer[] = [];
  const cleanups: Array<() => Promise<void>> = [];

  afterEach(async () => {
    for (const syncer of syncers.splice(0)) await syncer.stop();
    await clusters?.close();
    clusters = undefined;
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** The host copies' names and payloads, keyed by host name. */
  const hostState = async (client: RestClient, hostNamespace: string): Promise<Map<string, string>> =>
    new Map((await fx.list(client, hostNamespace)).map((o: KubeObject) => [o.metadata?.name ?? '', JSON.stringify(fx.payloadOf(o))]));
  /** What the host should hold for the virtual payloads by Service (selector-less Services only, as the tests set them up). */
  const expectedHost = (virtual: Map<string, Payload>): Map<string, string> =>
    new Map([...virtual].map(([service, value]) => [fx.hostObjectName(service), JSON.stringify(value)]));
  const start = async (c: TwoClusters): Promise<RunningResourceSyncer> => {
    const syncer = await startResourceSyncer(c, fx, { workers: 4 });
    syncers.push(syncer);
    return syncer;
  };
  const durableDir = async (): Promise<string> => {
    const { dir, remove } = await tempDir();
    cleanups.push(remove);
    return dir;
  };

  it('a new syncer catches up with changes made while none ran: nothing lost, no orphans', async () => {
    const c = (clusters = await startTwoClusters());
    const { virtualClient, hostClient, hostNamespace } = c;
    const first = await start(c);
    const names = ['keep', 'change', 'gone', 'selector'];
    for (const name of names) {
      await createService(virtualClient, name);
      await fx.createVirtual(virtualClient, name, { payload: payload('10.0.0.1') });
    }
    await waitFor('four host copies', async () => (await fx.list(hostClient, hostNamespace)).length === 4);
    await first.stop();

    await virtualClient.patch(fx.virtualPath('default', 'change'), 'merge', { ...fx.payloadPatch(payload('10.9.9.9')), metadata: { labels: { v: '2' } } });
    await virtualClient.delete(fx.virtualPath('default', 'gone'));
    await virtualClient.patch(servicePath('default', 'selector'), 'merge', { spec: { selector: { app: 'selector' } } });
    await createService(virtualClient, 'new');
    await fx.createVirtual(virtualClient, 'new', { payload: payload('10.0.0.5') });

    await start(c);
    const want = expectedHost(
      new Map([
        ['keep', payload('10.0.0.1')],
        ['change', payload('10.9.9.9')],
        ['new', payload('10.0.0.5')],
      ]),
    );
    await waitFor('host converged (changed, created, orphans collected)', async () => sameMap(await hostState(hostClient, hostNamespace), want));
    const changed = await hostClient.get<KubeObject>(fx.hostPath(hostNamespace, 'change'));
    expect(changed.metadata?.labels?.['v']).toBe('2');
  });

  it('converges when the host devcluster restarts on the same port and data while objects are being created', async () => {
    const hostDir = await durableDir();
    // A port outside the kernel's ephemeral range: while the host is down, no outgoing
    // connection (the syncer's retries among them) can take it as its source port.
    const [port] = await freePorts(1);
    const c = (clusters = await startTwoClusters({ host: { dataDir: hostDir, port } }));
    const { virtualClient, hostClient, hostNamespace } = c;
    await start(c);
    const names = Array.from({ length: 30 }, (_, i) => `load-${i}`);
    const want = expectedHost(new Map(names.map((name, i) => [name, payload(`10.4.0.${i}`)])));

    let created = 0;
    const load = (async () => {
      for (const [i, name] of names.entries()) {
        await createService(virtualClient, name);
        await fx.createVirtual(virtualClient, name, { payload: payload(`10.4.0.${i}`) });
        created++;
      }
    })();
    await waitFor('a third of the objects created', () => created >= 10);
    await c.host.close();
    c.host = await startDevCluster({ port, dataDir: hostDir });
    await load;

    await waitFor('every object on the restarted host', async () => sameMap(await hostState(hostClient, hostNamespace), want), { timeoutMs: 50_000, intervalMs: 200 });
  });

  it('relists after 410 Expired when its watch fell out of the virtual devcluster window, and converges', async () => {
    const virtualDir = await durableDir();
    const watchWindow = 8;
    const [port] = await freePorts(1); // outside the ephemeral range, as above
    const c = (clusters = await startTwoClusters({ virtual: { dataDir: virtualDir, watchWindow, port } }));
    const { virtualClient, hostClient, hostNamespace } = c;
    const syncer = await start(c);
    await createService(virtualClient, 'old');
    await fx.createVirtual(virtualClient, 'old');
    await waitFor('first host copy', async () => (await fx.list(hostClient, hostNamespace)).length === 1);
    const relistsBefore = await metricValue(syncer.registry, 'vcsync_watch_relists_total', { informer: fx.virtualInformer });

    // Take the virtual API away from the syncer (its port goes dark) and write far more than the
    // watch window through another port on the same data.
    await c.virtual.close();
    const elsewhere = await startDevCluster({ dataDir: virtualDir, watchWindow });
    const writer = clientFor(elsewhere, 'virtual-elsewhere');
    const names = Array.from({ length: 12 }, (_, i) => `burst-${i}`);
    try {
      for (const [i, name] of names.entries()) {
        await createService(writer, name);
        await fx.createVirtual(writer, name, { payload: payload(`10.5.0.${i}`) });
        await writer.patch(fx.virtualPath('default', name), 'merge', { metadata: { labels: { round: '2' } } });
      }
      await writer.delete(fx.virtualPath('default', 'old'));
    } finally {
      writer.close();
      await elsewhere.close();
    }
    c.virtual = await startDevCluster({ port, dataDir: virtualDir, watchWindow });

    const want = expectedHost(new Map(names.map((name, i) => [name, payload(`10.5.0.${i}`)])));
    await waitFor('host converged after the relist', async () => sameMap(await hostState(hostClient, hostNamespace), want), { timeoutMs: 50_000, intervalMs: 200 });
    expect(await metricValue(syncer.registry, 'vcsync_watch_relists_total', { informer: fx.virtualInformer })).toBeGreaterThan(relistsBefore);
    const sample = await hostClient.get<KubeObject>(fx.hostPath(hostNamespace, 'burst-11'));
    expect(sample.metadata?.labels?.['round']).toBe('2');
  });
});
