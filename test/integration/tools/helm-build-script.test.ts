import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeGo, goModRequires } from '../../support/fake-go.js';
import { REPO_ROOT } from '../../support/vcsync-cli.js';

const BUILD_SCRIPT = join(REPO_ROOT, 'tools/helm/build.mjs');

describe('npm run helm-binary (tools/helm/build.mjs)', () => {
  let go: FakeGo;
  beforeEach(async () => {
    go = await FakeGo.create('helm-build-');
  });
  afterEach(async () => {
    await go.remove();
  });

  it('fails with what to do when Go is not on PATH', async () => {
    const run = await go.run(BUILD_SCRIPT, { PATH: join(go.dir, 'nowhere') });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^helm: Go is not runnable here \(.*ENOENT.*\)\. Install Go 1\.26 or newer .* then run `npm run helm-binary` again\.\n$/);
  });

  it("builds helm's own main package with its version stamped into a cache entry of its own, prints the binary last, and the second run builds nothing", async () => {
    const version = goModRequires(await readFile(join(REPO_ROOT, 'tools/helm/go.mod'), 'utf8'), 'helm.sh/helm/v4');
    const first = await go.run(BUILD_SCRIPT);
    expect(first.code, first.stderr).toBe(0);
    const helm = first.stdout.trimEnd().split('\n').at(-1) ?? '';
    const cache = join(go.dir, 'cache', 'vcsync', 'helm');
    expect(helm).toMatch(new RegExp(`^${cache}/${version.replace(/\./g, '\\.')}-[0-9a-f]{12}/helm$`));
    expect((await readdir(join(helm, '..'))).sort()).toEqual(['helm', 'versions.json']);
    expect(JSON.parse(await readFile(join(helm, '..', 'versions.json'), 'utf8'))).toEqual({ helm: version });
    // Nothing of the kube-assets entry: building helm never touches the control plane's cache.
    expect(await readdir(join(go.dir, 'cache', 'vcsync'))).toEqual(['helm']);

    const builds = (await go.calls()).filter((call) => call.args[0] === 'build');
    expect(builds).toHaveLength(1);
    const build = builds[0] ?? { cwd: '', args: [] };
    expect(build.cwd).toBe(join(REPO_ROOT, 'tools/helm'));
    expect(build.args.at(-1)).toBe('helm.sh/helm/v4/cmd/helm');
    expect(build.args).toEqual(expect.arrayContaining(['-trimpath', '-buildvcs=false']));
    expect(build.args[build.args.indexOf('-ldflags') + 1]).toContain(`-X helm.sh/helm/v4/internal/version.version=${version}`);
    expect(build.cgo).toBe('0');

    const second = await go.run(BUILD_SCRIPT);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(`${helm}\n`);
    expect((await go.calls()).filter((call) => call.args[0] === 'build')).toHaveLength(1);
  });

  it('fails and leaves no directory behind when the build fails', async () => {
    const run = await go.run(BUILD_SCRIPT, { FAKE_GO_FAIL: 'helm' });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('compile error');
    expect(run.stderr).toMatch(/helm: go build of helm in .*tools\/helm failed \(exit 2\); its errors are above\./);
    expect(await readdir(join(go.dir, 'cache', 'vcsync', 'helm'))).toEqual([]);
  });
});
