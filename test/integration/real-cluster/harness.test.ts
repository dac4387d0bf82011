import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readKubeAssets } from '../../support/kube-assets.js';
import { freePorts } from '../../../testbed/free-ports.js';
import { startRealControlPlane } from '../../support/real-control-plane.js';
import { writeStandInKubeAssets } from '../../support/stand-in-kube-assets.js';
import { REPO_ROOT } from '../../support/vcsync-cli.js';
import { waitFor } from '../../support/wait-for.js';

// The harness's failure paths, with stand-in binaries (Node scripts), so they run everywhere:
// the real binaries are exercised by control-plane.test.ts when VCSYNC_KUBE_ASSETS is set.

/** Whether `pid` runs: false once it is gone or a zombie (this machine's init may never reap). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('startRealControlPlane failure paths (stand-in binaries)', () => {
  let dir: string;
  let events: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'real-cluster-harness-'));
    events = join(dir, 'events.log');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The control plane's temp dir, read from the log paths the error names. */
  function controlPlaneDir(error: Error | undefined): string {
    const match = /, (\S*vcsync-real-cluster-[^/\s]+)\/kube-apiserver\.log:\n/.exec(error?.message ?? '');
    if (match?.[1] === undefined) throw new Error(`no log path in ${error?.message}`);
    return match[1];
  }

  it('fails as soon as kube-apiserver exits, with its log, and stops etcd and removes its temp dir', async () => {
    const started = Date.now();
    const error = await startRealControlPlane({ assets: await writeStandInKubeAssets(dir, { apiserver: 'crash', events }), startTimeoutMs: 60_000 }).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(error?.message).toMatch(/^the real control plane did not start: kube-apiserver exited with code 1 before kube-apiserver at https:\/\/127\.0\.0\.1:\d+\/readyz was healthy\n/);
    expect(error?.message).toContain('--- kube-apiserver (exited with code 1), ');
    expect(error?.message).toContain('E0101 fake: failed to listen: address already in use');
    expect(Date.now() - started).toBeLessThan(30_000); // not the 60 s deadline
    expect(await readFile(events, 'utf8')).toBe('etcd SIGTERM\n');
    expect(existsSync(controlPlaneDir(error))).toBe(false);
  });

  it('starts again on fresh ports while kube-apiserver finds its port taken, three attempts, then fails saying so', async () => {
    const attempts: number[][] = [];
    const error = await startRealControlPlane({
      assets: await writeStandInKubeAssets(dir, { apiserver: 'port-taken', events }),
      startTimeoutMs: 60_000,
      ports: async (count) => {
        const ports = await freePorts(count);
        attempts.push(ports);
        return ports;
      },
    }).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((ports) => ports[2])).size).toBe(3);
    const last = attempts[2]?.[2];
    expect(error?.message).toMatch(
      new RegExp(`^the real control plane did not start: each of 3 attempts on fresh ports found one taken; the last: kube-apiserver exited with code 1 before kube-apiserver at https://127\\.0\\.0\\.1:${last}/readyz was healthy\n`),
    );
    expect(error?.message).toContain(`listen tcp 127.0.0.1:${last}: bind: address already in use`);
    // Each attempt stopped its etcd and removed its temp dir.
    expect(await readFile(events, 'utf8')).toBe('etcd SIGTERM\netcd SIGTERM\netcd SIGTERM\n');
    expect(existsSync(controlPlaneDir(error))).toBe(false);
  });

  it('fails at the deadline when kube-apiserver never gets ready, and kills what ignores SIGTERM', async () => {
    const error = await startRealControlPlane({ assets: await writeStandInKubeAssets(dir, { apiserver: 'stuck', events }), startTimeoutMs: 5_000, stopGraceMs: 500 }).then(
      () => undefined,
      (err: unknown) => err as Error,
    );
    expect(error?.message).toMatch(/^the real control plane did not start: timed out waiting for kube-apiserver at https:\/\/127\.0\.0\.1:\d+\/readyz\n/);
    expect(error?.message).toContain('--- kube-apiserver (running), ');
    // etcd is stopped only after kube-apiserver has exited: SIGKILL ended what SIGTERM did not.
    expect(await readFile(events, 'utf8')).toBe('apiserver ignored SIGTERM\netcd SIGTERM\n');
    expect(existsSync(controlPlaneDir(error))).toBe(false);
  });

  it('names the missing binary and how to build it when the assets directory is incomplete', async () => {
    await writeStandInKubeAssets(dir, { apiserver: 'crash', events });
    await rm(join(dir, 'kube-controller-manager'));
    expect(() => readKubeAssets(dir)).toThrow(
      new RegExp(`^${join(dir, 'kube-controller-manager')} is missing or not executable \\(VCSYNC_KUBE_ASSETS=${dir}\\): run \`export VCSYNC_KUBE_ASSETS=.*npm run --silent kube-assets`),
    );
    expect(existsSync(join(dir, 'kube-apiserver'))).toBe(true);
  });

  it('kills the processes of a control plane that a test file never closed, when vitest ends its worker', async () => {
    const vitest = join(REPO_ROOT, 'node_modules/vitest/vitest.mjs');
    const config = join(REPO_ROOT, 'test/integration/real-cluster/fixtures/vitest.config.ts');
    const run = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(process.execPath, [vitest, 'run', '--config', config], { cwd: REPO_ROOT, env: { ...process.env, STAND_IN_DIR: dir }, timeout: 60_000 }, (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, output: stdout + stderr });
      });
    });
    const pids = ['etcd', 'kube-apiserver'].map((name) => Number(readFileSync(join(dir, `${name}.pid`), 'utf8')));
    try {
      expect(run.code, run.output).toBe(0);
      await waitFor('the abandoned etcd and kube-apiserver to be killed', () => pids.every((pid) => !running(pid)), { timeoutMs: 10_000 });
    } finally {
      for (const pid of pids.filter(running)) process.kill(pid, 'SIGKILL');
      await rm(await readFile(join(dir, 'plane-dir'), 'utf8').catch(() => join(dir, 'none')), { recursive: true, force: true });
    }
  });
});
