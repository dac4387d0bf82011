import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKubeConfig, kubeConfigYaml } from '../../../src/devcluster/kube-config.js';
import { parseTtl } from '../../../src/cli/accesskey-command.js';
import { rfc3339 } from '../../../src/apiserver/object-writer.js';
import { KEYS_PATH, ManagementFixture } from '../../support/management-fixture.js';
import { MapStorage } from '../../support/map-storage.js';
import { assertBuilt, runVcsync } from '../../support/vcsync-cli.js';

describe('vcsync accesskey: a client of the management API', () => {
  let fixture: ManagementFixture;
  let storage: MapStorage;
  let kubeconfig: string;
  beforeAll(async () => {
    assertBuilt();
    storage = new MapStorage();
    fixture = await ManagementFixture.start({ storage });
    kubeconfig = join(fixture.dir, 'management.kubeconfig');
    await writeFile(kubeconfig, kubeConfigYaml(buildKubeConfig({ name: 'management', server: fixture.server.url, caCertPem: fixture.tls.caCertPem, token: fixture.adminKey })));
  });
  afterAll(async () => {
    await fixture?.stop();
  });

  it.each([
    ['3600', 3600],
    ['90s', 90],
    ['30m', 1800],
    ['24h', 86_400],
    ['7d', 604_800],
    ['1h30m', 5400],
  ])('--ttl %s is %i seconds', (text, seconds) => {
    expect(parseTtl(text)).toBe(seconds);
  });

  it('refuses a --ttl that is no duration', () => {
    expect(() => parseTtl('soon')).toThrow(/not a duration/);
    expect(() => parseTtl('1h 30m')).toThrow(/not a duration/);
  });

  it('create prints the key once (it works), list shows it, disable stops it, delete removes it', async () => {
    const created = await runVcsync(['accesskey', 'create', '--kubeconfig', kubeconfig, '--user', 'ivan', '--name', 'ivans', '--ttl', '24h', '--group', 'ci']);
    expect(created.stderr).toContain('Created access key ivans; the key is shown only now');
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const read = await fixture.call('GET', `${KEYS_PATH}/ivans`, { key });
    expect(read.body.spec).toMatchObject({ user: 'ivan', ttl: 86_400, groups: ['ci'], type: 'User' });

    const listed = await runVcsync(['accesskey', 'list', '--kubeconfig', kubeconfig]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^NAME\s+OWNER\s+DISABLED\s+EXPIRES\s+LAST ACTIVITY/);
    expect(listed.stdout).toMatch(/ivans\s+user:ivan\s+false\s+\d{4}-/);
    expect(listed.stdout).not.toContain(key);

    const disabled = await runVcsync(['accesskey', 'disable', 'ivans', '--kubeconfig', kubeconfig]);
    expect(disabled.code).toBe(0);
    expect((await fixture.call('GET', KEYS_PATH, { key })).status).toBe(401);

    expect((await runVcsync(['accesskey', 'delete', 'ivans', '--kubeconfig', kubeconfig])).code).toBe(0);
    expect((await fixture.call('GET', `${KEYS_PATH}/ivans`, { key: fixture.adminKey })).status).toBe(404);
  });

  it('create needs exactly one owner', async () => {
    const result = await runVcsync(['accesskey', 'create', '--kubeconfig', kubeconfig]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('give exactly one of --user, --team or --subject');
  });

  it('rotate-admin: a new bootstrap key in the 0600 key file and the kubeconfig, the old one refused, never printed', async () => {
    const old = fixture.adminKey;
    // Idle for more than the activity interval: this request makes the server write the key's
    // status.lastActivity, and that write lands between the PATCH's read and its write.
    fixture.nowMs += 61_000;
    const lastActivity = rfc3339(fixture.nowMs);
    storage.holdNextUpdate((object) => (object['status'] as { lastActivity?: string } | undefined)?.lastActivity === lastActivity);
    const rotated = await runVcsync(['accesskey', 'rotate-admin', '--kubeconfig', kubeconfig, '--key-file', fixture.bootstrapKeyPath]);
    expect(rotated.stderr).toBe('');
    expect(rotated.code).toBe(0);
    expect(storage.interleaved).toBe(1);
    const key = (await readFile(fixture.bootstrapKeyPath, 'utf8')).trim();
    expect(key).not.toBe(old);
    expect(rotated.stdout).not.toContain(key);
    expect((await stat(fixture.bootstrapKeyPath)).mode & 0o777).toBe(0o600);
    expect(await readFile(kubeconfig, 'utf8')).toContain(`token: ${key}`);
    expect((await fixture.call('GET', KEYS_PATH, { key })).status).toBe(200);
    expect((await fixture.call('GET', KEYS_PATH, { key: old })).status).toBe(401);
  });
});
