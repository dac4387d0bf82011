import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Lease } from '../../../src/kube/leader-elector.js';
import { tempDir } from '../../support/endpoints-fixtures.js';
import {
  compareHost,
  prepareWorkload,
  recordHost,
  runSyncWorkload,
  SHORT_LEASE,
  startReplica,
  stopReplicas,
  writeReplicaFiles,
  type RecordingWatch,
  type Replica,
  useTeardown,
  hostConverged,
  CONVERGENCE_TIMEOUT,
} from '../../support/ha-replicas.js';
import { realClusterMissing } from '../../support/kube-assets.js';
import { KEYS_PATH } from '../../support/management-fixture.js';
import { SeededRandom, seedFromEnvironment } from '../../support/seeded-random.js';
import { resourceCases } from '../../support/synced-resource-fixtures.js';
import { backendsName, useSyncBackends, type SyncBackends } from '../../support/sync-harness.js';
import { assertBuilt } from '../../support/vcsync-cli.js';
import { waitFor } from '../../support/wait-for.js';

/** Replays a run: `VCSYNC_HA_SEED=<n> npx vitest run test/integration/ha`. */
const SEED = seedFromEnvironment('VCSYNC_HA_SEED', 1212);
/** Virtual objects created; with the updates and deletes, 5,000 changes. */
const OBJECTS = 1000;
const UPDATES = 3600;
const DELETES = 400;
/** The virtual namespaces the objects are spread over. */
const NAMESPACES = ['ha-a', 'ha-b'];
/** The leader is killed once the host has had this many events: some copies, not all. */
const KILL_AT_HOST_EVENTS = 300;

const BACKENDS: SyncBackends[] = [
  { virtual: 'devcluster', host: 'devcluster' },
  ...(realClusterMissing('leader failover on a real kube-apiserver') ? [] : [{ virtual: 'devcluster', host: 'real' } as const]),
];

/** How often the Lease changed holder before `untilMs`. */
function holderChanges(leases: RecordingWatch<Lease>, untilMs: number): number {
  let changes = 0;
  let last = '';
  for (const { atMs, event } of leases.events) {
    if (atMs >= untilMs) break;
    const holder = (event.object as Lease).spec?.holderIdentity ?? '';
    if (holder !== last) changes += 1;
    last = holder;
  }
  return changes;
}

