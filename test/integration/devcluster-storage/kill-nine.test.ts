import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/devcluster/storage/open-store.js';
import type { Store } from '../../../src/devcluster/storage/types.js';
import { waitFor } from '../../support/wait-for.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../../..');
const builtModule = join(repoRoot, 'dist/devcluster/storage/open-store.js');
const fixture = join(here, 'fixtures/write-loop.mjs');

/** Fails (never skips) when dist/ is missing or older than the storage sources. */
function assertBuilt(): void {
  const rebuild = 'run `npx tsc -p tsconfig.build.json` (npm ci does it through prepare) before this test';
  if (!existsSync(builtModule)) {
    throw new Error(`${builtModule} is missing: ${rebuild}`);
  }
  const sourceDir = join(repoRoot, 'src/devcluster/storage');
  for (const file of readdirSync(sourceDir)) {
    if (!file.endsWith('.ts')) {
      continue;
    }
    const built = join(repoRoot, 'dist/devcluster/storage', file.replace(/\.ts$/, '.js'));
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(sourceDir, file)).mtimeMs) {
      throw new Error(`${built} is missing or older than its source: ${rebuild}`);
    }
  }
}


describe('durable store under kill -9', () => {
  let child: ChildProcess | undefined;
  let store: Store | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
    }
    await store?.close();
    if (dataDir !== undefined) {
      await rm(dataDir, { recursive: true, force: true });
    }
    child = undefined;
    store = undefined;
    dataDir = undefined;
  });

  it('keeps every write the killed process acknowledged', async () => {
    assertBuilt();
    dataDir = await mkdtemp(join(tmpdir(), 'vcsync-kill9-'));
    const acked = new Map<string, number>();
    let stderr = '';
    let buffered = '';
    const running = spawn(process.execPath, [fixture, builtModule, dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = running;
    running.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    running.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const match = /^ack (create|update) (\S+) (\d+)$/.exec(line);
        if (match?.[2] !== undefined && match[3] !== undefined) {
          acked.set(match[2], Math.max(acked.get(match[2]) ?? 0, Number(match[3])));
        }
      }
    });
    const exited = new Promise<void>((resolveExit) => running.once('exit', () => resolveExit()));
    const snapshot = join(dataDir, 'snapshot.jsonl');
    await waitFor('the child to acknowledge 400 objects and compact once', () => running.exitCode !== null || (acked.size >= 400 && existsSync(snapshot)));
    expect(running.exitCode, `child exited early: ${stderr}`).toBeNull();
    running.kill('SIGKILL');
    await exited;
    expect(running.signalCode).toBe('SIGKILL');

    // The dead child's lock is stale and taken over; the torn tail (if any) is ignored.
    store = await openStore({ dataDir });
    let highest = 0;
    for (const [name, revision] of acked) {
      const object = store.get({ resource: 'core/v1/endpoints', namespace: 'crash', name });
      expect(object, `acknowledged object ${name} is missing`).toBeDefined();
      expect(Number(object?.metadata.resourceVersion)).toBeGreaterThanOrEqual(revision);
      highest = Math.max(highest, revision);
    }
    expect(store.currentRevision()).toBeGreaterThanOrEqual(highest);
    const next = await store.create('core/v1/endpoints', { metadata: { name: 'after-crash', namespace: 'crash' } });
    expect(Number(next.metadata.resourceVersion)).toBe(store.currentRevision());
    expect(Number(next.metadata.resourceVersion)).toBeGreaterThan(highest);
  });
});
