import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevCluster, type DevCluster } from '../../src/devcluster/index.js';
import { realClusterMissing } from '../support/kube-assets.js';
import { KubectlEnv, kubectlMissing, type KubectlResult } from '../support/kubectl.js';
import { startRealControlPlane, type RealControlPlane } from '../support/real-control-plane.js';

const missing = kubectlMissing('kubectl server-side apply e2e tests');

const CONFIG_MAP = (data: Record<string, string>): string =>
  ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: ssa', '  namespace: default', 'data:', ...Object.entries(data).map(([key, value]) => `  ${key}: "${value}"`), ''].join('\n');

/** What one kubectl step printed, reduced to what both servers must agree on. */
interface Step {
  args: string;
  code: number | null;
  out: string;
}

/**
 * `kubectl apply --server-side` as a user types it: create, a conflict with another manager,
 * `--force-conflicts`, and the ownership kubectl shows afterwards. Returns each step's outcome.
 */
async function scenario(env: KubectlEnv): Promise<Step[]> {
  const first = await env.file('first.yaml', CONFIG_MAP({ a: '1', b: '2' }));
  const second = await env.file('second.yaml', CONFIG_MAP({ a: '9' }));
  const steps: Step[] = [];
  const run = async (args: string[]): Promise<KubectlResult> => {
    const result = await env.run(args);
    steps.push({ args: args.join(' ').replaceAll(env.dir, '<dir>'), code: result.code, out: `${result.stdout}${result.stderr}`.trim() });
    return result;
  };
  await run(['apply', '--server-side', '-f', first]);
  await run(['apply', '--server-side', '--field-manager=other', '-f', second]);
  await run(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', second]);
  await run(['get', 'configmap', 'ssa', '-o', 'jsonpath={.data}{"\\n"}{range .metadata.managedFields[*]}{.manager} {.operation} {.fieldsV1}{"\\n"}{end}']);
  await run(['apply', '--server-side', '-f', first]);
  await run(['delete', 'configmap', 'ssa']);
  return steps;
}

describe.skipIf(missing)('kubectl apply --server-side against a devcluster', () => {
  let cluster: DevCluster;
  let env: KubectlEnv;
  beforeAll(async () => {
    cluster = await startDevCluster();
    env = await KubectlEnv.create(cluster);
  });
  afterAll(async () => {
    await cluster?.close();
    await env?.remove();
  });

  it('creates, reports a conflict, takes fields over with --force-conflicts, and shows who owns what', async () => {
    const steps = await scenario(env);
    expect(steps.map((step) => step.code)).toEqual([0, 1, 0, 0, 1, 0]);
    expect(steps[0]?.out).toBe('configmap/ssa serverside-applied');
    expect(steps[1]?.out).toContain('Apply failed with 1 conflict: conflict with "kubectl": .data.a');
    expect(steps[2]?.out).toBe('configmap/ssa serverside-applied');
    expect(steps[3]?.out.split('\n')).toEqual(['{"a":"9","b":"2"}', 'kubectl Apply {"f:data":{"f:b":{}}}', 'other Apply {"f:data":{"f:a":{}}}']);
    expect(steps[4]?.out).toContain('conflict with "other": .data.a');
  });

  // The same kubectl against the real kube-apiserver must print the same, step for step.
  describe.skipIf(realClusterMissing('kubectl server-side apply against the real server'))('and against the real kube-apiserver', () => {
    let plane: RealControlPlane;
    let realEnv: KubectlEnv;
    beforeAll(async () => {
      plane = await startRealControlPlane();
      realEnv = await KubectlEnv.forKubeconfig(plane.kubeconfigYaml, { prefix: 'kubectl-real-' });
    }, 240_000);
    afterAll(async () => {
      await plane?.close();
      await realEnv?.remove();
    });

    it('prints what the devcluster prints, step for step', async () => {
      const [dev, real] = await Promise.all([scenario(env), scenario(realEnv)]);
      expect(dev).toEqual(real);
    }, 120_000);
  });
});