describe.each(resourceCases(BACKENDS))('two replicas serving the management API, the leader killed with 5,000 virtual changes to $resource in flight ($virtual→$host)', (matrix) => {
  const fx = matrix.fixture;
  const name = `${fx.resource} ${backendsName(matrix)}`;
  const startClusters = useSyncBackends(matrix);
  const defer = useTeardown();
  beforeAll(() => assertBuilt());

  it(`the follower takes over and the host ends exactly as the virtual side requires (seed ${SEED})`, async () => {
    const bed = await startClusters();
    defer(() => bed.close());
    const dir = await tempDir('vcsync-ha-');
    defer(() => dir.remove());
    const files = await writeReplicaFiles(dir.dir, { virtual: bed.kubeconfigYaml('virtual'), host: bed.kubeconfigYaml('host') }, fx);
    await prepareWorkload(bed.virtualClient, NAMESPACES, OBJECTS);

    const recording = recordHost(bed.hostClient, bed.hostNamespace, fx);
    defer(() => recording.stop());
    const { leases, hostCopies, holder } = recording;
    const replicas: Replica[] = [];
    defer(() => stopReplicas(replicas));
    const adminKeyPath = join(dir.dir, 'admin.key');
    const replicaOptions = { ...files, hostNamespace: bed.hostNamespace, timings: SHORT_LEASE, managementAdminKeyPath: adminKeyPath };
    const leader = await startReplica(replicaOptions);
    replicas.push(leader);
    await waitFor('the first replica to take the Lease', () => holder() === leader.identity);
    const follower = await startReplica(replicaOptions);
    replicas.push(follower);
    await waitFor('the follower to be ready', async () => (await fetch(`${follower.metricsUrl}/readyz`)).status === 200);
    // Every replica serves the management API, leader or not.
    const adminKey = (await readFile(adminKeyPath, 'utf8')).trim();
    const listKeys = async (replica: Replica): Promise<number> => (await fetch(`${replica.managementUrl ?? ''}${KEYS_PATH}`, { headers: { authorization: `Bearer ${adminKey}` } })).status;
    expect([await listKeys(leader), await listKeys(follower)]).toEqual([200, 200]);

    const workload = runSyncWorkload({ client: bed.virtualClient, fixture: fx, namespaces: NAMESPACES, objects: OBJECTS, updates: UPDATES, deletes: DELETES, random: new SeededRandom(SEED) });
    expect(workload.total).toBe(5000);
    await waitFor('the leader to write some host copies', () => hostCopies.events.length >= KILL_AT_HOST_EVENTS, { timeoutMs: 60_000, intervalMs: 5 });
    // Kill whichever replica holds the Lease now (on a loaded machine short timings may have moved it already).
    const victim = replicas.find((replica) => replica.identity === holder()) ?? leader;
    const survivor = victim === leader ? follower : leader;
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    const atKill = { hostEvents: hostCopies.events.length, virtualChangesApplied: workload.applied(), holderChanges: holderChanges(leases, killedAt) };
    // Between the kill and the takeover nobody leads; the survivor still serves the management API.
    const servedWithoutLeader = await listKeys(survivor);
    const servedAt = Date.now();
    // The host as the dead leader left it (nobody writes it until the survivor takes the Lease): some copies, not all.
    const leftBehind = await compareHost(bed.virtualClient, bed.hostClient, bed.hostNamespace, NAMESPACES, fx);

    const takeover = await waitFor('the survivor to take the Lease', () => leases.events.find((e) => e.atMs >= killedAt && (e.event.object as Lease).spec?.holderIdentity === survivor.identity), { timeoutMs: 30_000 });
    const takenLease = takeover.event.object as Lease;
    const ofVictim = leases.events.filter((e) => e.atMs < takeover.atMs && (e.event.object as Lease).spec?.holderIdentity === victim.identity);
    const lastRenewal = (ofVictim.at(-1)?.event.object as Lease | undefined)?.spec?.renewTime;
    await workload.done;
    const firstWrite = await waitFor('a host write by the new leader', () => hostCopies.events.find((e) => e.atMs >= takeover.atMs && e.event.type !== 'BOOKMARK'), { timeoutMs: 30_000 });
    await waitFor('the host to converge', hostConverged(bed.virtualClient, bed.hostClient, bed.hostNamespace, NAMESPACES, fx), CONVERGENCE_TIMEOUT);
    const convergedAt = Date.now();
    // Compared once more: what the summary says is what the host holds.
    const final = await compareHost(bed.virtualClient, bed.hostClient, bed.hostNamespace, NAMESPACES, fx);
    console.info(
      `[ha ${name} seed ${SEED}] ${workload.total} virtual changes; killed the leader (${victim === leader ? 'first' : 'second'} replica; the Lease changed holder ${atKill.holderChanges} times before) after ${atKill.hostEvents} host events (${atKill.virtualChangesApplied} virtual changes applied, ` +
        `${leftBehind.lost.length + leftBehind.orphaned.length} host copies missing or stale then); takeover (kill → Lease names the survivor) ${takeover.atMs - killedAt} ms (the victim's last renewal → the survivor's acquireTime ${Date.parse(takenLease.spec?.acquireTime ?? '') - Date.parse(lastRenewal ?? '')} ms); ` +
        `kill → first host write by the new leader ${firstWrite.atMs - killedAt} ms; kill → converged ${convergedAt - killedAt} ms; ` +
        `${final.expected} expected, ${final.hostCopies} host copies: lost ${final.lost.length}, orphaned ${final.orphaned.length}, duplicated ${final.duplicated.length}`,
    );
    expect(servedWithoutLeader).toBe(200);
    expect(servedAt).toBeLessThan(takeover.atMs);
    expect(leftBehind.hostCopies).toBeGreaterThan(0);
    expect(leftBehind.lost.length + leftBehind.orphaned.length).toBeGreaterThan(0);
    expect({ lost: final.lost, orphaned: final.orphaned, duplicated: final.duplicated }).toEqual({ lost: [], orphaned: [], duplicated: [] });
    expect(final.hostCopies).toBe(OBJECTS - DELETES);
    // The survivor took the Lease only once it had expired (a lease duration after the victim's last
    // renewal, both times as the two replicas wrote them, on this machine's one clock), and kept it.
    expect(Date.parse(takenLease.spec?.acquireTime ?? '') - Date.parse(lastRenewal ?? '')).toBeGreaterThanOrEqual(SHORT_LEASE.leaseDurationMs);
    expect(holder()).toBe(survivor.identity);
  }, 240_000);
});
