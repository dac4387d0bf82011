import { describe, expect, it } from 'vitest';
import { runDevclusterFuzz } from '../../../testbed/fuzz/http-fuzz.js';
import { fuzzIterations, fuzzSeed } from '../../../testbed/fuzz/fuzz-settings.js';

// Seeded random HTTP requests to a devcluster that requires a token (the fuzzer is
// testbed/fuzz/http-fuzz.ts, shared with benchmarks/fuzz.mjs): random paths, methods,
// headers and bodies (JSON, YAML alias bombs, protobuf garbage, binary, huge, deeply nested, and
// the growth class: patches that copy an object into itself or whose result is too large),
// without credentials and as the admin. Replay with VCSYNC_FUZZ_SEED=<seed>;
// VCSYNC_FUZZ_ITERATIONS=<n> sends n of each.

const SEED = fuzzSeed(20261123);
const COUNT = fuzzIterations(300);

describe(`devcluster HTTP fuzzing (seed ${SEED}, ${COUNT} requests without credentials and ${COUNT} as the admin; replay with VCSYNC_FUZZ_SEED=${SEED})`, () => {
  it('every answer a 2xx or a 4xx Status, none a 5xx, a dropped connection or a hang; nothing stored changes without credentials; a ConfigMap can still be created', async () => {
    const report = await runDevclusterFuzz({ seed: SEED, count: COUNT });
    console.info(`devcluster fuzz: ${JSON.stringify({ ...report, problems: report.problems.length })}`);
    expect(report.problems.slice(0, 20)).toEqual([]);
    expect(report.statuses['401']).toBeGreaterThan(0);
    expect(Object.keys(report.statuses).some((status) => status.startsWith('2'))).toBe(true);
    // The growth class reached its target as the admin and was refused by a limit (422, 413), never stored past it.
    expect((report.growthStatuses['422'] ?? 0) + (report.growthStatuses['413'] ?? 0)).toBeGreaterThan(0);
    // The exhaustion classes reached the caps: some watches refused, every stalled head closed.
    expect(report.pressure?.watchFlood.refused).toBeGreaterThan(0);
    expect(report.pressure?.slowHeads.closed).toBe(report.pressure?.slowHeads.opened);
  }, 300_000);
});
