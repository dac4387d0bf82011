import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevCluster, type DevCluster } from '../../src/devcluster/index.js';
import { realClusterMissing } from '../support/kube-assets.js';
import { KubectlEnv, kubectlMissing } from '../support/kubectl.js';
import { startRealControlPlane } from '../support/real-control-plane.js';

const missing = kubectlMissing('kubectl explain e2e tests');
const EXPLAINED = [['configmaps.data'], ['services.spec.ports']];

describe.skipIf(missing)('kubectl explain against a devcluster (the real server\'s schemas)', () => {
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

  it('prints the real descriptions and fields of configmaps.data and services.spec.ports', async () => {
    const data = await env.ok(['explain', 'configmaps.data']);
    expect(data).toMatch(/^KIND:\s+ConfigMap\nVERSION:\s+v1\n\nFIELD: data <map\[string\]string>\n/);
    expect(data).toContain('Data contains the configuration data.');
    const ports = await env.ok(['explain', 'services.spec.ports']);
    expect(ports).toContain('FIELD: ports <[]ServicePort>');
    expect(ports).toContain('The list of ports that are exposed by this service.');
    expect(ports).toMatch(/\n {2}port\t<integer> -required-\n/);
    expect(ports).toMatch(/\n {2}targetPort\t<IntOrString>\n/);
  });

  it.skipIf(realClusterMissing('comparing kubectl explain with the real kube-apiserver'))('prints exactly what it prints against the real kube-apiserver', async () => {
    const plane = await startRealControlPlane();
    const real = await KubectlEnv.forKubeconfig(plane.kubeconfigYaml, { prefix: 'kubectl-explain-real-' });
    try {
      for (const args of EXPLAINED) expect(await env.ok(['explain', ...args]), args.join(' ')).toBe(await real.ok(['explain', ...args]));
    } finally {
      await real.remove();
      await plane.close();
    }
  }, 240_000);
});
