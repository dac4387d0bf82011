import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseScopeText } from '../../../src/cli/scope-file.js';
import { deferredCsrClient } from '../../../src/management/index.js';
import { KEYS_PATH, ManagementFixture } from '../../support/management-fixture.js';
import { REPO_ROOT } from '../../support/vcsync-cli.js';

const API = '/apis/management.loft.sh/v1';

/** The YAML blocks of the section "Objects to copy" of docs/management-api.md that hold a management object. */
async function documentedObjects(): Promise<{ text: string; object: { kind: string; metadata: { name: string }; spec?: { scope?: unknown } } }[]> {
  const page = await readFile(join(REPO_ROOT, 'docs', 'management-api.md'), 'utf8');
  const start = page.indexOf('## Objects to copy\n');
  const section = page.slice(start, page.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((match) => ({ text: match[1] ?? '', object: parse(match[1] ?? '') as { kind: string; metadata: { name: string }; spec?: { scope?: unknown } } }))
    .filter((block) => typeof block.object.kind === 'string');
}

describe('the documented objects to copy create as they are', () => {
  let fixture: ManagementFixture;
  beforeAll(async () => {
    fixture = await ManagementFixture.start({
      virtualCluster: {
        name: 'dev',
        namespace: 'vcluster-dev',
        ingressHost: () => 'dev.example.test',
        caCertPem: 'not used by a dry run',
        client: deferredCsrClient(() => {
          throw new Error('a dry run signs no certificate');
        }),
      },
    });
  });
  afterAll(async () => {
    await fixture?.stop();
  });

  it('each block creates (the kube config as a dry run), and each scope passes the local scope-file check', async () => {
    const blocks = await documentedObjects();
    expect(blocks.map((block) => block.object.kind).sort()).toEqual(['DirectClusterEndpointToken', 'OwnedAccessKey', 'OwnedAccessKey', 'OwnedAccessKey', 'OwnedAccessKey', 'VirtualClusterInstanceKubeConfig']);
    for (const { text, object } of blocks) {
      const path = {
        OwnedAccessKey: KEYS_PATH,
        DirectClusterEndpointToken: `${API}/directclusterendpointtokens`,
        VirtualClusterInstanceKubeConfig: `${API}/namespaces/vcluster-dev/virtualclusterinstances/dev/kubeconfig?dryRun=All`,
      }[object.kind];
      expect(path, object.kind).toBeDefined();
      const created = await fixture.call('POST', path!, { key: fixture.adminKey, contentType: 'application/yaml', body: text });
      expect(created.status, `${object.metadata.name}: ${created.text}`).toBe(201);
      if (object.kind === 'OwnedAccessKey') expect(created.body.spec.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
      if (object.kind === 'DirectClusterEndpointToken') expect(created.body.status.token).toMatch(/^ey/);
      if (object.spec?.scope !== undefined) expect(parseScopeText(JSON.stringify(object.spec.scope), 'scope.json'), object.metadata.name).toMatchObject({ ok: true });
    }
  });
});
