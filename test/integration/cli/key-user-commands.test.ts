import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildKubeConfig, kubeConfigYaml } from '../../../src/devcluster/kube-config.js';
import { deferredCsrClient } from '../../../src/management/index.js';
import { KEYS_PATH, ManagementFixture } from '../../support/management-fixture.js';
import { assertBuilt, runVcsync } from '../../support/vcsync-cli.js';

describe('the CLI a key user needs: scoped keys, tokens, kube configs, an exec credential', () => {
  let fixture: ManagementFixture;
  let kubeconfig: string;
  beforeAll(async () => {
    assertBuilt();
    fixture = await ManagementFixture.start({
      virtualCluster: {
        name: 'vc1',
        namespace: 'vcluster-vc1',
        ingressHost: () => 'vc1.example.test',
        caCertPem: 'not used for token kube configs',
        client: deferredCsrClient(() => {
          throw new Error('no client certificates in this test');
        }),
      },
    });
    kubeconfig = join(fixture.dir, 'management.kubeconfig');
    await writeFile(kubeconfig, kubeConfigYaml(buildKubeConfig({ name: 'management', server: fixture.server.url, caCertPem: fixture.tls.caCertPem, token: fixture.adminKey })));
  });
  afterAll(async () => {
    await fixture?.stop();
  });

  it('accesskey create --scope-file -o yaml: the scope from the file, the object printed with its key (shown once)', async () => {
    const scopeFile = join(fixture.dir, 'scope.yaml');
    await writeFile(scopeFile, 'virtualClusters:\n  - project: vcluster-vc1\n    virtualCluster: vc1\n');
    const created = await runVcsync(['accesskey', 'create', '--kubeconfig', kubeconfig, '--user', 'carol', '--name', 'carols', '--scope-file', scopeFile, '-o', 'yaml']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const object = parse(created.stdout) as { kind: string; metadata: { name: string }; spec: { key: string; scope: unknown } };
    expect(object).toMatchObject({ kind: 'OwnedAccessKey', metadata: { name: 'carols' }, spec: { scope: { virtualClusters: [{ project: 'vcluster-vc1', virtualCluster: 'vc1' }] } } });
    expect(object.spec.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await fixture.call('GET', `${KEYS_PATH}/carols`, { key: fixture.adminKey })).body.spec.scope).toEqual(object.spec.scope);

    const named = await runVcsync(['accesskey', 'create', '--kubeconfig', kubeconfig, '--user', 'carol', '--name', 'carols-2', '-o', 'name']);
    expect(named.stdout).toBe('ownedaccesskey.management.loft.sh/carols-2\n');
    const key = await runVcsync(['accesskey', 'create', '--kubeconfig', kubeconfig, '--user', 'carol', '--name', 'carols-3', '-o', 'jsonpath={.spec.key}']);
    expect(key.stdout).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses a scope file with mistakes before sending anything, each at its line and column', async () => {
    const scopeFile = join(fixture.dir, 'bad-scope.yaml');
    await writeFile(scopeFile, 'roles:\n  - role: admin\nrules:\n  - verbs: [get]\n    resources: [{resources: [pods]}]\nvirtualCluster: []\n');
    const refused = await runVcsync(['accesskey', 'create', '--kubeconfig', kubeconfig, '--user', 'dan', '--name', 'dans', '--scope-file', scopeFile]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${scopeFile}:2:11 scope.roles[0].role: Unsupported value: "admin"`);
    expect(refused.stderr).toMatch(new RegExp(`${scopeFile}:6:\\d+ scope\\.virtualCluster: .*unknown scope field`));
    expect((await fixture.call('GET', `${KEYS_PATH}/dans`, { key: fixture.adminKey })).status).toBe(404);

    await writeFile(scopeFile, 'rules: [\n');
    const broken = await runVcsync(['token', 'create', '--kubeconfig', kubeconfig, '--scope-file', scopeFile]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(new RegExp(`^vcsync token create: ${scopeFile}:2:1: `));
  });

  it('token create prints a DirectClusterEndpointToken (a JWT); -o json the object', async () => {
    const token = await runVcsync(['token', 'create', '--kubeconfig', kubeconfig, '--ttl', '10m']);
    expect(token.stderr).toBe('');
    expect(token.code).toBe(0);
    expect(token.stdout.trim()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const object = await runVcsync(['token', 'create', '--kubeconfig', kubeconfig, '-o', 'json']);
    expect(JSON.parse(object.stdout)).toMatchObject({ kind: 'DirectClusterEndpointToken', status: { token: expect.stringMatching(/^ey/) } });
    const badOutput = await runVcsync(['token', 'create', '--kubeconfig', kubeconfig, '-o', 'table']);
    expect(badOutput.code).toBe(2);
    expect(badOutput.stderr).toContain('"table" is not an output format: use yaml, json, name or jsonpath=TEMPLATE');
  });

  it('kubeconfig writes the virtual cluster kube config to a 0600 file, with the server asked for', async () => {
    const file = join(fixture.dir, 'vc1.kubeconfig');
    const written = await runVcsync(['kubeconfig', '--kubeconfig', kubeconfig, '--virtual-cluster', 'vc1', '--namespace', 'vcluster-vc1', '--server', 'https://vc1.other.test:8443', '--output-file', file]);
    expect(written.stderr).toBe('');
    expect(written.code).toBe(0);
    expect(written.stdout).toBe(`Wrote the kube config of vcluster-vc1/vc1 to ${file}\n`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const config = parse(await readFile(file, 'utf8')) as { clusters: [{ cluster: { server: string } }]; users: [{ name: string; user: { token: string } }] };
    expect(config.clusters[0].cluster.server).toBe('https://vc1.other.test:8443');
    expect(config.users[0]).toMatchObject({ name: 'vcluster', user: { token: expect.stringMatching(/^ey/) } });

    const elsewhere = await runVcsync(['kubeconfig', '--kubeconfig', kubeconfig, '--virtual-cluster', 'vc2', '--namespace', 'vcluster-vc1']);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('not found');
  });

  it('exec-credential prints a client.authentication.k8s.io/v1 ExecCredential with the key as token, or says how to give one', async () => {
    const keyFile = join(fixture.dir, 'key');
    await writeFile(keyFile, 'Some_Key_0123456789abcdefghijklmnopqrstuvwxy\n', { mode: 0o600 });
    const printed = await runVcsync(['exec-credential', '--key-file', keyFile, '--expires', '2030-01-02T03:04:05Z']);
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token: 'Some_Key_0123456789abcdefghijklmnopqrstuvwxy', expirationTimestamp: '2030-01-02T03:04:05Z' },
    });
    const beta = await runVcsync(['exec-credential'], { env: { VCSYNC_ACCESS_KEY: 'from-env', KUBERNETES_EXEC_INFO: '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","spec":{"interactive":false}}' } });
    expect(JSON.parse(beta.stdout)).toEqual({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token: 'from-env' } });
    const none = await runVcsync(['exec-credential'], { env: { VCSYNC_ACCESS_KEY: undefined } });
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe('vcsync exec-credential: no access key: give --key-file FILE (or set VCSYNC_ACCESS_KEY)\n');
  });
});
