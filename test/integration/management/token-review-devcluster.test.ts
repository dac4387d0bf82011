import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKubeConfig, kubeConfigYaml } from '../../../src/devcluster/kube-config.js';
import { startDevCluster, type DevCluster } from '../../../src/devcluster/index.js';
import { KubectlEnv, kubectlMissing, type KubectlResult } from '../../support/kubectl.js';
import { ManagementFixture } from '../../support/management-fixture.js';
import { waitFor } from '../../support/wait-for.js';

const missing = kubectlMissing('devcluster with the management token review');

/** The devcluster's webhook cache in these tests, in ms (its default is 120 000, as the kube-apiserver's). */
const CACHE_TTL_MS = 1000;

describe.skipIf(missing)('devcluster’s tokenReviewUrl pointed at the management API’s webhook', () => {
  let management: ManagementFixture;
  let cluster: DevCluster;
  let dir: string;
  const envs: KubectlEnv[] = [];

  beforeAll(async () => {
    management = await ManagementFixture.start();
    dir = await mkdtemp(join(tmpdir(), 'devcluster-token-review-'));
    cluster = await startDevCluster({
      port: 0,
      tls: { dir },
      tokenReviewUrl: management.server.tokenReviewUrl,
      tokenReviewCaPem: management.tls.caCertPem,
      tokenReviewCacheTtlMs: CACHE_TTL_MS,
    });
  });
  afterAll(async () => {
    for (const env of envs) await env.remove();
    await cluster?.close();
    await management?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** kubectl with `--token key` (over TLS: kubectl sends no bearer token to a plain-http server); the kubeconfig holds only the server and its CA. */
  async function kubectlWithToken(key: string): Promise<(args: string[]) => Promise<KubectlResult>> {
    const caData = cluster.kubeConfig.clusters[0]?.cluster['certificate-authority-data'] ?? '';
    const env = await KubectlEnv.forKubeconfig(kubeConfigYaml(buildKubeConfig({ name: 'dev', server: cluster.url, caCertPem: Buffer.from(caData, 'base64').toString('utf8') })));
    envs.push(env);
    return (args) => env.run([...args, '--token', key]);
  }

  it('an access key works as a token: whoami shows the key’s user and groups, get works', async () => {
    const kubectl = await kubectlWithToken(await management.newKey('alice-key', { user: 'alice', groups: ['developers'] }));
    const whoami = await kubectl(['auth', 'whoami', '-o', 'json']);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout).status.userInfo).toMatchObject({ username: 'alice', groups: expect.arrayContaining(['developers', 'system:authenticated']) });
    const namespaces = await kubectl(['get', 'namespaces', '-o', 'name']);
    expect(namespaces.code, namespaces.stderr).toBe(0);
    expect(namespaces.stdout).toContain('namespace/default');
  });

  it.each(['disabled', 'deleted'] as const)('a %s key stops being accepted within the cache TTL', async (what) => {
    const name = `bob-${what}`;
    const kubectl = await kubectlWithToken(await management.newKey(name, { user: 'bob' }));
    expect((await kubectl(['get', 'namespaces'])).code).toBe(0);
    await management.retireKey(name, what);
    const refusal = await waitFor(
      `the ${what} key to be refused`,
      async () => {
        const result = await kubectl(['auth', 'whoami']);
        return result.code !== 0 ? result : undefined;
      },
      { timeoutMs: CACHE_TTL_MS + 10_000, intervalMs: 100 },
    );
    expect(refusal.stderr).toContain('Unauthorized');
  });

  it('an expired key is refused', async () => {
    const key = await management.newKey('carol-short', { user: 'carol', ttl: 60 });
    management.nowMs += 61_000;
    const refused = await (await kubectlWithToken(key))(['auth', 'whoami']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('Unauthorized');
  });
});
