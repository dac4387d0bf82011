import { execFile } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, REPO_ROOT } from '../../support/vcsync-cli.js';

/** `npm pack` lists a build of about 900 files; it took some seconds at a high load on two cores. */
const PACK_DEADLINE_MS = 50_000;

/** The paths `npm pack` would put in the package, from its `--dry-run --json` report. */
function packedPaths(): Promise<string[]> {
  return new Promise((resolve, reject) => {
    // --ignore-scripts: `prepare` would rebuild; the test checks the build that is there.
    execFile('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, timeout: PACK_DEADLINE_MS, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error !== null) {
        reject(new Error(`npm pack --dry-run failed: ${error.message}\n${stderr}`));
        return;
      }
      const report = JSON.parse(stdout) as { files: { path: string }[] }[];
      resolve(report.flatMap((entry) => entry.files.map((file) => file.path)));
    });
  });
}

describe('the npm package holds the product, not the test machinery', () => {
  let paths: string[];
  beforeAll(async () => {
    assertBuilt();
    paths = await packedPaths();
  });

  it('ships the CLI, the library entry and the example config', () => {
    expect(paths).toContain('dist/cli/main.js');
    expect(paths).toContain('dist/index.js');
    expect(paths).toContain('config/vcluster.yaml');
  });

  it('ships no testbed, fuzzer or chaos file', () => {
    expect(paths.filter((path) => /testbed|fuzz|chaos/i.test(path))).toEqual([]);
  });

  it('ships nothing from the tests, the benchmarks or the sources', () => {
    expect(paths.filter((path) => /^(test|benchmarks|build|src|tools)\//.test(path))).toEqual([]);
  });
});
