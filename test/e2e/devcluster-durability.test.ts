import { type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exited, startDevclusterProcess, stopProcess, type DevclusterProcess } from '../support/devcluster-process.js';
import { assertBuilt } from '../support/vcsync-cli.js';

async function start(dataDir: string, children: ChildProcessWithoutNullStreams[]): Promise<DevclusterProcess> {
  const running = await startDevclusterProcess(['--data-dir', dataDir, '--listen', '127.0.0.1:0']);
  children.push(running.child);
  return running;
}

describe('vcsync devcluster --data-dir', () => {
  const children: ChildProcessWithoutNullStreams[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) await stopProcess(child);
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged object across kill -9, and later writes get larger resourceVersions', async () => {
    assertBuilt(['src/apiserver', 'src/apiserver/security', 'src/devcluster', 'src/devcluster/storage', 'src/cli']);
    const dataDir = await mkdtemp(join(tmpdir(), 'devcluster-durable-'));
    dirs.push(dataDir);
    const first = await start(dataDir, children);
    const count = 50;
    let highest = 0;
    for (let index = 0; index < count; index += 1) {
      const response = await fetch(`${first.url}/api/v1/namespaces/default/endpoints`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { name: `ep-${index}` }, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] }),
      });
      expect(response.status).toBe(201);
      highest = Math.max(highest, Number(((await response.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion));
    }
    first.child.kill('SIGKILL');
    expect((await exited(first.child)).signal).toBe('SIGKILL');

    const second = await start(dataDir, children);
    const list = (await (await fetch(`${second.url}/api/v1/namespaces/default/endpoints`)).json()) as { items: { metadata: { name: string } }[]; metadata: { resourceVersion: string } };
    const names = new Set(list.items.map((item) => item.metadata.name));
    for (let index = 0; index < count; index += 1) expect(names.has(`ep-${index}`)).toBe(true);
    expect(Number(list.metadata.resourceVersion)).toBeGreaterThanOrEqual(highest);
    const later = await fetch(`${second.url}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'after-restart' } }),
    });
    expect(later.status).toBe(201);
    expect(Number(((await later.json()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion)).toBeGreaterThan(highest);

    second.child.kill('SIGTERM');
    expect(await exited(second.child)).toEqual({ code: 0, signal: null });
  });
});
