import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevCluster, type DevCluster } from '../../src/devcluster/index.js';
import { realClusterMissing } from '../support/kube-assets.js';
import { startRealControlPlane, type RealControlPlane } from '../support/real-control-plane.js';
import { CASES, type ConformanceCase } from './cases.js';
import { KNOWN_DIVERGENCES } from './known-divergences.js';
import { diffValues } from './normalize.js';
import { runCase, type Backend, type StepRecord } from './run-case.js';

const missing = realClusterMissing('the differential conformance suite');

/** Cases run this many at a time (each against both backends at once). */
const CONCURRENCY = 6;

/** One case's verdict: empty `differences` means identical. */
interface Verdict {
  testCase: ConformanceCase;
  differences: string[];
}

async function compareCase(devcluster: Backend, real: Backend, testCase: ConformanceCase, index: number): Promise<Verdict> {
  const run = (backend: Backend): Promise<StepRecord[] | string> =>
    runCase(backend, testCase, index).catch((err: unknown) => `failed: ${err instanceof Error ? err.message : String(err)}`);
  const [dev, kube] = await Promise.all([run(devcluster), run(real)]);
  if (typeof dev === 'string' || typeof kube === 'string') {
    return { testCase, differences: dev === kube ? [] : [`devcluster ${typeof dev === 'string' ? dev : 'ran'}, kube-apiserver ${typeof kube === 'string' ? kube : 'ran'}`] };
  }
  const differences = dev.flatMap((record, step) => diffValues(record.outcome, kube[step]?.outcome).map((line) => `${record.step}: ${line}`));
  return { testCase, differences };
}

describe.skipIf(missing)('differential conformance: devcluster vs kube-apiserver', () => {
  let plane: RealControlPlane;
  let devcluster: DevCluster;
  beforeAll(async () => {
    [plane, devcluster] = await Promise.all([startRealControlPlane({ controllers: true }), startDevCluster({ port: 0 })]);
  }, 240_000);
  afterAll(async () => {
    await Promise.all([plane?.close(), devcluster?.close()]);
  });

  it('answers every case of the table as the real server does, except the known divergences', async () => {
    const real: Backend = { name: 'kube-apiserver', url: plane.url, tls: { ca: plane.tls.caCertPem, cert: plane.tls.adminCertPem, key: plane.tls.adminKeyPem } };
    const dev: Backend = { name: 'devcluster', url: devcluster.url };
    const verdicts: Verdict[] = new Array<Verdict>(CASES.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let index = next++; index < CASES.length; index = next++) {
        const testCase = CASES[index];
        if (testCase !== undefined) verdicts[index] = await compareCase(dev, real, testCase, index);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    const diverging = verdicts.filter((verdict) => verdict.differences.length > 0);
    const lines = [`conformance: ${CASES.length - diverging.length}/${CASES.length} identical`];
    for (const { testCase, differences } of diverging) {
      const reason = KNOWN_DIVERGENCES[testCase.name];
      lines.push(`  ${testCase.name} [${reason ?? 'NOT LISTED'}]`, ...differences.map((line) => `      ${line}`));
    }
    console.log(lines.join('\n'));

    const unlisted = diverging.map((verdict) => verdict.testCase.name).filter((name) => KNOWN_DIVERGENCES[name] === undefined);
    const nowMatching = Object.keys(KNOWN_DIVERGENCES).filter((name) => !diverging.some((verdict) => verdict.testCase.name === name));
    // One assertion, so a failure shows both lists. `unlisted`: classify them in
    // known-divergences.ts or fix the devcluster; `nowMatching` (or gone): remove them from it.
    expect({ unlisted, nowMatching }, 'known-divergences.ts is out of date').toEqual({ unlisted: [], nowMatching: [] });
  }, 180_000);

  it('has unique case names', () => {
    expect(new Set(CASES.map((testCase) => testCase.name)).size).toBe(CASES.length);
  });
});
