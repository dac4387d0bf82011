import { describe, expect, it } from 'vitest';
import { runChaos, type ChaosOptions } from '../../../testbed/chaos/chaos-run.js';
import { realClusterMissing } from '../../support/kube-assets.js';
import { seedFromEnvironment } from '../../support/seeded-random.js';
import { assertBuilt } from '../../support/vcsync-cli.js';

/** Every run draws the same workload and faults; `VCSYNC_CHAOS_SEED=<n>` replays another (each test names its seed). */
const SEED = seedFromEnvironment('VCSYNC_CHAOS_SEED', 20261212);

/** The short run of `npm test`; the long one is benchmarks/chaos.mjs. */
const SHORT: Omit<ChaosOptions, 'host'> = { seed: SEED, operations: 300, faultRate: 0.05, apiServerRestarts: 1, vcsyncRestarts: 1, namesPerNamespace: 25, convergenceTimeoutMs: 30_000 };

async function expectConverged(options: ChaosOptions): Promise<void> {
  assertBuilt();
  const lines: string[] = [];
  const report = await runChaos({ ...options, log: (line) => lines.push(line) });
  const summary = JSON.stringify({ ...report, log: lines }, null, 2);
  expect(report.differences, summary).toEqual([]);
  expect(report.convergenceSeconds, summary).toBeDefined();
  expect(report.restarts, summary).toEqual({ apiServer: 1, vcsyncTerm: 1, vcsyncKill: 0 });
  expect(report.faults.total, summary).toBeGreaterThan(0);
  expect(report.expectedHostObjects, summary).toBeGreaterThan(0);
  expect(report.hostLabelsSet, summary).toBeGreaterThan(0);
  expect(Object.values(report.operations.byKind).reduce((a, b) => a + b, 0), summary).toBe(options.operations);
}

describe('chaos: seeded workload, 5% faults on both sides, an API-server and a vcsync restart; host and keys end as the operations require', () => {
  it(`devcluster → devcluster, 300 operations, seed ${SEED} (replay with VCSYNC_CHAOS_SEED=${SEED})`, () => expectConverged({ ...SHORT, host: 'devcluster' }), 120_000);

  it.skipIf(realClusterMissing('the chaos run on the real kube-apiserver'))(
    `devcluster → real kube-apiserver (restarted on its etcd), 200 operations, seed ${SEED} (replay with VCSYNC_CHAOS_SEED=${SEED})`,
    // Fewer operations: the control plane's start and kube-apiserver's restart take most of the budget.
    () => expectConverged({ ...SHORT, operations: 200, host: 'real' }),
    240_000,
  );
});
