import { spawn, type ChildProcess } from 'node:child_process';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureTlsAssets, type TlsAssets } from '../../../src/apiserver/security/tls-assets.js';
import { startDevCluster, type DevCluster } from '../../../src/devcluster/index.js';
import { loadClusterConfig } from '../../../src/kube/kube-config.js';
import { RestClient } from '../../../src/kube/rest-client.js';
import { KEY_HASH_SECRET_NAME } from '../../../src/management/index.js';
import { stopProcess } from '../../support/devcluster-process.js';
import { tempDir } from '../../support/endpoints-fixtures.js';
import { realClusterMissing } from '../../support/kube-assets.js';
import { callManagement, KEYS_PATH, type Answer, type Call } from '../../support/management-fixture.js';
import { freePorts } from '../../../testbed/free-ports.js';
import { startRealControlPlane, type RealControlPlane } from '../../support/real-control-plane.js';
import { getOrUndefined } from '../../support/sync-harness.js';
import { assertBuilt, VCSYNC_MAIN } from '../../support/vcsync-cli.js';
import { waitFor } from '../../support/wait-for.js';

/** One spawned `vcsync start --listen-management`, and how to call its management API. */
interface Daemon {
  child: ChildProcess;
  url: string;
  call(method: string, path: string, call?: Call): Promise<Answer>;
}

/** The host clusters the daemon's management store runs on: devcluster always, the real kube-apiserver when its binaries are there. */
const HOSTS: Array<'devcluster' | 'real'> = realClusterMissing('the management API of vcsync start on a real kube-apiserver') ? ['devcluster'] : ['devcluster', 'real'];

