#!/usr/bin/env node
// `npm run helm-binary`: builds helm from the Go module beside this file (helm's own main package,
// named by go.mod's `tool` line), once, into ~/.cache/vcsync/helm/<version>-<hash of the inputs>,
// and prints the binary's path as the last line of stdout. A second run with the same inputs
// prints it at once. Progress goes to stderr.
//
// The chart's tests (test/integration/real-cluster/helm-chart.test.ts) read the path from VCSYNC_HELM:
//   export VCSYNC_HELM="$(npm run --silent helm-binary | tail -n 1)"
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCached, cacheEntry, requiredVersion, requireGo, runBuildScript } from '../go-binaries.mjs';

const TOOL = 'helm';
const HELM_MODULE = 'helm.sh/helm/v4';
const moduleDir = dirname(fileURLToPath(import.meta.url));

/** Every file whose content decides what gets built: any change makes a new cache directory. */
const INPUTS = ['build.mjs', 'go.mod', 'go.sum', '../go-binaries.mjs'];

runBuildScript(TOOL, () => {
  requireGo('npm run helm-binary');
  const version = requiredVersion(join(moduleDir, 'go.mod'), HELM_MODULE);
  const entry = cacheEntry({ tool: TOOL, label: version, baseDir: moduleDir, inputs: INPUTS });
  // What helm's Makefile sets for a release build, so `helm version` reports the real version.
  const ldflags = ['-s', '-w', `-X ${HELM_MODULE}/internal/version.version=${version}`, `-X ${HELM_MODULE}/internal/version.gitTreeState=clean`].join(' ');
  const dir = buildCached({
    tool: TOOL,
    entry,
    binaries: [{ name: 'helm', dir: moduleDir, pkg: `${HELM_MODULE}/cmd/helm`, ldflags, version }],
    versions: { helm: version },
  });
  return join(dir, 'helm');
});
