#!/usr/bin/env node
// `npm run kube-assets`: builds the real kube-apiserver, kube-controller-manager, kubectl and etcd
// from the Go modules beside this file, once, into a cache directory outside the repository keyed
// by the versions and by a hash of every input (go.mod, go.sum, main packages, the build scripts),
// and prints that directory as the last line of stdout. A second run with the same inputs finds
// the four binaries and prints the directory at once. Progress goes to stderr.
//
// Tests read the directory from VCSYNC_KUBE_ASSETS:
//   export VCSYNC_KUBE_ASSETS="$(npm run --silent kube-assets | tail -n 1)"
//
// Environment: XDG_CACHE_HOME (default ~/.cache) chooses the cache root; the Go build and module
// caches (GOCACHE, GOMODCACHE) make a rebuild after an input change fast.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCached, cacheEntry, requiredVersion, requireGo, runBuildScript } from '../go-binaries.mjs';

const TOOL = 'kube-assets';
const moduleDir = dirname(fileURLToPath(import.meta.url));
const etcdModuleDir = join(moduleDir, 'cmd', 'etcd');

/** Every file whose content decides what gets built: any change makes a new cache directory. */
const INPUTS = [
  'build.mjs',
  '../go-binaries.mjs',
  'go.mod',
  'go.sum',
  'cmd/kube-apiserver/main.go',
  'cmd/kube-controller-manager/main.go',
  'cmd/kubectl/main.go',
  'cmd/etcd/main.go',
  'cmd/etcd/go.mod',
  'cmd/etcd/go.sum',
];

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

runBuildScript(TOOL, () => {
  requireGo('npm run kube-assets');
  const kubernetes = requiredVersion(join(moduleDir, 'go.mod'), 'k8s.io/kubernetes');
  const etcd = requiredVersion(join(etcdModuleDir, 'go.mod'), 'go.etcd.io/etcd/server/v3');
  const ldflags = kubernetesLdflags(kubernetes);
  return buildCached({
    tool: TOOL,
    entry: cacheEntry({ tool: TOOL, label: `${kubernetes}-etcd${etcd.replace(/^v/, '')}`, baseDir: moduleDir, inputs: INPUTS }),
    // Each binary with the module it is built in and its main package there.
    binaries: [
      { name: 'etcd', dir: etcdModuleDir, pkg: '.', ldflags: '-s -w', version: etcd },
      { name: 'kube-apiserver', dir: moduleDir, pkg: './cmd/kube-apiserver', ldflags, version: kubernetes },
      { name: 'kube-controller-manager', dir: moduleDir, pkg: './cmd/kube-controller-manager', ldflags, version: kubernetes },
      { name: 'kubectl', dir: moduleDir, pkg: './cmd/kubectl', ldflags, version: kubernetes },
    ],
    versions: { kubernetes, etcd },
  });
});
