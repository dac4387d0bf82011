import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runPreview } from '../../../src/cli/run-preview.js';
import { runValidate } from '../../../src/cli/run-validate.js';

function sink() {
  let text = '';
  return { write: (chunk: string) => { text += chunk; }, get text() { return text; } };
}

describe('vcsync preview and validate with EndpointSlices', () => {
  let dir: string;
  beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'vcsync-slices-preview-')); });
  afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

  it('prints the host slice the syncer would write: host names, the host Service in service-name, vcsync as managed-by, patches applied', async () => {
    const config = join(dir, 'vcluster.yaml');
    await writeFile(config, [
      'sync:', '  toHost:', '    endpointSlices:', '      patches:',
      '        - path: endpoints[*].addresses[*]', '          expression: \'value.replace("10.1.", "10.9.")\'',
    ].join('\n'));
    const objects = join(dir, 'objects.yaml');
    await writeFile(objects, [
      'apiVersion: v1', 'kind: Service', 'metadata: {name: db, namespace: shop}', '---',
      'apiVersion: discovery.k8s.io/v1', 'kind: EndpointSlice',
      'metadata: {name: db-x1, namespace: shop, labels: {kubernetes.io/service-name: db, endpointslice.kubernetes.io/managed-by: endpointslicemirroring-controller.k8s.io}}',
      'addressType: IPv4',
      'endpoints: [{addresses: [10.1.0.1], conditions: {ready: true}, targetRef: {kind: Pod, name: db-0, uid: u1}}]',
      'ports: [{name: sql, port: 5432, protocol: TCP}]',
    ].join('\n'));
    const out = sink();
    const err = sink();
    const code = await runPreview({ configPath: config, objectPath: objects, vclusterName: 'vc', hostNamespace: 'vcluster-vc', out, err });
    expect(code, err.text).toBe(0);
    expect(err.text).toContain('document 1: skipped Service');
    const host = parse(out.text.replace(/^---\n/, ''));
    expect(host.apiVersion).toBe('discovery.k8s.io/v1');
    expect(host.kind).toBe('EndpointSlice');
    expect(host.metadata.name).toBe('db-x1-x-shop-x-vc');
    expect(host.metadata.namespace).toBe('vcluster-vc');
    expect(host.metadata.labels['kubernetes.io/service-name']).toBe('db-x-shop-x-vc');
    expect(host.metadata.labels['endpointslice.kubernetes.io/managed-by']).toBe('vcsync.vcluster.loft.sh');
    expect(host.addressType).toBe('IPv4');
    expect(host.endpoints).toEqual([{ addresses: ['10.9.0.1'], conditions: { ready: true }, targetRef: { kind: 'Pod', name: 'db-0-x-shop-x-vc', namespace: 'vcluster-vc' } }]);
    expect(host.ports).toEqual([{ name: 'sql', port: 5432, protocol: 'TCP' }]);
  });

  it('names on stderr the slices the syncer skips, and why', async () => {
    const config = join(dir, 'vcluster.yaml');
    await writeFile(config, 'sync:\n  toHost:\n    endpointSlices: {}\n');
    const slice = (name: string, labels: Record<string, string>) => ({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name, namespace: 'shop', labels }, addressType: 'IPv4' });
    const input = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { selector: { app: 'web' } } },
        slice('web-1', { 'kubernetes.io/service-name': 'web' }),
        slice('orphan', {}),
        slice('gone-1', { 'kubernetes.io/service-name': 'gone' }),
      ],
    };
    const objects = join(dir, 'objects.json');
    await writeFile(objects, JSON.stringify(input));
    const out = sink();
    const err = sink();
    expect(await runPreview({ configPath: config, objectPath: objects, vclusterName: 'vc', hostNamespace: 'vcluster-vc', out, err, output: 'json' })).toBe(0);
    expect(JSON.parse(out.text)).toMatchObject({ kind: 'List', items: [] });
    expect(err.text).toContain('skipped EndpointSlice shop/web-1 (excluded): the Service web has a selector');
    expect(err.text).toContain('skipped EndpointSlice shop/orphan (excluded): EndpointSlice shop/orphan has no label kubernetes.io/service-name');
    expect(err.text).toContain('skipped EndpointSlice shop/gone-1 (excluded): no virtual Service gone');
  });

  it('validates sync.toHost.endpointSlices.patches, naming the file, line and path of a broken one', async () => {
    const config = join(dir, 'vcluster.yaml');
    await writeFile(config, ['sync:', '  toHost:', '    endpointSlices:', '      patches:', '        - path: endpoints[*].addresses[*]', '          expression: \'value +\''].join('\n'));
    const out = sink();
    const err = sink();
    expect(await runValidate({ configPath: config, out, err })).not.toBe(0);
    expect(`${out.text}${err.text}`).toMatch(/vcluster\.yaml:6:\d+.*sync\.toHost\.endpointSlices\.patches\[0\]\.expression/);
  });
});
