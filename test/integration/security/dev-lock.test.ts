// A restart right after `kill -9` starts at once. A process killed
// by SIGKILL stays a zombie until its parent reaps it; its files and sockets are already closed,
// so the lock it "holds" is no lock. Here the killed `vcsync dev` is the child of a `sleep` that
// never reaps, so it stays a zombie for the whole test, deterministically.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseProcStat } from '../../../src/devcluster/storage/process-liveness.js';
import { stopProcess } from '../../support/devcluster-process.js';
import { assertBuilt, REPO_ROOT, VCSYNC_NODE_ARGS } from '../../support/vcsync-cli.js';
import { VcsyncDevProcess } from '../../support/vcsync-dev-process.js';
import { waitFor } from '../../support/wait-for.js';

async function procState(pid: number): Promise<string | undefined> {
  try {
    return parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'))?.state;
  } catch {
    return undefined; // gone
  }
}

describe.skipIf(process.platform !== 'linux')('a restart after kill -9', () => {
  const children: ChildProcess[] = [];
  const restarted: VcsyncDevProcess[] = [];
  const dirs: string[] = [];

  afterEach(async () => {
    for (const dev of restarted.splice(0)) await dev.kill();
    for (const child of children.splice(0)) await stopProcess(child);
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it('starts vcsync dev at once on the data of a killed vcsync dev its parent has not reaped yet', { timeout: 150_000 }, async () => {
    assertBuilt();
    const dir = await mkdtemp(join(tmpdir(), 'vcsync-dev-lock-'));
    const home = await mkdtemp(join(tmpdir(), 'vcsync-dev-lock-home-'));
    dirs.push(dir, home);

    // bash starts vcsync dev in the background, prints its pid, then becomes `sleep`, which never
    // waits for children: the killed vcsync dev stays a zombie until the test stops the sleep.
    const args = [...VCSYNC_NODE_ARGS, 'dev', '--dir', dir].map((a) => `'${a}'`).join(' ');
    const parent = spawn('bash', ['-c', `'${process.execPath}' ${args} >"$1" 2>&1 & echo $!; exec sleep 600`, 'bash', join(home, 'first-dev.log')], {
      cwd: REPO_ROOT,
      env: { ...process.env, HOME: home },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(parent);
    let pidText = '';
    parent.stdout?.on('data', (chunk: Buffer) => (pidText += chunk.toString('utf8')));
    const pid = await waitFor('the first vcsync dev pid', () => {
      const n = Number.parseInt(pidText.trim(), 10);
      return Number.isSafeInteger(n) && n > 0 ? n : undefined;
    });
    // Its management data directory is locked once the management API runs.
    await waitFor('the first vcsync dev to write its management kubeconfig', async () => {
      await readFile(join(dir, 'management.kubeconfig'), 'utf8');
      return true;
    }, { timeoutMs: 60_000, intervalMs: 50 });

    process.kill(pid, 'SIGKILL');
    await waitFor('the killed vcsync dev to be a zombie', async () => (await procState(pid)) === 'Z');

    const second = VcsyncDevProcess.spawn(dir, [], { HOME: home });
    restarted.push(second);
    await second.running();
    expect(second.stderr + second.stdout).not.toContain('is in use by process');
    expect(await procState(pid)).toBe('Z'); // still not reaped: the restart did not wait for it
  });
});
