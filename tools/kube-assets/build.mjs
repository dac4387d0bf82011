#!/usr/bin/env node
// `npm run kube-assets`: builds the real kube-apiserver, kube-controller-manager, kubectl and etcd
// from the Go modules beside this file, once, into a cache directory outside the repository keyed
// by the versions and by a hash of every input (go.mod, go.sum, main packages, this script), and
// prints that directory as the last line of stdout. A second run with the same inputs finds the
// four binaries and prints the directory at once. Progress goes to stderr.
//
// Tests read the directory from VCSYNC_KUBE_ASSETS:
//   export VCSYNC_KUBE_ASSETS="$(npm run --silent kube-assets | tail -n 1)"
//
// Environment: XDG_CACHE_HOME (default ~/.cache) chooses the cache root; the Go build and module
// caches (GOCACHE, GOMODCACHE) make a rebuild after an input change fast.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const moduleDir = dirname(fileURLToPath(import.meta.url));
const etcdModuleDir = join(moduleDir, 'cmd', 'etcd');

/** The binaries, each with the module it is built in and its main package there. */
const BINARIES = [
  { name: 'etcd', dir: etcdModuleDir, pkg: '.' },
  { name: 'kube-apiserver', dir: moduleDir, pkg: './cmd/kube-apiserver' },
  { name: 'kube-controller-manager', dir: moduleDir, pkg: './cmd/kube-controller-manager' },
  { name: 'kubectl', dir: moduleDir, pkg: './cmd/kubectl' },
];

/** Every file whose content decides what gets built: any change makes a new cache directory. */
const INPUTS = [
  'build.mjs',
  'go.mod',
  'go.sum',
  'cmd/kube-apiserver/main.go',
  'cmd/kube-controller-manager/main.go',
  'cmd/kubectl/main.go',
  'cmd/etcd/main.go',
  'cmd/etcd/go.mod',
  'cmd/etcd/go.sum',
];

function fail(message) {
  process.stderr.write(`kube-assets: ${message}\n`);
  process.exit(1);
}

/** The version a go.mod requires of `modulePath`, e.g. "v1.36.3". */
function requiredVersion(goModFile, modulePath) {
  const text = readFileSync(goModFile, 'utf8');
  const escaped = modulePath.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm').exec(text);
  if (match?.[1] === undefined) fail(`${goModFile} does not require ${modulePath}: fix the go.mod.`);
  return match[1];
}

/** -ldflags for the Kubernetes binaries: what hack/lib/version.sh sets, so /version is real. */
function kubernetesLdflags(version) {
  const [major, minor] = version.replace(/^v/, '').split('.');
  const vars = { gitVersion: version, gitMajor: major, gitMinor: minor, gitTreeState: 'clean' };
  const flags = ['-s', '-w'];
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
    for (const [key, value] of Object.entries(vars)) flags.push(`-X ${pkg}.${key}=${value}`);
  }
  return flags.join(' ');
}

const goCheck = spawnSync('go', ['version'], { encoding: 'utf8' });
if (goCheck.error !== undefined || goCheck.status !== 0) {
  fail(
    'Go is not runnable here (' +
      (goCheck.error?.message ?? goCheck.stderr.trim()) +
      '). Install Go 1.26 or newer (https://go.dev/doc/install, or your package manager) and put `go` on PATH, then run `npm run kube-assets` again.',
  );
}

const kubernetesVersion = requiredVersion(join(moduleDir, 'go.mod'), 'k8s.io/kubernetes');
const etcdVersion = requiredVersion(join(etcdModuleDir, 'go.mod'), 'go.etcd.io/etcd/server/v3');
const hash = createHash('sha256');
for (const input of INPUTS) hash.update(`${input}\0`).update(readFileSync(join(moduleDir, input))).update('\0');
const cacheRoot = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'vcsync', 'kube-assets');
const assetsDir = join(cacheRoot, `${kubernetesVersion}-etcd${etcdVersion.replace(/^v/, '')}-${hash.digest('hex').slice(0, 12)}`);

if (BINARIES.every((binary) => existsSync(join(assetsDir, binary.name)))) {
  process.stdout.write(`${assetsDir}\n`);
  process.exit(0);
}

mkdirSync(cacheRoot, { recursive: true });
// Built in a sibling temp dir and renamed into place, so a directory named like assetsDir always
// holds a complete set, even after an interrupted build or with two builds at once.
const buildDir = mkdtempSync(join(cacheRoot, '.build-'));
try {
  for (const binary of BINARIES) {
    const started = Date.now();
    process.stderr.write(`kube-assets: building ${binary.name} (${binary.name === 'etcd' ? etcdVersion : kubernetesVersion})…\n`);
    const ldflags = binary.name === 'etcd' ? '-s -w' : kubernetesLdflags(kubernetesVersion);
    const build = spawnSync(
      'go',
      ['build', '-trimpath', '-buildvcs=false', '-ldflags', ldflags, '-o', join(buildDir, binary.name), binary.pkg],
      // CGO off as in Kubernetes' and etcd's release builds: static binaries, no C toolchain needed.
      { cwd: binary.dir, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, CGO_ENABLED: '0' } },
    );
    if (build.error !== undefined || build.status !== 0) {
      rmSync(buildDir, { recursive: true, force: true });
      fail(`go build of ${binary.name} in ${binary.dir} failed (${build.error?.message ?? `exit ${build.status}`}); its errors are above.`);
    }
    process.stderr.write(`kube-assets: built ${binary.name} in ${Math.round((Date.now() - started) / 1000)} s\n`);
  }
  writeFileSync(
    join(buildDir, 'versions.json'),
    `${JSON.stringify({ kubernetes: kubernetesVersion, etcd: etcdVersion }, null, 2)}\n`,
  );
  rmSync(assetsDir, { recursive: true, force: true });
  renameSync(buildDir, assetsDir);
} finally {
  rmSync(buildDir, { recursive: true, force: true });
}
process.stdout.write(`${assetsDir}\n`);
