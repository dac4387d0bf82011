import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, REPO_ROOT } from '../../support/vcsync-cli.js';

const scripts = readdirSync(join(REPO_ROOT, 'benchmarks')).filter((file) => file.endsWith('.mjs')).sort();

/**
 * How long one script may take to print its usage or refuse its options: each loads the built
 * modules first (about a second when quiet), which took over 20 s at a load average of 22 on two
 * cores; kept under the test timeout (60 s) so a hang still fails here, with its output.
 */
const SCRIPT_DEADLINE_MS = 50_000;

function run(script: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--no-node-snapshot', join(REPO_ROOT, 'benchmarks', script), ...args], { cwd: REPO_ROOT, timeout: SCRIPT_DEADLINE_MS, env }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') reject(new Error(`${script} ${args.join(' ')} did not finish (a benchmark started?): ${error.message}`));
      else resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
    });
  });
}

describe('benchmark scripts: the command line is parsed before anything runs', () => {
  beforeAll(() => assertBuilt(['src/patches', 'src/apiserver', 'src/devcluster']));

  it('there are benchmark scripts to check', () => {
    expect(scripts.length).toBeGreaterThanOrEqual(6);
  });

  it.each(scripts)('%s --help prints its usage and exits 0 without measuring', async (script) => {
    const result = await run(script, ['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^usage: /);
    expect(result.stdout).toContain(script);
  });

  it.each(scripts)('%s rejects an unknown option with exit 2', async (script) => {
    const result = await run(script, ['--no-such-option']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown option '--no-such-option'");
  });
});

/** The syncer benchmarks that can measure against the real kube-apiserver as the host. */
const REAL_HOST_SCRIPTS = ['chaos.mjs', 'syncer-bulk.mjs', 'syncer-latency.mjs'];

describe('syncer benchmarks with --host real', () => {
  beforeAll(() => assertBuilt(['testbed', 'testbed/chaos', 'src/kube', 'src/syncer']));

  it.each(REAL_HOST_SCRIPTS)('%s documents --host devcluster|real in its usage', async (script) => {
    const result = await run(script, ['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('[--host devcluster|real]');
    expect(result.stdout).toContain('VCSYNC_KUBE_ASSETS');
  });

  it.each(REAL_HOST_SCRIPTS)('%s refuses another --host with exit 2 before measuring', async (script) => {
    const result = await run(script, ['--host', 'kind']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--host takes devcluster or real, got "kind"');
  });

  it.each(REAL_HOST_SCRIPTS)('%s --host real without kube-assets fails saying what to set', async (script) => {
    const env = { ...process.env };
    delete env['VCSYNC_KUBE_ASSETS'];
    const result = await run(script, ['--host', 'real', '--quick'], env);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('VCSYNC_KUBE_ASSETS is not set');
  });
});

/** The syncer benchmarks that measure Endpoints or EndpointSlices, one per run (`--resource`). */
const RESOURCE_SCRIPTS = ['syncer-bulk.mjs', 'syncer-latency.mjs', 'syncer-memory.mjs'];

describe('syncer benchmarks with --resource', () => {
  beforeAll(() => assertBuilt(['src/kube', 'src/syncer']));

  it.each(RESOURCE_SCRIPTS)('%s documents --resource endpoints|endpointslices in its usage', async (script) => {
    const result = await run(script, ['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('[--resource endpoints|endpointslices]');
    expect(result.stdout).toContain('-endpointslices.json');
  });

  it.each(RESOURCE_SCRIPTS)('%s refuses another --resource with exit 2 before measuring', async (script) => {
    const result = await run(script, ['--resource', 'configmaps']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--resource takes endpoints or endpointslices, got "configmaps"');
  });

  it('run-all.mjs says it runs them once per resource', async () => {
    const result = await run('run-all.mjs', ['--help']);
    expect(result.code).toBe(0);
    for (const script of RESOURCE_SCRIPTS) expect(result.stdout).toContain(script);
    expect(result.stdout).toContain('--resource endpoints, --resource endpointslices');
  });
});
