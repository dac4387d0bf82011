import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { isNotFound } from '../../../src/apimachinery/index.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import type { Lease } from '../../../src/kube/leader-elector.js';
import type { RestClient } from '../../../src/kube/rest-client.js';
import { tempDir } from '../../support/endpoints-fixtures.js';
import { startFaultProxy } from '../../support/fault-proxy.js';
import {
  prepareWorkload,
  recordHost,
  runSyncWorkload,
  startRecordingProxy,
  startReplica,
  stopReplicas,
  writeReplicaFiles,
  type Replica,
  useTeardown,
  hostConverged,
  CONVERGENCE_TIMEOUT,
  workloadObject,
} from '../../support/ha-replicas.js';
import { SeededRandom, seedFromEnvironment } from '../../support/seeded-random.js';
import { SYNCED_RESOURCES } from '../../support/synced-resource-fixtures.js';
import { startTwoClusters } from '../../support/sync-harness.js';
import { assertBuilt } from '../../support/vcsync-cli.js';
import { waitFor } from '../../support/wait-for.js';

/** Replays a run: `VCSYNC_HA_SEED=<n> npx vitest run test/integration/ha`. */
const SEED = seedFromEnvironment('VCSYNC_HA_SEED', 1212);
const NAMESPACES = ['fence-a', 'fence-b'];
const OBJECTS = 800;
/** The Lease requests of the partitioned replica: stalled, while its other requests go through. */
const LEASE_PATHS = /^\/apis\/coordination\.k8s\.io\//;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Short, with a little more room than the failover test's: replica A must still lead when the partition starts on a loaded machine. */
const TIMINGS = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 };

