import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { isConflict } from '../../../src/apimachinery/index.js';
import { createService, eventsAbout } from '../../support/endpoints-fixtures.js';
import { startResourceSyncer, type RunningResourceSyncer } from '../../support/resource-syncer-harness.js';
import { payload, resourceCases } from '../../support/synced-resource-fixtures.js';
import { captureLogger } from '../../support/log-capture.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import type { RestClient } from '../../../src/kube/rest-client.js';
import { metricValue, runnableBackends, useSyncBackends, type SyncClusters } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';

const REPORT = 'another writer keeps changing the host object; repairing it with backoff instead of fighting';

/** The rival's User-Agent: the field manager a server that tracks managedFields records for its writes. */
const RIVAL = 'vcluster-syncer';

describe.each(resourceCases(runnableBackends('a competing writer on a real kube-apiserver')))('a competing writer on a host copy of $resource (vcluster\'s own syncer, say; $virtual virtual, $host host)', (matrix) => {
  const fx = matrix.fixture;
  const startClusters = useSyncBackends(matrix);
  let clusters: SyncClusters | undefined;
  let rivalClient: RestClient | undefined;
  let running: RunningResourceSyncer | undefined;
  let stopRival: (() => Promise<void>) | undefined;

  afterEach(async () => {
    await stopRival?.();
    await running?.stop();
    rivalClient?.close();
    await clusters?.close();
    stopRival = undefined;
    running = undefined;
    rivalClient = undefined;
    clusters = undefined;
  });

  it('is reported once (log, event, metric) and not fought: vcsync\'s repairs back off, and converge once the rival stops', async () => {
    const c = (clusters = await startClusters());
    const rivalHost = (rivalClient = c.clientAs('host', RIVAL));
    const log = captureLogger('info');
    const syncer = (running = await startResourceSyncer(c, fx, { events: 'recorder', logger: log.logger }));
    await createService(c.virtualClient, 'web');
    await fx.createVirtual(c.virtualClient, 'web', { payload: payload('10.0.0.1') });
    const ours = payload('10.0.0.1');
    const hostPayload = async (): Promise<unknown> => fx.payloadOf(await fx.hostCopy(c.hostClient, c.hostNamespace, 'web'));
    await waitFor('the host copy', async () => isDeepStrictEqual(await hostPayload(), ours));
    const updated = (): Promise<number> => metricValue(syncer.registry, 'vcsync_sync_operations_total', { controller: fx.syncerName, result: 'updated' });
    const updatedBefore = await updated();

    // The rival is a controller of its own: whenever the host copy is not what it wants, it writes
    // its addresses back, looking every 20 ms, for 150 looks (3 s or more on a loaded machine).
    const theirs = payload('10.9.9.9');
    const path = fx.hostPath(c.hostNamespace, 'web');
    let rivalWrites = 0;
    let stopped = false;
    const rival = (async () => {
      for (let look = 0; look < 150 && !stopped; look++) {
        const host = await rivalHost.get<KubeObject>(path);
        if (!isDeepStrictEqual(fx.payloadOf(host), theirs)) {
          try {
            await rivalHost.update(path, { ...host, ...fx.payloadPatch(theirs) });
            rivalWrites++;
          } catch (error) {
            if (!isConflict(error)) throw error; // vcsync wrote in between: look again
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 20)); // the rival's own pace, not a wait for vcsync
      }
    })();
    stopRival = async () => {
      stopped = true;
      await rival;
    };

    const event = await waitFor(`a CompetingWriter event on the virtual ${fx.kind}`, async () =>
      (await eventsAbout(c.virtualClient, 'default', fx.kind, fx.objectName('web'))).find((e) => e.reason === 'CompetingWriter'),
    );
    expect(event.type).toBe('Warning');
    // A server that tracks managedFields (the real one) names the rival; one that does not, nobody.
    const tracked = Array.isArray((await c.hostClient.get<KubeObject>(path)).metadata?.['managedFields']);
    if (matrix.host === 'real') expect(tracked).toBe(true);
    const managers = tracked ? RIVAL : 'not reported by the server';
    expect(event.message).toContain(`another writer (field managers: ${managers}) keeps changing host ${fx.kind} ${c.hostNamespace}/${fx.hostObjectName('web')}`);
    expect(await metricValue(syncer.registry, 'vcsync_competing_writes_total', { controller: fx.syncerName })).toBeGreaterThanOrEqual(3);

    await rival;
    const vcsyncWrites = (await updated()) - updatedBefore;
    // Fighting would answer every rival write (about 150 each); backing off (1 s, 2 s, 4 s, …)
    // leaves vcsync a handful of repairs however long the rival runs.
    expect(rivalWrites).toBeGreaterThanOrEqual(3);
    expect(vcsyncWrites).toBeLessThanOrEqual(10);
    expect(log.matching(REPORT, { key: `default/${fx.objectName('web')}`, level: 40 })).toHaveLength(1);

    await waitFor('vcsync repairs the host copy once the rival has stopped', async () => isDeepStrictEqual(await hostPayload(), ours));
  });
});
