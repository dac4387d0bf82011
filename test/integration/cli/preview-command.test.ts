import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runPreview } from '../../../src/cli/preview-command.js';

function sink() {
  let text = '';
  return { write: (chunk: string) => { text += chunk; }, get text() { return text; } };
}

describe('vcsync preview', () => {
  let dir: string;
  beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'vcsync-preview-')); });
  afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

  it('prints the translated and patched host object, skipping other kinds', async () => {
    const config = join(dir, 'vcluster.yaml');
    await writeFile(config, [
      'sync:', '  toHost:', '    endpoints:', '      patches:',
      '        - path: metadata.annotations["team"]', '          expression: \'"team-" + value\'',
    ].join('\n'));
    const objects = join(dir, 'objects.yaml');
    await writeFile(objects, [
      'apiVersion: v1', 'kind: Service', 'metadata: {name: db}', '---',
      'apiVersion: v1', 'kind: Endpoints', 'metadata: {name: db, namespace: shop, annotations: {team: a}}',
      'subsets: [{addresses: [{ip: 10.1.0.1, targetRef: {kind: Pod, name: db-0, uid: u1}}], ports: [{port: 5432}]}]',
    ].join('\n'));
    const out = sink();
    const err = sink();
    const code = await runPreview({ configPath: config, objectPath: objects, vclusterName: 'vc', hostNamespace: 'vcluster-vc', out, err });
    expect(code).toBe(0);
    expect(err.text).toContain('document 1: skipped Service');
    const host = parse(out.text.replace(/^---\n/, ''));
    expect(host.metadata.name).toBe('db-x-shop-x-vc');
    expect(host.metadata.namespace).toBe('vcluster-vc');
    expect(host.metadata.annotations.team).toBe('team-a');
    expect(host.subsets[0].addresses[0].targetRef).toEqual({ kind: 'Pod', name: 'db-0-x-shop-x-vc', namespace: 'vcluster-vc' });
  });

  it('fails with the config error located when the config is invalid', async () => {
    const config = join(dir, 'vcluster.yaml');
    await writeFile(config, 'sync:\n  toHost:\n    endpoints:\n      enabled: "yes"\n');
    const objects = join(dir, 'objects.yaml');
    await writeFile(objects, 'apiVersion: v1\nkind: Endpoints\nmetadata: {name: a}\n');
    const err = sink();
    const code = await runPreview({ configPath: config, objectPath: objects, vclusterName: 'vc', hostNamespace: 'ns', out: sink(), err });
    expect(code).toBe(1);
    expect(err.text).toMatch(/vcluster\.yaml:4:\d+ .*sync\.toHost\.endpoints\.enabled/);
  });
});
