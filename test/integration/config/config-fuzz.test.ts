import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { formatConfigError } from '../../../src/config/config-error.js';
import type { ConfigResult } from '../../../src/config/parse-config.js';
import { PatchSandbox } from '../../../src/patches/index.js';
import { SYNCABLE_RESOURCES } from '../../../src/syncer/resources.js';
import { checkConfig, reloadSyncStates } from '../../../src/syncer/sync-config.js';
import { configErrorProblems, configVariants, type FuzzVariant } from '../../../testbed/fuzz/config-fuzz.js';
import { fuzzIterations, fuzzSeed } from '../../../testbed/fuzz/fuzz-settings.js';
import { SeededRandom } from '../../support/seeded-random.js';
import { createEndpoints, createService, getHostEndpoints, tempDir } from '../../support/endpoints-fixtures.js';
import { captureLogger } from '../../support/log-capture.js';
import { metricSample } from '../../support/metrics.js';
import { startTwoClusters } from '../../support/sync-harness.js';
import { startSyncerDaemon, type SyncerDaemon } from '../../support/syncer-daemon.js';
import { assertBuilt, REPO_ROOT, runVcsync } from '../../support/vcsync-cli.js';
import { waitFor } from '../../support/wait-for.js';

// Mutated vcluster.yaml files (from the example and the schema) through the check
// `vcsync validate`, start and every reload run (in-process, thousands), through the spawned CLI
// and through live reload of a running syncer (a sample each). Each loads or yields located
// errors; nothing throws or hangs; a rejected reload leaves the last valid config in force.
// Replay a failure with VCSYNC_FUZZ_SEED=<seed>; VCSYNC_FUZZ_ITERATIONS=<n> runs longer.

const SEED = fuzzSeed(20261123);
const ITERATIONS = fuzzIterations(2000);
/** A variant's check must end within this, on a loaded machine; a hang fails the test. */
const VARIANT_DEADLINE_MS = 10_000;
const CLI_SAMPLE = 6;
const RELOAD_SAMPLE = 8;
const FILE = 'fuzz/vcluster.yaml';

const lineCount = (text: string): number => text.split('\n').length;

/** The verdict of one variant, as `vcsync validate` and a reload see the file's bytes. */
interface Verdict {
  variant: FuzzVariant;
  result: ConfigResult;
}

