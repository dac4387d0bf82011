import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify as toYaml } from 'yaml';
import { realClusterMissing } from '../../support/kube-assets.js';
import { KubectlEnv, kubectlMissing } from '../../support/kubectl.js';
import { ManagementFixture } from '../../support/management-fixture.js';
import { startRealControlPlane, type RealControlPlane } from '../../support/real-control-plane.js';
import { waitFor } from '../../support/wait-for.js';

const TOKENS_PATH = '/apis/management.loft.sh/v1/directclusterendpointtokens';
const AUDIENCE = 'vcsync-direct-cluster-endpoint';
const missing = realClusterMissing('DirectClusterEndpointTokens against the real kube-apiserver') || kubectlMissing('DirectClusterEndpointTokens with kubectl');

/**
 * A kube-apiserver trusts vcsync as a structured-authentication JWT issuer (it reads
 * the OpenID discovery and key set from the management listener) and accepts the tokens offline.
 */
describe.skipIf(missing)('DirectClusterEndpointTokens accepted by the real kube-apiserver as a JWT issuer', () => {
  let management: ManagementFixture;
  let plane: RealControlPlane;
  let admin: KubectlEnv;

  async function token(spec: Record<string, unknown> = {}): Promise<string> {
    management.nowMs = Math.floor(Date.now() / 1000) * 1000; // the real server checks iat and exp against its clock
    const answer = await management.call('POST', TOKENS_PATH, { key: management.adminKey, body: { apiVersion: 'management.loft.sh/v1', kind: 'DirectClusterEndpointToken', metadata: {}, spec } });
    expect(answer.status, answer.text).toBe(201);
    return String(answer.body.status.token);
  }

  beforeAll(async () => {
    management = await ManagementFixture.start();
    const config = {
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AuthenticationConfiguration',
      jwt: [
        {
          issuer: { url: management.server.issuer, audiences: [AUDIENCE], certificateAuthority: management.tls.caCertPem },
          claimMappings: { username: { claim: 'sub', prefix: 'vcsync:' }, groups: { claim: 'groups', prefix: 'vcsync:' } },
        },
      ],
    };
    const configPath = join(management.dir, 'authentication-config.yaml');
    await writeFile(configPath, toYaml(config));
    plane = await startRealControlPlane({ apiserverArgs: [`--authentication-config=${configPath}`] });
    admin = await KubectlEnv.forKubeconfig(plane.kubeconfigYaml, { prefix: 'direct-token-admin-' });
    // Not `view`: it is an aggregated role whose rules kube-controller-manager fills in, which does not run here.
    await admin.ok(['create', 'clusterrole', 'services-reader', '--verb=get,list', '--resource=services']);
    await admin.ok(['create', 'clusterrolebinding', 'vcsync-admins-read', '--clusterrole=services-reader', '--group=vcsync:management:admins']);
  }, 240_000);
  afterAll(async () => {
    await admin?.remove();
    await plane?.close();
    await management?.stop();
  });

  it('kubectl with the token is the key\'s user and groups, and RBAC by those groups applies', async () => {
    const jwt = await token({ ttl: 600 });
    const args = ['--token', jwt, '--kubeconfig', '/dev/null', '--server', plane.url, '--certificate-authority', plane.tls.caCertPath];
    // The authenticator fetches the issuer's discovery document in the background after start.
    const whoami = await waitFor(
      'the kube-apiserver accepts the direct token',
      async () => {
        const result = await admin.run(['auth', 'whoami', '-o', 'json', ...args]);
        return result.code === 0 ? result.stdout : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    const review = JSON.parse(whoami) as { status: { userInfo: { username: string; groups: string[] } } };
    expect(review.status.userInfo.username).toBe('vcsync:admin');
    expect(review.status.userInfo.groups).toEqual(expect.arrayContaining(['vcsync:management:admins', 'system:authenticated']));
    expect(await admin.ok(['get', 'services', '-n', 'default', '-o', 'name', ...args])).toContain('service/kubernetes');
    const denied = await admin.run(['create', 'namespace', 'not-allowed', ...args]);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('forbidden');
  });

  it('an expired token and a token of another audience are refused (401)', async () => {
    const short = await token({ ttl: 1 });
    const args = (jwt: string): string[] => ['get', 'namespaces', '--token', jwt, '--kubeconfig', '/dev/null', '--server', plane.url, '--certificate-authority', plane.tls.caCertPath];
    await waitFor(
      'the expired token is refused',
      async () => {
        const result = await admin.run(args(short));
        return result.code !== 0 && /Unauthorized|must be logged in/.test(result.stderr) ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    const [header, payload] = (await token()).split('.') as [string, string];
    const foreign = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...foreign, aud: 'elsewhere' })).toString('base64url')}.AAAA`;
    const refused = await admin.run(args(forged));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Unauthorized|must be logged in/);
  });
});
