import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKubeConfig, kubeConfigYaml } from '../../src/devcluster/kube-config.js';
import { KubectlEnv, kubectlMissing } from '../support/kubectl.js';
import { KEYS_PATH, ManagementFixture } from '../support/management-fixture.js';
import { waitFor } from '../support/wait-for.js';

describe.skipIf(kubectlMissing('kubectl get -w against the management API'))('kubectl get ownedaccesskeys -w against the management API', () => {
  let fixture: ManagementFixture;
  let kubectl: KubectlEnv;
  const children: ChildProcessWithoutNullStreams[] = [];
  beforeAll(async () => {
    fixture = await ManagementFixture.start();
    kubectl = await KubectlEnv.forKubeconfig(kubeConfigYaml(buildKubeConfig({ name: 'management', server: fixture.server.url, caCertPem: fixture.tls.caCertPem, token: fixture.adminKey })), {
      prefix: 'management-kubectl-watch-',
    });
  });
  afterAll(async () => {
    for (const child of children) child.kill();
    await kubectl?.remove();
    await fixture?.stop();
  });

  /** Starts `kubectl <args>` in the background; answers what it has printed so far. */
  function background(args: string[]): { output: () => string; errors: () => string } {
    const child = spawn(kubectl.binary, kubectl.args(args), { env: { ...process.env, HOME: kubectl.dir, KUBECONFIG: kubectl.kubeconfig } });
    children.push(child);
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString();
    });
    return { output: () => output, errors: () => errors };
  }

  it('shows the table, then an ADDED and a MODIFIED row while another client creates and changes a key', async () => {
    const watch = background(['get', 'ownedaccesskeys', '-w', '--output-watch-events']);
    const seen = (pattern: RegExp) => (): boolean => {
      if (watch.errors() !== '') throw new Error(`kubectl failed: ${watch.errors()}`);
      return pattern.test(watch.output());
    };
    await waitFor('the header and the bootstrap key', seen(/EVENT\s+NAME\s+OWNER\s+TYPE\s+DISABLED\s+EXPIRES\s+LAST ACTIVITY\s+AGE\n.*ADDED\s+vcsync-bootstrap-admin\s+user:admin/), { timeoutMs: 20_000 });
    const created = await fixture.createKey({ user: 'carol', type: 'User', ttl: 3600 }, { name: 'watched-key' });
    expect(created.status).toBe(201);
    await waitFor('the ADDED row of the new key', seen(/ADDED\s+watched-key\s+user:carol\s+User\s+false\s+60m/), { timeoutMs: 20_000 });
    const disabled = await fixture.call('PATCH', `${KEYS_PATH}/watched-key`, { key: fixture.adminKey, contentType: 'application/merge-patch+json', body: { spec: { disabled: true } } });
    expect(disabled.status).toBe(200);
    await waitFor('the MODIFIED row showing it disabled', seen(/MODIFIED\s+watched-key\s+user:carol\s+User\s+true\s+60m/), { timeoutMs: 20_000 });
    expect(watch.output()).not.toContain(created.body.spec.key);
  });
});
