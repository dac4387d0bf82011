import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { isConflict } from '../../../src/kube/api-error.js';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import { createEndpoints, createService, endpointsPath, eventsAbout, getHostEndpoints, hostName, simpleSubset } from '../../support/endpoints-fixtures.js';
import { captureLogger } from '../../support/log-capture.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import type { RestClient } from '../../../src/kube/rest-client.js';
import { metricValue, runnableBackends, startEndpointsSyncer, useSyncBackends, type RunningSyncer, type SyncClusters } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';

const REPORT = 'another writer keeps changing the host object; repairing it with backoff instead of fighting';

/** The rival's User-Agent: the field manager a server that tracks managedFields records for its writes. */
const RIVAL = 'vcluster-syncer';

describe.each(runnableBackends('a competing writer on a real kube-apiserver'))('a competing writer on a host copy (vcluster\'s own syncer, say; $virtual virtual, $host host)', (backends) => {
  const startClusters = useSyncBackends(backends);
  let clusters: SyncClusters | undefined;
  let rivalClient: RestClient | undefined;
  let running: RunningSyncer | undefined;
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
    const syncer = (running = await startEndpointsSyncer(c, { events: 'recorder', logger: log.logger }));
    await createService(c.virtualClient, 'web');
    await createEndpoints(c.virtualClient, 'web', { subsets: [simpleSubset('10.0.0.1')] });
    const ours = [simpleSubset('10.0.0.1')];
    await waitFor('the host copy', async () => isDeepStrictEqual((await getHostEndpoints(c.hostClient, c.hostNamespace, 'web'))?.subsets, ours));
    const updated = (): Promise<number> => metricValue(syncer.registry, 'vcsync_sync_operations_total', { controller: 'endpoints', result: 'updated' });
    const updatedBefore = await updated();

    // The rival is a controller of its own: whenever the host copy is not what it wants, it writes
    // its subsets back, looking every 20 ms, for 150 looks (3 s or more on a loaded machine).
    const theirs = [simpleSubset('10.9.9.9')];
    const path = endpointsPath(c.hostNamespace, hostName('web'));
    let rivalWrites = 0;
    let stopped = false;
    const rival = (async () => {
      for (let look = 0; look < 150 && !stopped; look++) {
        const host = await rivalHost.get<Endpoints>(path);
        if (!isDeepStrictEqual(host.subsets, theirs)) {
          try {
            await rivalHost.update(path, { ...host, subsets: theirs });
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

    const event = await waitFor('a CompetingWriter event on the virtual Endpoints', async () =>
      (await eventsAbout(c.virtualClient, 'default', 'Endpoints', 'web')).find((e) => e.reason === 'CompetingWriter'),
    );
    expect(event.type).toBe('Warning');
    // A server that tracks managedFields (the real one) names the rival; one that does not, nobody.
    const tracked = Array.isArray((await c.hostClient.get<KubeObject>(path)).metadata?.['managedFields']);
    if (backends.host === 'real') expect(tracked).toBe(true);
    const managers = tracked ? RIVAL : 'not reported by the server';
    expect(event.message).toContain(`another writer (field managers: ${managers}) keeps changing host Endpoints ${c.hostNamespace}/${hostName('web')}`);
    expect(await metricValue(syncer.registry, 'vcsync_competing_writes_total', { controller: 'endpoints' })).toBeGreaterThanOrEqual(3);

    await rival;
    const vcsyncWrites = (await updated()) - updatedBefore;
    // Fighting would answer every rival write (about 150 each); backing off (1 s, 2 s, 4 s, …)
    // leaves vcsync a handful of repairs however long the rival runs.
    expect(rivalWrites).toBeGreaterThanOrEqual(3);
    expect(vcsyncWrites).toBeLessThanOrEqual(10);
    expect(log.matching(REPORT, { key: 'default/web', level: 40 })).toHaveLength(1);

    await waitFor('vcsync repairs the host copy once the rival has stopped', async () =>
      isDeepStrictEqual((await getHostEndpoints(c.hostClient, c.hostNamespace, 'web'))?.subsets, ours),
    );
  });
});
