import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { assertBuilt, VCSYNC_NODE_ARGS } from '../support/vcsync-cli.js';

interface Running {
  child: ChildProcessWithoutNullStreams;
  url: string;
}

function start(dataDir: string, children: ChildProcessWithoutNullStreams[]): Promise<Running> {
  const child = spawn(process.execPath, [...VCSYNC_NODE_ARGS, 'devcluster', '--data-dir', dataDir, '--listen', '127.0.0.1:0'], { env: { ...process.env, VCSYNC_LOG_LEVEL: 'warn' } });
  children.push(child);
  return new Promise((resolvePromise, reject) => {
    let output = '';
    let errors = '';
    const timer = setTimeout(() => reject(new Error(`devcluster did not start: ${output} ${errors}`)), 30_000);
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /devcluster listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolvePromise({ child, url: match[1] });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`devcluster exited with ${code}: ${output} ${errors}`));
    });
  });
}

function exited(child: ChildProcessWithoutNullStreams): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolvePromise) => child.once('exit', (code, signal) => resolvePromise({ code, signal })));
}

describe('vcsync devcluster --data-dir', () => {
  const children: ChildProcessWithoutNullStreams[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited(child);
      }
    }
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged object across kill -9, and later writes get larger resourceVersions', async () => {
    assertBuilt(['src/devcluster', 'src/devcluster/storage', 'src/cli']);
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
