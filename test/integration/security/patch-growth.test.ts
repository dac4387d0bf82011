import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyDoublingPatch, manyOperationsPatch, stringDoublingPatch } from '../../../testbed/fuzz/growing-patches.js';
import { startDevclusterProcess, stopProcess, type DevclusterProcess } from '../../support/devcluster-process.js';
import { startFixture, type Fixture } from '../../support/devcluster-fixture.js';
import { callManagement, KEYS_PATH, ManagementFixture, type Answer } from '../../support/management-fixture.js';
import { assertBuilt } from '../../support/vcsync-cli.js';
import { VcsyncDevProcess } from '../../support/vcsync-dev-process.js';

// A small patch must not grow an object without bound. The two reported patches (11 KB
// of copies of /spec, a 2 KB string doubled 19 times) are sent as written to servers in their own
// processes, each with its heap capped and every request bounded by an abort: before the fix the
// process ran out of heap (or the request was aborted), so these fail fast instead of taking the
// test worker down. The limits themselves are checked in-process with patches that the old code
// answered quickly (with a result past every limit).

const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const MiB = 1024 * 1024;
/** How long one request of the reproduction may take before it counts as a hang. */
const REQUEST_DEADLINE_MS = 30_000;
const COPY_LIMIT = /past the limit of 3145728 bytes \(3 MiB\)/;

/** A patch within 400 KB whose copies add past 3 MiB while its result stays small enough for the old code to answer at once. */
function scaledCopyPatch(container: string): unknown[] {
  return [
    { op: 'add', path: `${container}/description`, value: 'x'.repeat(400 * 1024) },
    { op: 'copy', from: container, path: `${container}/copy-0` },
    { op: 'copy', from: container, path: `${container}/copy-1` },
    { op: 'copy', from: container, path: `${container}/copy-2` },
  ];
}