describe.each(HOSTS)('vcsync start --listen-management: the management API in the daemon, stored in Secrets of a %s host', (backend) => {
  let plane: RealControlPlane | undefined;
  let tests = 0;
  let virtual: DevCluster;
  let host: DevCluster | undefined;
  let hostClient: RestClient;
  let hostNamespace: string;
  let dir: { dir: string; remove: () => Promise<void> };
  let tls: TlsAssets;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    assertBuilt(['src/cli', 'src/management']);
    if (backend === 'real') plane = await startRealControlPlane();
  }, 240_000);
  afterAll(async () => {
    await plane?.close();
  });
  beforeEach(async () => {
    tests += 1;
    // A real host is shared by the file's tests: each gets a fresh, empty namespace.
    hostNamespace = `vcluster-vc1-${tests}`;
    [virtual, host] = await Promise.all([startDevCluster({ port: 0 }), backend === 'devcluster' ? startDevCluster({ port: 0 }) : undefined]);
    const hostConfig: object = host?.kubeConfig ?? (plane as RealControlPlane).kubeconfig;
    hostClient = new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: hostConfig }, { name: 'host' }), qps: Infinity });
    await hostClient.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: hostNamespace } });
    dir = await tempDir('vcsync-daemon-management-');
    tls = await ensureTlsAssets(join(dir.dir, 'tls'), { serverName: 'vcsync-management' });
    await writeFile(join(dir.dir, 'vcluster.yaml'), 'sync:\n  toHost:\n    endpoints:\n      enabled: true\n');
    await writeFile(join(dir.dir, 'virtual.kubeconfig'), virtual.kubeConfigYaml());
    await writeFile(join(dir.dir, 'host.kubeconfig'), host?.kubeConfigYaml() ?? (plane as RealControlPlane).kubeconfigYaml);
  });
  afterEach(async () => {
    await Promise.all(children.splice(0).map((child) => stopProcess(child)));
    hostClient.close();
    await Promise.all([virtual.close(), host?.close()]);
    await dir.remove();
  });

  const adminKeyPath = (): string => join(dir.dir, 'admin.key');

  /** Spawns a daemon (leader election off: every replica serves the API regardless) and waits until its API answers. */
  const startDaemon = async (extraEnv: Record<string, string> = {}): Promise<Daemon> => {
    const [port] = await freePorts(1);
    const child = spawn(
      VCSYNC_MAIN,
      ['start', '--name', 'vc1', '--host-namespace', hostNamespace, '--listen-metrics', '127.0.0.1:0', '--listen-management', `127.0.0.1:${port}`],
      {
        env: {
          ...process.env,
          VCSYNC_CONFIG: join(dir.dir, 'vcluster.yaml'),
          VCSYNC_VIRTUAL_KUBECONFIG: join(dir.dir, 'virtual.kubeconfig'),
          VCSYNC_HOST_KUBECONFIG: join(dir.dir, 'host.kubeconfig'),
          VCSYNC_MANAGEMENT_TLS_CERT: tls.serverCertPath,
          VCSYNC_MANAGEMENT_TLS_KEY: tls.serverKeyPath,
          VCSYNC_MANAGEMENT_ADMIN_KEY_FILE: adminKeyPath(),
          VCSYNC_NO_LEADER_ELECT: 'true',
          VCSYNC_LOG_LEVEL: 'warn',
          ...extraEnv,
        },
        stdio: 'ignore',
      },
    );
    children.push(child);
    const url = `https://127.0.0.1:${port}/kubernetes/management`;
    const call = (method: string, path: string, options: Call = {}): Promise<Answer> => callManagement({ url, caCertPem: tls.caCertPem }, method, path, options);
    await waitFor('the management API to answer', () => call('GET', '/version').then(() => true), { timeoutMs: 45_000 });
    return { child, url, call };
  };
  const stop = async (daemon: Daemon): Promise<void> => {
    await stopProcess(daemon.child);
    children.splice(children.indexOf(daemon.child), 1);
  };
  const createKey = (daemon: Daemon, adminKey: string, name: string): Promise<Answer> =>
    daemon.call('POST', KEYS_PATH, { key: adminKey, body: { apiVersion: 'management.loft.sh/v1', kind: 'OwnedAccessKey', metadata: { name }, spec: { user: 'alice' } } });

  it('writes the bootstrap admin key to its 0600 file, lists keys over HTTPS, and a created key survives a restart', async () => {
    const first = await startDaemon();
    const adminKey = (await readFile(adminKeyPath(), 'utf8')).trim();
    expect((await stat(adminKeyPath())).mode & 0o777).toBe(0o600);
    const listed = await first.call('GET', KEYS_PATH, { key: adminKey });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((item: { metadata: { name: string } }) => item.metadata.name)).toContain('vcsync-bootstrap-admin');
    const created = await createKey(first, adminKey, 'alices');
    expect(created.status).toBe(201);
    const alicesKey = created.body.spec.key as string;
    expect((await first.call('GET', `${KEYS_PATH}/alices`, { key: alicesKey })).status).toBe(200);
    // The hash secret is shared through a host Secret, not a local file.
    expect(await getOrUndefined(hostClient, `/api/v1/namespaces/${hostNamespace}/secrets/${KEY_HASH_SECRET_NAME}`)).toBeDefined();

    await stop(first);
    const second = await startDaemon();
    expect((await second.call('GET', `${KEYS_PATH}/alices`, { key: alicesKey })).status).toBe(200);
    expect((await readFile(adminKeyPath(), 'utf8')).trim()).toBe(adminKey); // not created again
    expect((await second.call('GET', KEYS_PATH, { key: adminKey })).status).toBe(200);
  });

  it('two replicas on one host namespace: a key created through one authenticates on the other; disabled through one, the other answers 401', async () => {
    const one = await startDaemon();
    const adminKey = (await readFile(adminKeyPath(), 'utf8')).trim();
    const two = await startDaemon();
    expect((await two.call('GET', KEYS_PATH, { key: adminKey })).status).toBe(200);
    const alicesKey = (await createKey(one, adminKey, 'alices')).body.spec.key as string;
    await waitFor('the key to authenticate on the other replica', async () => (await two.call('GET', `${KEYS_PATH}/alices`, { key: alicesKey })).status === 200, { timeoutMs: 10_000 });
    // Replica two has just written alices' status.lastActivity, which replica one's cache may not
    // hold yet: a PATCH without a resourceVersion applies to the host's current object regardless.
    const disabled = await one.call('PATCH', `${KEYS_PATH}/alices`, { key: adminKey, contentType: 'application/merge-patch+json', body: { spec: { disabled: true } } });
    expect(disabled.status, disabled.text).toBe(200);
    await waitFor('the other replica to refuse the disabled key', async () => (await two.call('GET', `${KEYS_PATH}/alices`, { key: alicesKey })).status === 401, { timeoutMs: 10_000 });
  });

  it('two replicas starting at once on an empty namespace end with one key-hash Secret and one bootstrap admin key that both use', async () => {
    const [one, two] = await Promise.all([startDaemon(), startDaemon()]);
    const adminKey = (await readFile(adminKeyPath(), 'utf8')).trim();
    const hashSecrets = await hostClient.list(`/api/v1/namespaces/${hostNamespace}/secrets`);
    expect(hashSecrets.items.filter((secret) => secret.metadata?.name === KEY_HASH_SECRET_NAME)).toHaveLength(1);
    for (const replica of [one, two]) expect((await replica.call('GET', KEYS_PATH, { key: adminKey })).status).toBe(200);
    const created = await createKey(one, adminKey, 'alices');
    expect(created.status, created.text).toBe(201);
    const alicesKey = created.body.spec.key as string;
    // The key's hash was computed with replica one's secret: replica two verifies it with its own.
    await waitFor('the key created through one to authenticate on the other', async () => (await two.call('GET', `${KEYS_PATH}/alices`, { key: alicesKey })).status === 200, { timeoutMs: 10_000 });
  });

  it('two replicas with one --management-token-issuer sign DirectClusterEndpointTokens with the key ring both keep in the host namespace', async () => {
    const issuer = 'https://vcsync-management.example.test';
    const one = await startDaemon({ VCSYNC_MANAGEMENT_TOKEN_ISSUER: issuer, VCSYNC_MANAGEMENT_TOKEN_ALGORITHM: 'ES256' });
    const adminKey = (await readFile(adminKeyPath(), 'utf8')).trim();
    const two = await startDaemon({ VCSYNC_MANAGEMENT_TOKEN_ISSUER: issuer, VCSYNC_MANAGEMENT_TOKEN_ALGORITHM: 'ES256' });
    const issued = await one.call('POST', '/apis/management.loft.sh/v1/directclusterendpointtokens', {
      key: adminKey,
      body: { apiVersion: 'management.loft.sh/v1', kind: 'DirectClusterEndpointToken', spec: { ttl: 300 } },
    });
    expect(issued.status, issued.text).toBe(201);
    const token = String(issued.body.status.token);
    // Replica two publishes the key replica one signed with (read from the host Secret): a verifier may ask either.
    const keySet = await two.call('GET', '//openid/v1/jwks');
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(keySet.body as JSONWebKeySet), { issuer, audience: 'vcsync-direct-cluster-endpoint' });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload.sub).toBe('admin');
    const discovery = await two.call('GET', '//.well-known/openid-configuration');
    expect(discovery.body).toMatchObject({ issuer, jwks_uri: `${issuer}/openid/v1/jwks` });
  });
});