describe(`config fuzzing (seed ${SEED}, ${ITERATIONS} variants; replay with VCSYNC_FUZZ_SEED=${SEED})`, () => {
  const verdicts: Verdict[] = [];
  let example: string;
  let schema: object;

  beforeAll(async () => {
    example = await readFile(path.join(REPO_ROOT, 'config/vcluster.yaml'), 'utf8');
    schema = JSON.parse(await readFile(path.join(REPO_ROOT, 'config/vcluster.schema.json'), 'utf8')) as object;
  });

  it('every variant through the check vcsync validate runs: loads (and builds its sync states) or yields located errors; none throws or hangs', async () => {
    const sandbox = new PatchSandbox({ memoryLimitMiB: 32, timeoutMs: 500 });
    const found: string[] = [];
    const counts = { tried: 0, valid: 0, rejected: 0, statesRejected: 0 };
    try {
      for (const variant of configVariants({ seed: SEED, count: ITERATIONS, example, schema, parseYaml: (text) => parse(text) as unknown })) {
        counts.tried += 1;
        // What readFile(path, 'utf8') gives the loader and the watcher: invalid UTF-8 as U+FFFD.
        const text = variant.bytes.toString('utf8');
        const started = performance.now();
        let problems: string[];
        try {
          const result = await checkConfig(text, FILE, SYNCABLE_RESOURCES);
          verdicts.push({ variant, result });
          if (result.ok) {
            counts.valid += 1;
            // A reload's verdict on a valid file: the sync states are built (patches compiled) or the change is refused, located.
            const states = reloadSyncStates(SYNCABLE_RESOURCES, result, { vclusterName: 'vc1', hostNamespace: 'vcluster-vc1', sandbox, multiNamespace: false });
            if (!states.ok) counts.statesRejected += 1;
            problems = states.ok ? [] : configErrorProblems(states.errors, FILE, lineCount(text));
          } else {
            counts.rejected += 1;
            problems = configErrorProblems(result.errors, FILE, lineCount(text));
          }
        } catch (error: unknown) {
          problems = [`threw ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`];
        }
        const elapsedMs = performance.now() - started;
        if (elapsedMs > VARIANT_DEADLINE_MS) problems.push(`took ${Math.round(elapsedMs)} ms`);
        for (const problem of problems) found.push(`variant ${variant.index} (${variant.recipe}): ${problem}`);
      }
    } finally {
      sandbox.dispose();
    }
    console.info(`config fuzz, in-process: ${JSON.stringify({ seed: SEED, ...counts, found: found.length })}`);
    expect(found.slice(0, 20)).toEqual([]);
    expect(counts.valid).toBeGreaterThan(0);
    expect(counts.rejected).toBeGreaterThan(0);
  }, 600_000);

  it(`a sample through the spawned vcsync validate: the same verdict, exit 0 or every error as file:line:column, nothing else on stderr`, async () => {
    assertBuilt(['src/cli', 'src/config', 'src/syncer', 'src/patches']);
    expect(verdicts.length).toBeGreaterThan(0);
    const random = new SeededRandom(SEED + 1);
    const sample = [...verdicts.filter((v) => v.result.ok).slice(0, 2), ...Array.from({ length: CLI_SAMPLE - 2 }, () => random.pick(verdicts.filter((v) => !v.result.ok)))];
    const dir = await tempDir('vcsync-config-fuzz-cli-');
    try {
      for (const { variant, result } of sample) {
        const file = path.join(dir.dir, `variant-${variant.index}.yaml`);
        await writeFile(file, variant.bytes);
        const where = `variant ${variant.index} (${variant.recipe})`;
        const run = await runVcsync(['validate', '--config', file], { timeoutMs: 60_000 });
        if (result.ok) {
          expect({ where, code: run.code, stderr: run.stderr }).toEqual({ where, code: 0, stderr: '' });
          expect(run.stdout).toBe(`${file} is valid\n`);
          continue;
        }
        expect({ where, code: run.code }).toEqual({ where, code: 1 });
        const lines = run.stderr.split('\n').filter((line) => line !== '');
        const summary = lines.pop();
        expect(summary, where).toBe(`${file}: ${result.errors.length} ${result.errors.length === 1 ? 'error' : 'errors'}`);
        // Byte for byte what the in-process check reported, with the file name the CLI was given.
        expect(lines, where).toEqual(result.errors.map((error) => formatConfigError({ ...error, file })));
        for (const line of lines) expect(line.startsWith(`${file}:`), where).toBe(true);
      }
    } finally {
      await dir.remove();
    }
  }, 600_000);

  describe('live reload of a running syncer', () => {
    const GOOD = 'sync:\n  toHost:\n    endpoints:\n      enabled: true\n      patches:\n        - path: metadata.annotations["example.com/config"]\n          expression: \'"good"\'\n';
    let clusters: Awaited<ReturnType<typeof startTwoClusters>>;
    let dir: { dir: string; remove: () => Promise<void> };
    let configPath: string;
    let daemon: SyncerDaemon | undefined;
    const log = captureLogger('info');

    const writeConfig = async (bytes: Buffer | string): Promise<void> => {
      const temporary = `${configPath}.tmp`;
      await writeFile(temporary, bytes);
      await rename(temporary, configPath);
    };
    const reloads = async (result: 'applied' | 'rejected'): Promise<number> => metricSample(await (await fetch(`${daemon?.metricsUrl ?? ''}/metrics`)).text(), 'vcsync_config_reloads_total', { result });

    beforeAll(async () => {
      clusters = await startTwoClusters();
      dir = await tempDir('vcsync-config-fuzz-reload-');
      configPath = path.join(dir.dir, 'vcluster.yaml');
      await writeConfig(GOOD);
      daemon = await startSyncerDaemon(clusters, configPath, { logger: log.logger });
    });

    afterAll(async () => {
      await daemon?.stop();
      await clusters.close();
      await dir.remove();
    });

    it('each rejected variant is refused with located errors, and the last valid config stays in force', async () => {
      const random = new SeededRandom(SEED + 2);
      const rejected = verdicts.filter((v) => !v.result.ok);
      expect(rejected.length).toBeGreaterThan(0);
      const sample = Array.from({ length: RELOAD_SAMPLE }, () => random.pick(rejected));
      let expected = 0;
      let previous: Buffer | undefined;
      for (const { variant, result } of sample) {
        if (result.ok || (previous !== undefined && previous.equals(variant.bytes))) continue;
        previous = variant.bytes;
        await writeConfig(variant.bytes);
        expected += 1;
        await waitFor(`variant ${variant.index} (${variant.recipe}) rejected`, async () => (await reloads('rejected')) === expected, { timeoutMs: 30_000 });
        const verdict = log.matching('configuration change rejected; the last valid configuration stays in force').at(-1);
        const errors = verdict?.['errors'] as string[] | undefined;
        expect(errors?.length, `variant ${variant.index}`).toBeGreaterThan(0);
        for (const error of errors ?? []) expect(error, `variant ${variant.index} (${variant.recipe})`).toMatch(new RegExp(`^${configPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:\\d+ `));
      }
      expect(await reloads('applied')).toBe(0);
      console.info(`config fuzz, live reload: ${JSON.stringify({ seed: SEED, tried: expected, rejected: await reloads('rejected') })}`);
      // The valid config's patch still applies to an object created after every rejection.
      await createService(clusters.virtualClient, 'after-fuzz');
      await createEndpoints(clusters.virtualClient, 'after-fuzz', { annotations: { 'example.com/config': 'virtual' } });
      await waitFor('the object synced with the last valid config', async () => (await getHostEndpoints(clusters.hostClient, clusters.hostNamespace, 'after-fuzz'))?.metadata?.annotations?.['example.com/config'] === 'good');
    }, 600_000);
  });
});
