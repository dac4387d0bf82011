import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { KubectlEnv, kubectlMissing } from '../support/kubectl.js';
import { ManagementFixture } from '../support/management-fixture.js';
import { assertBuilt, VCSYNC_MAIN } from '../support/vcsync-cli.js';

const missing = kubectlMissing('the exec-credential e2e test');

describe.skipIf(missing)('kubectl with vcsync as its credential plugin', () => {
  let fixture: ManagementFixture;
  let env: KubectlEnv;
  beforeAll(async () => {
    assertBuilt();
    fixture = await ManagementFixture.start();
    const key = await fixture.newKey('erins', { user: 'erin', groups: ['developers'] });
    const keyFile = join(fixture.dir, 'erin.key');
    await writeFile(keyFile, `${key}\n`, { mode: 0o600 });
    // What a user writes: the access key stays in its file, vcsync hands it to kubectl.
    const kubeconfig = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'management', cluster: { server: fixture.server.url, 'certificate-authority-data': Buffer.from(fixture.tls.caCertPem).toString('base64') } }],
      users: [{ name: 'erin', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: VCSYNC_MAIN, args: ['exec-credential', '--key-file', keyFile], interactiveMode: 'Never' } } }],
      contexts: [{ name: 'management', context: { cluster: 'management', user: 'erin' } }],
      'current-context': 'management',
    };
    env = await KubectlEnv.forKubeconfig(stringify(kubeconfig), { prefix: 'exec-credential-' });
  });
  afterAll(async () => {
    await env?.remove();
    await fixture?.stop();
  });

  it('authenticates as the key’s user: whoami names erin, and get lists the keys erin owns', async () => {
    const whoami = await env.ok(['auth', 'whoami']);
    expect(whoami).toMatch(/Username\s+erin/);
    expect(whoami).toMatch(/Groups\s+\[developers system:authenticated\]/);
    expect((await env.ok(['get', 'ownedaccesskeys', '-o', 'name'])).trim()).toBe('ownedaccesskey.management.loft.sh/erins');
  });
});
