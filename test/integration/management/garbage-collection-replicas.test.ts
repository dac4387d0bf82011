import { afterEach, describe, expect, it } from 'vitest';
import { startManagementServer, type ManagementServer } from '../../../src/management/index.js';
import { captureLogger, type CapturedLog } from '../../support/log-capture.js';
import { KEYS_PATH, ManagementFixture, type Answer } from '../../support/management-fixture.js';
import { waitFor } from '../../support/wait-for.js';
import { storeBackends, useStoreBed } from './store-bed.js';

const BACKENDS = storeBackends('garbage collection by two management replicas');
const API_VERSION = 'management.loft.sh/v1';
const DEPENDENTS = ['dep-1', 'dep-2', 'dep-3', 'dep-4', 'dep-5', 'dep-6'];

/** The warnings of a replica's controllers: a collector that lost a race must not report a failure. */
function controllerWarnings(log: CapturedLog): unknown[] {
  return log.lines.filter((line) => typeof line['controller'] === 'string' && Number(line['level']) >= 40);
}

/**
 * Every replica serves the management API and runs the garbage collector over the same host
 * namespace (ADR 0018): their deletes carry the dependent's uid as a precondition and their
 * patches a resourceVersion, so when both act on one key one wins and the other's write is
 * refused harmlessly.
 */
describe.each(BACKENDS)('garbage collection by two management replicas on one host namespace of a %s', (backend) => {
  const start = useStoreBed(backend, 'vcsync-gc-replicas');
  let fixture: ManagementFixture | undefined;
  let second: ManagementServer | undefined;
  afterEach(async () => {
    await second?.close();
    await fixture?.stop();
    [fixture, second] = [undefined, undefined];
  });

  async function twoReplicas(): Promise<{ fixture: ManagementFixture; second: ManagementServer; logs: CapturedLog[] }> {
    const bed = await start();
    const logs = [captureLogger(), captureLogger()];
    fixture = await ManagementFixture.start({ storage: await bed.open(), logger: logs[0]!.logger });
    second = await startManagementServer({ storage: await bed.open(), keyHashSecret: Buffer.alloc(32, 7), insecureHttp: true, logger: logs[1]!.logger });
    return { fixture, second, logs };
  }

  it('Background: deleting an owner through one replica, both collect its dependents; no collector reports a failure, a name collected and reused is kept', async () => {
    const { fixture, second, logs } = await twoReplicas();
    const post = (name: string, ownerReferences?: unknown[]): Promise<Answer> =>
      fixture.call('POST', KEYS_PATH, { key: fixture.adminKey, body: { apiVersion: API_VERSION, kind: 'OwnedAccessKey', metadata: { name, ...(ownerReferences !== undefined ? { ownerReferences } : {}) }, spec: { user: 'alice' } } });
    const owner = await post('owner');
    const reference = { apiVersion: API_VERSION, kind: 'OwnedAccessKey', name: 'owner', uid: owner.body.metadata.uid };
    for (const name of DEPENDENTS) expect((await post(name, [reference])).status).toBe(201);
    // Both replicas' collectors know every dependent before the owner goes.
    await waitFor('the second replica to see every dependent', async () => (await second.writer.get(second.ownedAccessKeys, '', 'dep-6')) !== undefined, { timeoutMs: 20_000 });
    expect((await fixture.call('DELETE', `${KEYS_PATH}/owner`, { key: fixture.adminKey })).status).toBe(200);
    const gone = async (name: string): Promise<boolean> => (await fixture.call('GET', `${KEYS_PATH}/${name}`, { key: fixture.adminKey })).status === 404;
    for (const name of DEPENDENTS) await waitFor(`${name} to be collected`, () => gone(name), { timeoutMs: 20_000 });
    expect((await post('dep-1')).status).toBe(201);
    await waitFor('the second replica to see the reused name', async () => (await second.writer.get(second.ownedAccessKeys, '', 'dep-1').catch(() => undefined)) !== undefined, { timeoutMs: 20_000 });
    await Promise.all([fixture.server.controllers?.idle(), second.controllers?.idle()]);
    expect((await fixture.call('GET', `${KEYS_PATH}/dep-1`, { key: fixture.adminKey })).status).toBe(200);
    expect(logs.map(controllerWarnings)).toEqual([[], []]);
  });

  it('Foreground: both replicas delete the dependents and release the owner once; it goes', async () => {
    const { fixture, second, logs } = await twoReplicas();
    const owner = await fixture.createKey({ user: 'alice' }, { name: 'fg-owner' });
    const reference = { apiVersion: API_VERSION, kind: 'OwnedAccessKey', name: 'fg-owner', uid: owner.body.metadata.uid, blockOwnerDeletion: true };
    for (const name of DEPENDENTS) {
      const created = await fixture.call('POST', KEYS_PATH, { key: fixture.adminKey, body: { apiVersion: API_VERSION, kind: 'OwnedAccessKey', metadata: { name, ownerReferences: [reference] }, spec: { user: 'alice' } } });
      expect(created.status).toBe(201);
    }
    await waitFor('the second replica to see every dependent', async () => (await second.writer.get(second.ownedAccessKeys, '', 'dep-6').catch(() => undefined)) !== undefined, { timeoutMs: 20_000 });
    const marked = await fixture.call('DELETE', `${KEYS_PATH}/fg-owner?propagationPolicy=Foreground`, { key: fixture.adminKey });
    expect(marked.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    await waitFor('the owner to go after its dependents', async () => (await fixture.call('GET', `${KEYS_PATH}/fg-owner`, { key: fixture.adminKey })).status === 404, { timeoutMs: 20_000 });
    const left = await fixture.call('GET', KEYS_PATH, { key: fixture.adminKey });
    expect(left.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toEqual(['vcsync-bootstrap-admin']);
    await Promise.all([fixture.server.controllers?.idle(), second.controllers?.idle()]);
    expect(logs.map(controllerWarnings)).toEqual([[], []]);
  });
});