describe('a small patch cannot grow an object without bound', () => {
  describe('a standalone vcsync devcluster in its own process, heap capped at 512 MiB', () => {
    let server: DevclusterProcess;
    const CM = '/api/v1/namespaces/default/configmaps';

    beforeAll(async () => {
      assertBuilt(['src/apiserver', 'src/devcluster']);
      server = await startDevclusterProcess(['--listen', '127.0.0.1:0'], ['--max-old-space-size=512']);
      const created = await fetch(`${server.url}${CM}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'victim', annotations: { owner: 'carol' } }, data: { a: 'b' } }),
      });
      expect(created.status).toBe(201);
    }, 60_000);
    afterAll(async () => {
      await stopProcess(server.child);
    });

    const reproductions: [string, unknown[]][] = [
      ['the 11 KB patch: a 1,000-item list, then 16 copies of the annotations', copyDoublingPatch('/metadata/annotations')],
      ['the 2 KB patch: a 1 KB string doubled 19 times', stringDoublingPatch('/metadata/annotations')],
    ];
    it.each(reproductions)('%s, with dryRun=All: 422 naming the limit; a concurrent GET answers; the process lives', async (_, patch) => {
      expect(JSON.stringify(patch).length).toBeLessThan(12 * 1024);
      const patched = fetch(`${server.url}${CM}/victim?dryRun=All`, {
        method: 'PATCH',
        headers: { 'content-type': JSON_PATCH },
        body: JSON.stringify(patch),
        signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
      });
      const read = fetch(`${server.url}${CM}/victim`, { signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
      const [answer, got] = await Promise.all([patched, read]);
      const status = (await answer.json()) as { kind: string; code: number; reason: string; message: string };
      expect({ code: answer.status, kind: status.kind, reason: status.reason }, server.stderr()).toEqual({ code: 422, kind: 'Status', reason: 'Invalid' });
      expect(status.message).toMatch(COPY_LIMIT);
      expect(got.status).toBe(200);
      const after = (await (await fetch(`${server.url}${CM}/victim`)).json()) as { metadata: { annotations: Record<string, string> } };
      expect(after.metadata.annotations).toEqual({ owner: 'carol' });
      expect(server.child.exitCode).toBeNull();
    }, 2 * REQUEST_DEADLINE_MS);
  });

  describe('vcsync dev in its own process, heap capped at 1 GiB: carol patches her own OwnedAccessKey', () => {
    let dev: VcsyncDevProcess | undefined;
    let dir: string;
    let target: { url: string; caCertPem: string };
    let adminKey: string;
    let carolKey: string;

    beforeAll(async () => {
      assertBuilt();
      dir = await mkdtemp(join(tmpdir(), 'patch-growth-dev-'));
      dev = VcsyncDevProcess.spawn(dir, ['--log-level', 'warn'], {}, ['--max-old-space-size=1024']);
      await dev.running();
      const management = await dev.management();
      target = { url: management.url, caCertPem: management.caCertPem };
      adminKey = management.adminKey;
      const created = await callManagement(target, 'POST', KEYS_PATH, {
        key: adminKey,
        body: { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name: 'carol-key' }, spec: { user: 'carol', description: 'mine' } },
      });
      expect(created.status, created.text).toBe(201);
      carolKey = created.body.spec.key as string;
    }, 90_000);
    afterAll(async () => {
      await dev?.kill();
      await rm(dir, { recursive: true, force: true });
    });

    const reproductions: [string, unknown[]][] = [
      ['the 11 KB patch: a 1,000-item list under /spec/description, then 16 copies of /spec', copyDoublingPatch('/spec')],
      ['the 2 KB patch: a 1 KB string doubled 19 times', stringDoublingPatch('/spec')],
    ];
    it.each(reproductions)('%s, with dryRun=All: 422 naming the limit; a GET by another key answers meanwhile; the process lives', async (_, patch) => {
      const patched = callManagement(target, 'PATCH', `${KEYS_PATH}/carol-key?dryRun=All`, { key: carolKey, contentType: JSON_PATCH, body: patch, signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
      const read = callManagement(target, 'GET', KEYS_PATH, { key: adminKey, signal: AbortSignal.timeout(REQUEST_DEADLINE_MS) });
      const [answer, listed] = await Promise.all([patched, read]);
      expect({ code: answer.status, kind: answer.body.kind, reason: answer.body.reason }, answer.text.slice(0, 300)).toEqual({ code: 422, kind: 'Status', reason: 'Invalid' });
      expect(answer.body.message).toMatch(COPY_LIMIT);
      expect(listed.status).toBe(200);
      const after = await callManagement(target, 'GET', `${KEYS_PATH}/carol-key`, { key: carolKey });
      expect(after.body.spec.description).toBe('mine');
      expect(dev?.exit).toBeUndefined();
    }, 2 * REQUEST_DEADLINE_MS);
  });

  describe('the limits, on the devcluster', () => {
    let fx: Fixture;
    const CM = '/api/v1/namespaces/default/configmaps';
    let stored: string;

    beforeAll(async () => {
      fx = await startFixture();
      const created = await fx.request(CM, { method: 'POST', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', annotations: { a: 'b' } }, data: { a: 'b' } } });
      expect(created.status).toBe(201);
      stored = created.body.metadata.resourceVersion as string;
    });
    afterAll(async () => {
      // Nothing the refused writes sent was stored.
      const after = await fx.request(`${CM}/c`);
      expect(after.body.metadata.resourceVersion).toBe(stored);
      await fx.cluster.close();
    });

    it('more than 10,000 JSON patch operations: 413 with kube-apiserver’s message', async () => {
      const answer = await fx.request(`${CM}/c`, { method: 'PATCH', contentType: JSON_PATCH, body: manyOperationsPatch(10_001) });
      expect(answer.status).toBe(413);
      expect(answer.body).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413, message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001' });
    });

    it.each([['', 'stored'], ['?dryRun=All', 'dry run']])('copies past 3 MiB in all (%s, %s): 422 at the copy that passes the limit', async (query) => {
      const answer = await fx.request(`${CM}/c${query}`, { method: 'PATCH', contentType: JSON_PATCH, body: scaledCopyPatch('/metadata/annotations') });
      expect(answer.status).toBe(422);
      expect(answer.body.message).toMatch(/operation 3 of the JSON patch: copying "\/metadata\/annotations" to "\/metadata\/annotations\/copy-2" brings the bytes the patch adds to \d+, past the limit/);
    });

    const tooLarge: [string, string, string, unknown][] = [
      ['a merge patch', 'PATCH', MERGE, { data: { big: 'x'.repeat(2 * MiB) } }],
      ['a strategic merge patch', 'PATCH', 'application/strategic-merge-patch+json', { data: { big: 'x'.repeat(2 * MiB) } }],
      ['a JSON patch', 'PATCH', JSON_PATCH, [{ op: 'add', path: '/data/big', value: 'x'.repeat(2 * MiB) }]],
      ['a server-side apply', 'PATCH', 'application/apply-patch+yaml', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { big: 'x'.repeat(2 * MiB) } })],
      ['a PUT', 'PUT', 'application/json', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { big: 'x'.repeat(2 * MiB) } }],
    ];
    it.each(tooLarge)('a result past 1.5 MiB from %s: 413 naming the object limit, under dryRun too', async (_, method, contentType, body) => {
      for (const query of ['?fieldManager=m', '?dryRun=All&fieldManager=m']) {
        const raw = typeof body === 'string' ? { rawBody: body } : { body };
        const answer = await fx.request(`${CM}/c${query}`, { method, contentType, ...raw });
        expect(answer.status, answer.text.slice(0, 300)).toBe(413);
        expect(answer.body).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge' });
        expect(answer.body.message).toMatch(/ConfigMap "c" would be \d+ bytes as JSON, more than 1572864 bytes \(1\.5 MiB\)/);
      }
    });

    it('a create past 1.5 MiB: 413, nothing created', async () => {
      const answer = await fx.request(CM, { method: 'POST', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { big: 'x'.repeat(2 * MiB) } } });
      expect(answer.status).toBe(413);
      expect((await fx.request(`${CM}/big`)).status).toBe(404);
    });

    it('annotations past 256 KiB in all: 422 as kube-apiserver words it', async () => {
      const answer = await fx.request(`${CM}/c?dryRun=All`, { method: 'PATCH', contentType: MERGE, body: { metadata: { annotations: { big: 'x'.repeat(256 * 1024) } } } });
      expect(answer.status).toBe(422);
      expect(answer.body.message).toBe('ConfigMap "c" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes');
    });
  });

  describe('the limits, on the management API (each object one host Secret: 1 MiB)', () => {
    let fixture: ManagementFixture;
    let carolKey: string;
    let stored: string;
    const carol = (method: string, path: string, body: unknown, contentType = MERGE): Promise<Answer> => fixture.call(method, path, { key: carolKey, contentType, body });

    beforeAll(async () => {
      fixture = await ManagementFixture.start();
      carolKey = await fixture.newKey('carol-key', { user: 'carol', description: 'mine' });
      stored = (await fixture.call('GET', `${KEYS_PATH}/carol-key`, { key: carolKey })).body.metadata.resourceVersion as string;
    });
    afterAll(async () => {
      const after = await fixture.call('GET', `${KEYS_PATH}/carol-key`, { key: carolKey });
      expect(after.body.metadata.resourceVersion).toBe(stored);
      await fixture.stop();
    });

    it('carol’s copies past 3 MiB in all, on her own key with dryRun=All: 422 naming the limit', async () => {
      const answer = await carol('PATCH', `${KEYS_PATH}/carol-key?dryRun=All`, scaledCopyPatch('/spec'), JSON_PATCH);
      expect(answer.status).toBe(422);
      expect(answer.body.message).toMatch(COPY_LIMIT);
    });

    it('more than 10,000 operations: 413', async () => {
      const answer = await carol('PATCH', `${KEYS_PATH}/carol-key`, manyOperationsPatch(10_001), JSON_PATCH);
      expect(answer.status).toBe(413);
    });

    it('a key past 1 MiB, by merge patch (dry run too) or by create: 413 naming the limit', async () => {
      for (const query of ['', '?dryRun=All']) {
        const answer = await carol('PATCH', `${KEYS_PATH}/carol-key${query}`, { spec: { description: 'x'.repeat(1.2 * MiB) } });
        expect(answer.status, answer.text.slice(0, 300)).toBe(413);
        expect(answer.body.message).toMatch(/OwnedAccessKey "carol-key" would be \d+ bytes as JSON, more than 1048576 bytes \(1 MiB\)/);
      }
      const created = await fixture.createKey({ user: 'carol', description: 'x'.repeat(1.2 * MiB) }, { name: 'carol-big', key: carolKey });
      expect(created.status).toBe(413);
      expect((await fixture.call('GET', `${KEYS_PATH}/carol-big`, { key: fixture.adminKey })).status).toBe(404);
    });

    it('annotations past 256 KiB: 422', async () => {
      const answer = await carol('PATCH', `${KEYS_PATH}/carol-key?dryRun=All`, { metadata: { annotations: { big: 'x'.repeat(256 * 1024) } } });
      expect(answer.status).toBe(422);
      expect(answer.body.message).toMatch(/metadata\.annotations: Too long: may not be more than 262144 bytes/);
    });
  });
});
