import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readKubeAssets } from '../../support/kube-assets.js';
import { startRealControlPlane } from '../../support/real-control-plane.js';

// The harness's failure paths, with stand-in binaries (Node scripts), so they run everywhere:
// the real binaries are exercised by control-plane.test.ts when VCSYNC_KUBE_ASSETS is set.

/** A stand-in etcd: serves 200 on its client URL and records SIGTERM in `events`. */
const fakeEtcd = (events: string): string => `#!${process.execPath}
const fs = require('node:fs');
const url = new URL(process.argv.find((a) => a.startsWith('--listen-client-urls=')).split('=')[1]);
require('node:http').createServer((req, res) => res.end('{"health":"true"}')).listen(Number(url.port), url.hostname);
process.on('SIGTERM', () => { fs.appendFileSync(${JSON.stringify(events)}, 'etcd SIGTERM\\n'); process.exit(0); });
`;

/** A kube-apiserver that prints why it cannot start and exits 1. */
const crashingApiserver = `#!${process.execPath}
console.error('E0101 fake: failed to listen: address already in use');
process.exit(1);
`;

/** A kube-apiserver that never gets ready and ignores SIGTERM (only SIGKILL ends it). */
const stuckApiserver = (events: string): string => `#!${process.execPath}
const fs = require('node:fs');
process.on('SIGTERM', () => fs.appendFileSync(${JSON.stringify(events)}, 'apiserver ignored SIGTERM\\n'));
setInterval(() => {}, 1000);
`;

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

  async function assets(apiserver: string): Promise<ReturnType<typeof readKubeAssets>> {
    const scripts = { etcd: fakeEtcd(events), 'kube-apiserver': apiserver, 'kube-controller-manager': crashingApiserver, kubectl: crashingApiserver };
    for (const [name, text] of Object.entries(scripts)) {
      await writeFile(join(dir, name), text);
      await chmod(join(dir, name), 0o755);
    }
    await writeFile(join(dir, 'versions.json'), JSON.stringify({ kubernetes: 'v1.36.3', etcd: 'v3.6.16' }));
    return readKubeAssets(dir);
  }

  /** The control plane's temp dir, read from the log paths the error names. */
  function controlPlaneDir(error: Error | undefined): string {
    const match = /, (\S*vcsync-real-cluster-[^/\s]+)\/kube-apiserver\.log:\n/.exec(error?.message ?? '');
    if (match?.[1] === undefined) throw new Error(`no log path in ${error?.message}`);
    return match[1];
  }

  it('fails as soon as kube-apiserver exits, with its log, and stops etcd and removes its temp dir', async () => {
    const started = Date.now();
    const error = await startRealControlPlane({ assets: await assets(crashingApiserver), startTimeoutMs: 60_000 }).then(
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

  it('fails at the deadline when kube-apiserver never gets ready, and kills what ignores SIGTERM', async () => {
    const error = await startRealControlPlane({ assets: await assets(stuckApiserver(events)), startTimeoutMs: 5_000, stopGraceMs: 500 }).then(
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
    await assets(crashingApiserver);
    await rm(join(dir, 'kube-controller-manager'));
    expect(() => readKubeAssets(dir)).toThrow(
      new RegExp(`^${join(dir, 'kube-controller-manager')} is missing or not executable \\(VCSYNC_KUBE_ASSETS=${dir}\\): run \`export VCSYNC_KUBE_ASSETS=.*npm run --silent kube-assets`),
    );
    expect(existsSync(join(dir, 'kube-apiserver'))).toBe(true);
  });
});