describe.each(SYNCED_RESOURCES.map((fixture) => ({ resource: fixture.resource, fixture })))('a leader syncing $resource whose Lease requests stall (a partition between it and the Lease) stops writing before the Lease can be taken', ({ fixture: fx }) => {
  const defer = useTeardown();
  beforeAll(() => assertBuilt());

  it(`no host write of the old leader later than the renew deadline after its last renewal; the new leader writes only after that (seed ${SEED})`, async () => {
    const bed = await startTwoClusters();
    defer(() => bed.close());
    const dir = await tempDir('vcsync-fencing-');
    defer(() => dir.remove());
    await prepareWorkload(bed.virtualClient, NAMESPACES, OBJECTS);
    // Replica A reaches the host through recorder → fault proxy; replica B directly.
    const faults = await startFaultProxy({ upstream: bed.host.url });
    const recorder = await startRecordingProxy(faults.url);
    defer(() => Promise.all([recorder.close(), faults.close()]));
    const direct = await writeReplicaFiles(dir.dir, { virtual: bed.virtual.kubeConfigYaml(), host: bed.host.kubeConfigYaml() }, fx);
    const viaProxy = { ...direct, hostKubeconfigPath: join(dir.dir, 'host-via-proxy.kubeconfig') };
    await writeFile(viaProxy.hostKubeconfigPath, bed.host.kubeConfigYaml().replaceAll(bed.host.url, recorder.url));

    const recording = recordHost(bed.hostClient, bed.hostNamespace, fx);
    defer(() => recording.stop());
    const { leases, hostCopies, holder } = recording;
    const replicas: Replica[] = [];
    defer(() => stopReplicas(replicas));
    const leader = await startReplica({ ...viaProxy, hostNamespace: bed.hostNamespace, timings: TIMINGS });
    replicas.push(leader);
    await waitFor('replica A to take the Lease', () => holder() === leader.identity);
    const follower = await startReplica({ ...direct, hostNamespace: bed.hostNamespace, timings: TIMINGS });
    replicas.push(follower);
    await waitFor('replica B to be ready', async () => (await fetch(`${follower.metricsUrl}/readyz`)).status === 200);

    const workload = runSyncWorkload({ client: bed.virtualClient, fixture: fx, namespaces: NAMESPACES, objects: OBJECTS, updates: 800, deletes: 200, random: new SeededRandom(SEED), concurrency: 8 });
    await waitFor('replica A to write some host copies', () => hostCopies.events.length >= 150, { timeoutMs: 60_000, intervalMs: 5 });
    expect(holder()).toBe(leader.identity);
    faults.partition({ path: LEASE_PATHS });
    const partitionedAt = Date.now();
    const takeover = await waitFor('replica B to take the Lease', () => leases.events.find((e) => (e.event.object as Lease).spec?.holderIdentity === follower.identity), { timeoutMs: 30_000 });
    await workload.done;
    // A, cut from the Lease only, may have written the whole workload before its fence (a fast
    // machine): one change after the takeover is the new leader's to write.
    await changeOneObject(bed.virtualClient, fx, NAMESPACES);
    await waitFor('the host to converge', hostConverged(bed.virtualClient, bed.hostClient, bed.hostNamespace, NAMESPACES, fx), CONVERGENCE_TIMEOUT);

    const fromA = recorder.requests;
    const renewals = fromA.filter((r) => r.method === 'PUT' && LEASE_PATHS.test(r.path) && r.status === 200);
    const lastRenewal = renewals.at(-1);
    expect(lastRenewal).toBeDefined();
    const fenceAt = (lastRenewal?.atMs ?? 0) + TIMINGS.renewDeadlineMs;
    const writesOfA = fromA.filter((r) => WRITES.has(r.method) && !LEASE_PATHS.test(r.path));
    const lateWrites = writesOfA.filter((r) => r.atMs > fenceAt);
    const firstWriteOfB = hostCopies.events.find((e) => e.atMs >= takeover.atMs && e.event.type !== 'BOOKMARK');
    console.info(
      `[fencing ${fx.resource} seed ${SEED}] partitioned ${partitionedAt - (lastRenewal?.atMs ?? 0)} ms after A's last renewal; A's writes: ${writesOfA.length}, ` +
        `${writesOfA.filter((r) => r.atMs > partitionedAt).length} after the partition, last ${Math.max(...writesOfA.map((r) => r.atMs)) - fenceAt} ms from its fence (renewal + ${TIMINGS.renewDeadlineMs} ms), ${lateWrites.length} after it; ` +
        `B took the Lease ${takeover.atMs - fenceAt} ms after A's fence and first wrote ${(firstWriteOfB?.atMs ?? Number.NaN) - fenceAt} ms after it`,
    );
    expect(faults.counts().partition).toBeGreaterThan(0);
    // The partition cut a leader that still had work: it wrote while it still held the Lease.
    expect(writesOfA.some((r) => r.atMs > partitionedAt)).toBe(true);
    expect(lateWrites.map((r) => `${r.method} ${r.path} +${r.atMs - fenceAt} ms`)).toEqual([]);
    expect(takeover.atMs).toBeGreaterThan(fenceAt);
    expect(firstWriteOfB?.atMs).toBeGreaterThan(fenceAt);
    // A stays up and serves, as a standby.
    expect((await fetch(`${leader.metricsUrl}/metrics`)).status).toBe(200);
  }, 240_000);
});

/** Gives the first workload object still there a new payload. */
async function changeOneObject(client: RestClient, fixture: (typeof SYNCED_RESOURCES)[number], namespaces: readonly string[]): Promise<void> {
  for (let index = 0; index < OBJECTS; index += 1) {
    const { namespace, name } = workloadObject(index, namespaces);
    const path = fixture.virtualPath(namespace, name);
    let current: KubeObject;
    try {
      current = await client.get<KubeObject>(path);
    } catch (error) {
      if (isNotFound(error)) continue;
      throw error;
    }
    await client.update(path, { ...current, ...fixture.payloadPatch({ ips: ['10.250.250.250'], port: 9999 }) });
    return;
  }
  throw new Error(`none of the ${OBJECTS} workload objects is left to change`);
}
