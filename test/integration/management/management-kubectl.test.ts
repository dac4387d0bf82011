import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKubeConfig, kubeConfigYaml } from '../../../src/devcluster/kube-config.js';
import { KubectlEnv, kubectlMissing } from '../../support/kubectl.js';
import { ManagementFixture } from '../../support/management-fixture.js';

const SEED_KEY = `apiVersion: management.loft.sh/v1
kind: OwnedAccessKey
metadata:
  name: pipeline
spec:
  displayName: pipeline key
  ttl: 3600
  type: User
  user: alice
status: {}
`;

describe.skipIf(kubectlMissing('the management kubectl tests'))('kubectl against the management API', () => {
  let fixture: ManagementFixture;
  let kubectl: KubectlEnv;
  beforeAll(async () => {
    fixture = await ManagementFixture.start();
    kubectl = await KubectlEnv.forKubeconfig(kubeConfigYaml(buildKubeConfig({ name: 'management', server: fixture.server.url, caCertPem: fixture.tls.caCertPem, token: fixture.adminKey })), {
      prefix: 'management-kubectl-',
    });
  });
  afterAll(async () => {
    await kubectl?.remove();
    await fixture?.stop();
  });

  it('kubectl --server <base URL> --token <key> --certificate-authority <ca> get ownedaccesskeys', async () => {
    const result = await kubectl.run(['--server', fixture.server.url, '--token', fixture.adminKey, '--certificate-authority', fixture.tls.caCertPath, 'get', 'ownedaccesskeys']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^NAME\s+OWNER\s+TYPE\s+DISABLED\s+EXPIRES\s+LAST ACTIVITY\s+AGE/);
    expect(result.stdout).toMatch(/vcsync-bootstrap-admin\s+user:admin\s+Other\s+false\s+<never>/);
  });

  it('a wrong token: kubectl reports the 401', async () => {
    const result = await kubectl.run(['--token', 'NotAKey_0123456789abcdefghijklmnopqrstuv', 'get', 'ownedaccesskeys']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Unauthorized|must be logged in/);
  });

  it('create -f (a documented example key), -o yaml shows the key once; get -o yaml never', async () => {
    const file = await kubectl.file('key.yaml', SEED_KEY);
    const created = await kubectl.ok(['create', '-f', file, '-o', 'jsonpath={.spec.key}']);
    expect(created).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const read = await kubectl.ok(['get', 'ownedaccesskey', 'pipeline', '-o', 'yaml']);
    expect(read).toContain('displayName: pipeline key');
    expect(read).not.toContain('key:');
    const asPipeline = await kubectl.ok(['--token', created, 'get', 'ownedaccesskeys', '-o', 'name']);
    expect(asPipeline.trim()).toBe('ownedaccesskey.management.loft.sh/pipeline');
  });

  it('patch --type json (an annotation, as documented), replace (edit-style), apply --server-side, delete', async () => {
    await kubectl.ok(['patch', 'ownedaccesskey', 'pipeline', '--type', 'json', '-p', '[{"op":"add","path":"/metadata/annotations","value":{"example":"yes"}}]']);
    expect(await kubectl.ok(['get', 'ownedaccesskey', 'pipeline', '-o', 'jsonpath={.metadata.annotations.example}'])).toBe('yes');
    const current = await kubectl.ok(['get', 'ownedaccesskey', 'pipeline', '-o', 'yaml']);
    const edited = await kubectl.file('edited.yaml', current.replace('displayName: pipeline key', 'displayName: edited'));
    await kubectl.ok(['replace', '-f', edited]);
    expect(await kubectl.ok(['get', 'ownedaccesskey', 'pipeline', '-o', 'jsonpath={.spec.displayName} {.metadata.generation}'])).toBe('edited 2');
    const applied = await kubectl.file('applied.yaml', SEED_KEY.replace('name: pipeline', 'name: applied').replace('status: {}\n', ''));
    await kubectl.ok(['apply', '--server-side', '-f', applied]);
    expect(await kubectl.ok(['get', 'ownedaccesskey', 'applied', '-o', 'jsonpath={.metadata.managedFields[0].operation}'])).toBe('Apply');
    await kubectl.ok(['delete', 'ownedaccesskey', 'pipeline', 'applied']);
    const left = await kubectl.ok(['get', 'ownedaccesskeys', '-o', 'name']);
    expect(left.trim()).toBe('ownedaccesskey.management.loft.sh/vcsync-bootstrap-admin');
  });

  it('auth can-i answers what the authorizer decides for an admin key and a narrow platformCLI key; auth whoami names the key’s user and groups', async () => {
    const created = await fixture.createKey({ user: 'alice', groups: ['pipelines'], scope: { roles: [{ role: 'platformCLI' }] } }, { name: 'alices-cli' });
    expect(created.status, created.text).toBe(201);
    const narrow = created.body.spec.key as string;
    const canI = async (key: string, args: string[]): Promise<string> => {
      const result = await kubectl.run(['--token', key, 'auth', 'can-i', ...args]);
      // "yes", or "no" (with " - <reason>" when the server gave one).
      const answer = result.stdout.trim().split(' ')[0] ?? '';
      if (answer !== 'yes' && answer !== 'no') throw new Error(`kubectl auth can-i ${args.join(' ')}: ${result.stdout}${result.stderr}`);
      return answer;
    };
    // [can-i arguments, admin key, narrow key]
    const rows: Array<[string[], string, string]> = [
      [['list', 'ownedaccesskeys'], 'yes', 'yes'],
      [['watch', 'ownedaccesskeys'], 'yes', 'yes'],
      [['create', 'ownedaccesskeys'], 'yes', 'no'],
      [['delete', 'ownedaccesskeys'], 'yes', 'no'],
      [['get', 'ownedaccesskeys/alices-cli'], 'yes', 'yes'],
      [['get', 'ownedaccesskeys/vcsync-bootstrap-admin'], 'yes', 'no'],
      [['get', '/version'], 'yes', 'yes'],
      [['get', '/metrics'], 'yes', 'no'],
      [['list', 'pods'], 'no', 'no'],
    ];
    const answers: Array<[string, string, string]> = [];
    for (const [args] of rows) answers.push([args.join(' '), await canI(fixture.adminKey, args), await canI(narrow, args)]);
    expect(answers).toEqual(rows.map(([args, admin, narrowAnswer]) => [args.join(' '), admin, narrowAnswer]));

    const whoami = (key: string): Promise<string> => kubectl.ok(['--token', key, 'auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username} {.status.userInfo.groups}']);
    expect(await whoami(narrow)).toBe('alice ["pipelines","system:authenticated"]');
    expect(await whoami(fixture.adminKey)).toMatch(/^admin \[.*"system:authenticated"\]$/);
  });

  it('explain reads the OpenAPI schema under the base path', async () => {
    const explained = await kubectl.ok(['explain', 'ownedaccesskeys.spec.ttlAfterLastActivity']);
    expect(explained).toContain('time to live counts from status.lastActivity');
  });
});
