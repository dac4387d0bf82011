import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/vcsync-cli.js';

const BUILD_SCRIPT = join(REPO_ROOT, 'tools/kube-assets/build.mjs');

/** A `go` stand-in (a Node script): logs each call as JSON, `go build -o X` writes an executable X. */
const FAKE_GO = `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(process.env.FAKE_GO_LOG, JSON.stringify({ cwd: process.cwd(), args, cgo: process.env.CGO_ENABLED }) + '\\n');
if (args[0] === 'version') { console.log('go version go1.26.8 linux/amd64'); process.exit(0); }
const out = args[args.indexOf('-o') + 1];
if (process.env.FAKE_GO_FAIL !== undefined && out.endsWith('/' + process.env.FAKE_GO_FAIL)) { console.error('compile error'); process.exit(2); }
fs.writeFileSync(out, '#!/bin/sh\\n', { mode: 0o755 });
`;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runBuild(env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILD_SCRIPT], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function requiredVersion(goMod: string, module: string): string {
  const match = new RegExp(`^\\s*(?:require\\s+)?${module.replace(/[./]/g, '\\$&')}\\s+(v\\S+)`, 'm').exec(goMod);
  if (match?.[1] === undefined) throw new Error(`go.mod does not require ${module}`);
  return match[1];
}

describe('npm run kube-assets (tools/kube-assets/build.mjs)', () => {
  let dir: string;
  let env: Record<string, string>;
  let goLog: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kube-assets-build-'));
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'go'), FAKE_GO);
    await chmod(join(bin, 'go'), 0o755);
    goLog = join(dir, 'go.log');
    env = { PATH: bin, HOME: dir, XDG_CACHE_HOME: join(dir, 'cache'), FAKE_GO_LOG: goLog };
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function goCalls(): Promise<{ cwd: string; args: string[]; cgo?: string }[]> {
    const text = await readFile(goLog, 'utf8').catch(() => '');
    return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { cwd: string; args: string[]; cgo?: string });
  }

  it('fails with what to do when Go is not on PATH', async () => {
    const run = await runBuild({ ...env, PATH: join(dir, 'nowhere') });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^kube-assets: Go is not runnable here \(.*ENOENT.*\)\. Install Go 1\.26 or newer .* then run `npm run kube-assets` again\.\n$/);
  });

  it('builds the four binaries with the real version stamped, prints their directory last, and the second run builds nothing', async () => {
    const kubernetes = requiredVersion(await readFile(join(REPO_ROOT, 'tools/kube-assets/go.mod'), 'utf8'), 'k8s.io/kubernetes');
    const etcd = requiredVersion(await readFile(join(REPO_ROOT, 'tools/kube-assets/cmd/etcd/go.mod'), 'utf8'), 'go.etcd.io/etcd/server/v3');

    const first = await runBuild(env);
    expect(first.stderr).not.toMatch(/failed/);
    expect(first.code).toBe(0);
    const assets = first.stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(assets).toMatch(new RegExp(`^${join(dir, 'cache', 'vcsync', 'kube-assets')}/${kubernetes.replace(/\./g, '\\.')}-etcd${etcd.slice(1).replace(/\./g, '\\.')}-[0-9a-f]{12}$`));
    expect((await readdir(assets)).sort()).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kubectl', 'versions.json']);
    expect(JSON.parse(await readFile(join(assets, 'versions.json'), 'utf8'))).toEqual({ kubernetes, etcd });
    expect(await readdir(join(dir, 'cache', 'vcsync', 'kube-assets'))).toEqual([assets.split('/').at(-1)]);

    const builds = (await goCalls()).filter((call) => call.args[0] === 'build');
    expect(builds.map((call) => call.args.at(-1))).toEqual(['.', './cmd/kube-apiserver', './cmd/kube-controller-manager', './cmd/kubectl']);
    expect(builds[0]?.cwd).toBe(join(REPO_ROOT, 'tools/kube-assets/cmd/etcd'));
    for (const call of builds) {
      expect(call.args).toEqual(expect.arrayContaining(['-trimpath', '-buildvcs=false']));
      expect(call.cgo).toBe('0');
    }
    for (const call of builds.slice(1)) {
      const ldflags = call.args[call.args.indexOf('-ldflags') + 1] ?? '';
      const [major, minor] = kubernetes.slice(1).split('.');
      for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
        expect(ldflags).toContain(`-X ${pkg}.gitVersion=${kubernetes}`);
        expect(ldflags).toContain(`-X ${pkg}.gitMajor=${major}`);
        expect(ldflags).toContain(`-X ${pkg}.gitMinor=${minor}`);
      }
    }

    const second = await runBuild(env);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(`${assets}\n`);
    expect((await goCalls()).filter((call) => call.args[0] === 'build')).toHaveLength(4);
  });

  it('fails and leaves no directory behind when a build fails', async () => {
    const run = await runBuild({ ...env, FAKE_GO_FAIL: 'kube-controller-manager' });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('compile error');
    expect(run.stderr).toMatch(/kube-assets: go build of kube-controller-manager in .*tools\/kube-assets failed \(exit 2\); its errors are above\./);
    expect(await readdir(join(dir, 'cache', 'vcsync', 'kube-assets'))).toEqual([]);
  });
});
