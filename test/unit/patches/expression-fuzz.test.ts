import { describe, expect, it } from 'vitest';
import { HOSTILE_EXPRESSIONS, runExpressionFuzz } from '../../../testbed/fuzz/expression-fuzz.js';
import { fuzzIterations, fuzzSeed } from '../../../testbed/fuzz/fuzz-settings.js';

// Hostile and generated patch expressions through compile and the real isolated-vm
// sandbox (the fuzzer is testbed/fuzz/expression-fuzz.ts, shared with benchmarks/fuzz.mjs).
// Replay a failure with VCSYNC_FUZZ_SEED=<seed>; VCSYNC_FUZZ_ITERATIONS=<n> runs longer.

const SEED = fuzzSeed(20261123);
const COUNT = fuzzIterations(HOSTILE_EXPRESSIONS.length + 350);

describe(`expression fuzzing (seed ${SEED}, ${COUNT} expressions; replay with VCSYNC_FUZZ_SEED=${SEED})`, () => {
  it('each compiles or is rejected with a located error, runs within its limits to an answer or a patch error, and leaves the isolate and the main process as they were', async () => {
    const report = await runExpressionFuzz({ seed: SEED, count: COUNT, timeoutMs: 250 });
    console.info(`expression fuzz: ${JSON.stringify({ ...report, problems: report.problems.length })}`);
    expect(report.problems.slice(0, 20)).toEqual([]);
    // The run exercised the outcomes: rejections, answers, throws, timeouts. Whether a heap filler
    // meets the memory limit before the time limit depends on the machine's load since evaluation
    // moved to worker processes; patch-sandbox.test.ts covers the memory limit with a long timeout.
    expect(report.rejected).toBeGreaterThan(0);
    expect(report.evaluated).toBeGreaterThan(0);
    expect(Object.keys(report.failedAtRun)).toEqual(expect.arrayContaining(['PATCH_EVAL_THREW', 'PATCH_EVAL_TIMEOUT', 'PATCH_EVAL_RESULT_NOT_JSON']));
  }, 300_000);
});
