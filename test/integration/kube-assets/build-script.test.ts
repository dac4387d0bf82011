import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeGo, goModRequires as requiredVersion } from '../../support/fake-go.js';
import { REPO_ROOT } from '../../support/vcsync-cli.js';

const BUILD_SCRIPT = join(REPO_ROOT, 'tools/kube-assets/build.mjs');

describe('npm run kube-assets (tools/kube-assets/build.mjs)', () => {
  let go: FakeGo;
  let dir: string;
  beforeEach(async () => {
    go = await FakeGo.create('kube-assets-build-');
    dir = go.dir;
  });
  afterEach(async () => {
    await go.remove();
  });

  it('fails with what to do when Go is not on PATH', async () => {
    const run = await go.run(BUILD_SCRIPT, { PATH: join(dir, 'nowhere') });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^kube-assets: Go is not runnable here \(.*ENOENT.*\)\. Install Go 1\.26 or newer .* then run `npm run kube-assets` again\.\n$/);
  });

  it('builds the four binaries with the real version stamped, prints their directory last, and the second run builds nothing', async () => {
    const kubernetes = requiredVersion(await readFile(join(REPO_ROOT, 'tools/kube-assets/go.mod'), 'utf8'), 'k8s.io/kubernetes');
    const etcd = requiredVersion(await readFile(join(REPO_ROOT, 'tools/kube-assets/cmd/etcd/go.mod'), 'utf8'), 'go.etcd.io/etcd/server/v3');

    const first = await go.run(BUILD_SCRIPT);
    expect(first.stderr).not.toMatch(/failed/);
    expect(first.code).toBe(0);
    const assets = first.stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(assets).toMatch(new RegExp(`^${join(dir, 'cache', 'vcsync', 'kube-assets')}/${kubernetes.replace(/\./g, '\\.')}-etcd${etcd.slice(1).replace(/\./g, '\\.')}-[0-9a-f]{12}$`));
    expect((await readdir(assets)).sort()).toEqual(['etcd', 'kube-apiserver', 'kube-controller-manager', 'kubectl', 'versions.json']);
    expect(JSON.parse(await readFile(join(assets, 'versions.json'), 'utf8'))).toEqual({ kubernetes, etcd });
    expect(await readdir(join(dir, 'cache', 'vcsync', 'kube-assets'))).toEqual([assets.split('/').at(-1)]);

    const builds = (await go.calls()).filter((call) => call.args[0] === 'build');
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

    const second = await go.run(BUILD_SCRIPT);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(`${assets}\n`);
    expect((await go.calls()).filter((call) => call.args[0] === 'build')).toHaveLength(4);
  });

  it('fails and leaves no directory behind when a build fails', async () => {
    const run = await go.run(BUILD_SCRIPT, { FAKE_GO_FAIL: 'kube-controller-manager' });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('compile error');
    expect(run.stderr).toMatch(/kube-assets: go build of kube-controller-manager in .*tools\/kube-assets failed \(exit 2\); its errors are above\./);
    expect(await readdir(join(dir, 'cache', 'vcsync', 'kube-assets'))).toEqual([]);
  });
});
