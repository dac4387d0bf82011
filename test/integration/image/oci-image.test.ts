import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOciLayout } from '../../../tools/image/oci-layout.mjs';
import { exited, stopProcess } from '../../support/devcluster-process.js';
import { REPO_ROOT } from '../../support/vcsync-cli.js';

/**
 * The image `npm run image` assembles: built twice from the same tree it has the same digest;
 * unpacked to a root file system, mounted read-only in a private mount namespace and entered as
 * the image's user (what a pod with readOnlyRootFilesystem and runAsNonRoot does), its entrypoint
 * runs the CLI. The first build fetches Node.js, the Debian packages and the npm dependencies
 * (minutes); later ones reuse the cache under ~/.cache/vcsync/image.
 */
const BUILD_TIMEOUT_MS = 25 * 60_000;

function missingTool(tool: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0;
}

function skipReason(): string | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') return `the image is linux/amd64 and this is ${process.platform}/${process.arch}`;
  if (process.getuid?.() !== 0) return 'entering the image needs root (a mount namespace, bind mounts and setuid to the image user); run the test as root';
  const missing = ['unshare', 'mount', 'tar', 'apt-get', 'dpkg-deb', 'make', 'g++', 'python3'].filter(missingTool);
  if (missing.length > 0) return `${missing.join(', ')} not on PATH (util-linux, tar, apt, dpkg and a C++ toolchain build and enter the image)`;
  const probe = spawnSync('unshare', ['--mount', '--propagation', 'private', 'true']);
  if (probe.status !== 0) return `unshare --mount is refused here (${probe.stderr.toString().trim()}): mount namespaces are not available`;
  return undefined;
}

const SKIP = skipReason();

/** `npm run image -- --output DIR`: the digest it printed last. */
function buildImage(output: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'tools/image/build.mjs'), '--output', output], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const digest = stdout.trim().split('\n').at(-1) ?? '';
      if (code === 0 && /^sha256:[0-9a-f]{64}$/.test(digest)) resolvePromise(digest);
      else reject(new Error(`npm run image exited ${code}: ${stdout}\n${stderr}`));
    });
  });
}

interface ImageConfig {
  User: string;
  Env: readonly string[];
  Entrypoint: readonly string[];
  Cmd: readonly string[];
  WorkingDir: string;
}

/**
 * A mount namespace of its own: `root` bind-mounted read-only, a tmpfs on /tmp (the emptyDir a
 * pod mounts there), the host's /dev and a proc; then the command runs with that root, in the
 * image's working directory, as the image's user, with only the image's environment.
 */
function inImage(root: string, config: ImageConfig, command: readonly string[]): ChildProcess {
  const [uid, gid] = config.User.split(':');
  const setup = [
    'set -e',
    'mount --bind "$ROOT" "$ROOT"',
    'mount -o remount,bind,ro "$ROOT"',
    'mount -t tmpfs -o mode=1777 tmpfs "$ROOT/tmp"',
    'mount --rbind /dev "$ROOT/dev"',
    'mount -t proc proc "$ROOT/proc"',
    'exec env -i "$@"',
  ].join('\n');
  const enter = ['unshare', `--root=${root}`, `--wd=${config.WorkingDir}`, `--setgid=${gid}`, `--setuid=${uid}`, '--', ...command];
  return spawn('unshare', ['--mount', '--propagation', 'private', '--', 'sh', '-c', setup, 'sh', ...config.Env, ...enter], {
    env: { PATH: process.env.PATH, ROOT: root },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function runInImage(root: string, config: ImageConfig, command: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = inImage(root, config, command);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const { code } = await exited(child);
  return { code, stdout, stderr };
}

describe.skipIf(SKIP !== undefined)(`the OCI image (npm run image)${SKIP === undefined ? '' : ` — skipped: ${SKIP}`}`, () => {
  let work: string;
  let firstDigest: string;
  let secondDigest: string;
  let root: string;
  let config: ImageConfig;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'vcsync-image-test-'));
    firstDigest = await buildImage(join(work, 'first'));
    secondDigest = await buildImage(join(work, 'second'));
    const layout = await readOciLayout(join(work, 'first'));
    config = layout.config.config as ImageConfig;
    root = join(work, 'rootfs');
    await mkdir(root);
    for (const layer of layout.manifest.layers) {
      const unpack = spawnSync('tar', ['-xzpf', join(work, 'first', 'blobs', 'sha256', layer.digest.slice('sha256:'.length)), '--numeric-owner', '-C', root]);
      if (unpack.status !== 0) throw new Error(`unpacking ${layer.digest}: ${unpack.stderr.toString()}`);
    }
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  it('has the same digest when built twice from the same tree', () => {
    expect(secondDigest).toBe(firstDigest);
  });

  it('runs its entrypoint as uid 1000 on a read-only root: --version and validate', async () => {
    expect(config.User).toBe('1000:1000');
    const version = await runInImage(root, config, [...config.Entrypoint, '--version']);
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n' });
    const validate = await runInImage(root, config, [...config.Entrypoint, 'validate', '--config', 'config/vcluster.yaml']);
    expect(validate).toMatchObject({ code: 0, stdout: 'config/vcluster.yaml is valid\n', stderr: '' });
  });

  it('cannot write to / or /app, can write to /tmp, and is not root', async () => {
    const probe = [
      "const fs = require('node:fs');",
      'const tryWrite = (path) => { try { fs.writeFileSync(path, "x"); return "written"; } catch (e) { return e.code; } };',
      "console.log(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), groups: process.getgroups(), root: tryWrite('/probe'), app: tryWrite('/app/probe'), tmp: tryWrite('/tmp/probe') }));",
    ].join('\n');
    const result = await runInImage(root, config, ['node', '-e', probe]);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ uid: 1000, gid: 1000, groups: [1000], root: 'EROFS', app: 'EROFS', tmp: 'written' });
  });

  it('serves the devcluster and its health endpoint from inside the image', async () => {
    const child = inImage(root, config, [...config.Entrypoint, 'devcluster', '--listen', '127.0.0.1:0']);
    try {
      let output = '';
      const url = await new Promise<string>((resolvePromise, reject) => {
        child.stdout?.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /devcluster listening on (http\S+)/.exec(output);
          if (match?.[1] !== undefined) resolvePromise(match[1]);
        });
        child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.once('exit', (code) => reject(new Error(`devcluster in the image exited ${code}: ${output}`)));
      });
      const response = await fetch(`${url}/readyz`);
      expect(response.status).toBe(200);
    } finally {
      await stopProcess(child);
    }
  });
});
