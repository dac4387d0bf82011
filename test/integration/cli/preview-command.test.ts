import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runPreview } from '../../../src/cli/run-preview.js';

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
      'apiVersion: v1', 'kind: Service', 'metadata: {name: db, namespace: shop}', '---',
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

  it('shows exactly what the syncer does: skipped objects are named on stderr with the skip cause and reason, -o json holds only host objects', async () => {
    const config = join(dir, 'vcluster.yaml');
    await writeFile(config, 'sync:\n  toHost:\n    endpoints: {}\n');
    // What `kubectl get endpoints,services -A -o yaml` prints, cut down.
    const input = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'kubernetes', namespace: 'default' }, spec: {} },
        { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'kubernetes', namespace: 'default' }, subsets: [{ addresses: [{ ip: '10.0.0.1' }] }] },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { selector: { app: 'web' } } },
        { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 'shop' } },
        { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'lonely', namespace: 'shop' } },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'plugged', namespace: 'shop' }, spec: {} },
        { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'plugged', namespace: 'shop', labels: { 'vcluster.loft.sh/controlled-by': 'my-plugin' } } },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db', namespace: 'shop' }, spec: {} },
        { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'db', namespace: 'shop' } },
      ],
    };
    const out = sink();
    const err = sink();
    const code = await runPreview({ configPath: config, objectPath: '-', vclusterName: 'vc', hostNamespace: 'vcluster-vc', output: 'json', out, err, stdin: [JSON.stringify(input)] });
    expect(code).toBe(0);
    const list = JSON.parse(out.text);
    expect(list.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['db-x-shop-x-vc']);
    const skips = err.text.split('\n').filter((line) => line.includes('skipped Endpoints'));
    expect(skips).toHaveLength(4);
    expect(skips[0]).toContain('skipped Endpoints default/kubernetes (never_synced): default/kubernetes is never synced');
    expect(skips[1]).toContain('skipped Endpoints shop/web (excluded): the Service has a selector');
    expect(skips[2]).toContain('skipped Endpoints shop/lonely (excluded): no virtual Service of the same name');
    expect(skips[3]).toContain('skipped Endpoints shop/plugged (controlled_elsewhere): it is labelled vcluster.loft.sh/controlled-by=my-plugin');

    // Everything skipped: still a List, empty.
    const none = sink();
    const kubernetesOnly = { ...input, items: input.items.slice(0, 2) };
    expect(await runPreview({ configPath: config, objectPath: '-', vclusterName: 'vc', hostNamespace: 'vcluster-vc', output: 'json', out: none, err: sink(), stdin: [JSON.stringify(kubernetesOnly)] })).toBe(0);
    expect(JSON.parse(none.text)).toMatchObject({ kind: 'List', items: [] });
  });

  it('skips every object, saying so, when the sync is disabled', async () => {
    const config = join(dir, 'vcluster.yaml');
    await writeFile(config, 'sync:\n  toHost:\n    endpoints:\n      enabled: false\n');
    const objects = join(dir, 'objects.yaml');
    await writeFile(objects, 'apiVersion: v1\nkind: Endpoints\nmetadata: {name: a, namespace: shop}\n');
    const out = sink();
    const err = sink();
    expect(await runPreview({ configPath: config, objectPath: objects, vclusterName: 'vc', hostNamespace: 'ns', out, err })).toBe(0);
    expect(out.text).toBe('');
    expect(err.text).toContain(`${objects}:1:1 document 1: skipped Endpoints shop/a (disabled): sync.toHost.endpoints.enabled is false`);
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

  const configWithTeamPatch = async (): Promise<string> => {
    const config = join(dir, 'vcluster.yaml');
    await writeFile(config, [
      'sync:', '  toHost:', '    endpoints:', '      patches:',
      '        - path: metadata.annotations["team"]', '          expression: \'"team-" + value\'',
    ].join('\n'));
    return config;
  };
  /** What `kubectl get endpoints -o yaml` prints for two objects. */
  const KUBECTL_LIST = [
    'apiVersion: v1',
    'items:',
    '- apiVersion: v1',
    '  kind: Endpoints',
    '  metadata: {name: db, namespace: shop, annotations: {team: a}}',
    '  subsets: [{addresses: [{ip: 10.1.0.1}], ports: [{port: 5432}]}]',
    '- apiVersion: v1',
    '  kind: Endpoints',
    '  metadata: {name: cache, namespace: shop}',
    'kind: List',
    'metadata:',
    '  resourceVersion: ""',
    '',
  ].join('\n');

  it('reads a List (what kubectl get -o yaml prints) from standard input with -f -', async () => {
    const config = await configWithTeamPatch();
    const out = sink();
    const err = sink();
    const code = await runPreview({ configPath: config, objectPath: '-', vclusterName: 'vc', hostNamespace: 'vcluster-vc', out, err, stdin: [Buffer.from(KUBECTL_LIST)] });
    expect(err.text).toBe('');
    expect(code).toBe(0);
    const hosts = out.text.split(/^---\n/m).filter((d) => d.trim() !== '').map((d) => parse(d));
    expect(hosts.map((h) => h.metadata.name)).toEqual(['db-x-shop-x-vc', 'cache-x-shop-x-vc']);
    expect(hosts[0].metadata.annotations.team).toBe('team-a');
  });

  it('locates every problem with line:column, in files and in List items', async () => {
    const config = await configWithTeamPatch();
    const objects = join(dir, 'objects.yaml');
    await writeFile(objects, [
      'kind: List',                                  // 1
      'items:',                                      // 2
      '  - kind: Endpoints',                         // 3
      '    metadata: {namespace: shop}',             // 4
      '---',                                         // 5
      'kind: Endpoints',                             // 6
      'metadata: {name: [unclosed',                  // 7
    ].join('\n'));
    const err = sink();
    const code = await runPreview({ configPath: config, objectPath: objects, vclusterName: 'vc', hostNamespace: 'ns', out: sink(), err });
    expect(code).toBe(1);
    const lines = err.text.trim().split('\n');
    expect(lines[0]).toBe(`${objects}:3:5 document 1 items[0]: an Endpoints needs metadata.name`);
    expect(lines[1]).toMatch(new RegExp(`^${objects.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:7:\\d+ document 2: `));
  });

  it('prints JSON, and kubectl-style JSONPath templates (paths, literals, range) with jsonpath-plus', async () => {
    const config = await configWithTeamPatch();
    const run = async (output: string): Promise<{ code: number; out: string; err: string }> => {
      const out = sink();
      const err = sink();
      const code = await runPreview({ configPath: config, objectPath: '-', vclusterName: 'vc', hostNamespace: 'vcluster-vc', output, out, err, stdin: [KUBECTL_LIST] });
      return { code, out: out.text, err: err.text };
    };
    const json = await run('json');
    expect(json.code).toBe(0);
    const list = JSON.parse(json.out);
    expect(list.kind).toBe('List');
    expect(list.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['db-x-shop-x-vc', 'cache-x-shop-x-vc']);

    expect((await run('jsonpath={.items[*].metadata.name}')).out).toBe('db-x-shop-x-vc cache-x-shop-x-vc');
    expect((await run('jsonpath={range .items[*]}{.metadata.name}{"\\t"}{.metadata.annotations.vcluster\\.loft\\.sh/object-name}{"\\n"}{end}')).out).toBe(
      'db-x-shop-x-vc\tdb\ncache-x-shop-x-vc\tcache\n',
    );
    expect((await run('jsonpath={.items[0].metadata.annotations.team}')).out).toBe('team-a');

    const bad = await run('jsonpath={range .items[*]}{.metadata.name}');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('{range …} without {end}');
    const unknown = await run('wide');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('-o wide: expected yaml, json or jsonpath=TEMPLATE');
  });
});

