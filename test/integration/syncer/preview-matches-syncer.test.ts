import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runPreview } from '../../../src/cli/run-preview.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import type { Endpoints } from '../../../src/syncer/endpoints/endpoints-types.js';
import { PatchSandbox } from '../../../src/patches/index.js';
import { createHostPreview } from '../../../src/syncer/host-preview.js';
import { SYNCABLE_RESOURCES } from '../../../src/syncer/resources.js';
import { loadCheckedConfig } from '../../../src/syncer/sync-config.js';
import { LABEL_MANAGED_BY } from '../../../src/translate/keys.js';
import { startResourceSyncer, type RunningResourceSyncer } from '../../support/resource-syncer-harness.js';
import { ensureNamespace, startTwoClusters, type TwoClusters } from '../../support/sync-harness.js';
import { endpointsFixture } from '../../support/synced-resource-fixtures.js';
import { waitFor } from '../../support/wait-for.js';

const VC = 'vc1';
const OBJECTS = 40;

// Three expression patches: a wildcard path with a regex, an annotation and a label.
const CONFIG = [
  'sync:', '  toHost:', '    endpoints:', '      patches:',
  '        - path: subsets[*].addresses[*].ip', '          expression: \'value.replace(/^10\\./, "192.")\'',
  '        - path: metadata.annotations.team', '          expression: \'value.toUpperCase() + "-" + context.vcluster.name\'',
  '        - path: metadata.labels.app', '          expression: \'value + "-" + context.vcluster.name\'',
].join('\n');

function sink() {
  let text = '';
  return { write: (chunk: string) => { text += chunk; }, get text() { return text; } };
}

/** A listed host Endpoints as the syncer wrote it: the kind (a list's items carry none), without what the server sets. */
function asWritten(object: KubeObject): KubeObject {
  const metadata = { ...object.metadata };
  for (const field of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'generation'] as const) delete metadata[field];
  return { apiVersion: 'v1', kind: 'Endpoints', ...object, metadata };
}

function byName(objects: readonly KubeObject[]): Map<string, KubeObject> {
  return new Map(objects.map((object) => [object.metadata?.name ?? '', object]));
}

describe('vcsync preview and the syncer write the same host object', () => {
  let dir: string;
  let clusters: TwoClusters;
  let syncer: RunningResourceSyncer | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vcsync-preview-syncer-'));
    clusters = await startTwoClusters({ hostNamespace: `vcluster-${VC}` });
  });
  afterEach(async () => {
    await syncer?.stop();
    syncer = undefined;
    await clusters.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('for every object of a List with patches, and patched many at once as the syncer does', async () => {
    for (const namespace of ['shop', 'bank']) await ensureNamespace(clusters.virtualClient, namespace);
    const virtual: KubeObject[] = [];
    for (let i = 0; i < OBJECTS; i += 1) {
      const namespace = i % 2 === 0 ? 'shop' : 'bank';
      const name = `web-${i}`;
      virtual.push(await clusters.virtualClient.create<KubeObject>(`/api/v1/namespaces/${namespace}/services`, {
        apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }] },
      } as KubeObject));
      virtual.push(await clusters.virtualClient.create<KubeObject>(`/api/v1/namespaces/${namespace}/endpoints`, {
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name, labels: { app: name }, annotations: { team: `team-${i}` } },
        subsets: [{
          addresses: [1, 2, 3].map((k) => ({ ip: `10.0.${i}.${k}`, targetRef: { kind: 'Pod', namespace, name: `${name}-${k}`, uid: `uid-${i}-${k}` } })),
          ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
        }],
      } as Endpoints));
    }
    const config = join(dir, 'vcluster.yaml');
    await writeFile(config, CONFIG);

    syncer = await startResourceSyncer(clusters, endpointsFixture, { vclusterName: VC, configYaml: CONFIG, patchTimeoutMs: 2000 });
    const written = await waitFor(`${OBJECTS} host copies`, async () => {
      const items = await endpointsFixture.list(clusters.hostClient, clusters.hostNamespace, `${LABEL_MANAGED_BY}=${VC}`);
      return items.length === OBJECTS ? items : undefined;
    });

    // The objects as `kubectl get services,endpoints -A -o json` prints them, server fields included.
    const objects = join(dir, 'objects.json');
    await writeFile(objects, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: virtual }));
    const out = sink();
    const err = sink();
    const code = await runPreview({ configPath: config, objectPath: objects, vclusterName: VC, hostNamespace: clusters.hostNamespace, output: 'json', out, err });
    expect(err.text.split('\n').filter((line) => line !== '' && !line.includes('skipped Service'))).toEqual([]);
    expect(code).toBe(0);
    const previewed = byName((JSON.parse(out.text) as { items: KubeObject[] }).items);

    const hosts = byName(written);
    expect([...previewed.keys()].sort()).toEqual([...hosts.keys()].sort());
    for (const [name, host] of hosts) expect(previewed.get(name), name).toEqual(asWritten(host));
    // The patches did run: the same object a reviewer reads in the preview.
    expect((previewed.get('web-3-x-bank-x-vc1') as Endpoints | undefined)?.subsets?.[0]).toMatchObject({ addresses: [{ ip: '192.0.3.1' }, { ip: '192.0.3.2' }, { ip: '192.0.3.3' }] });
  });

  it('returns outcomes in input order, with the objects of one input sharing sandbox crossings', async () => {
    const config = join(dir, 'vcluster.yaml');
    await writeFile(config, CONFIG);
    const loaded = await loadCheckedConfig(config, SYNCABLE_RESOURCES);
    if (!loaded.ok) throw new Error('the test config is invalid');
    const inputs: unknown[] = [];
    for (let i = 0; i < OBJECTS; i += 1) {
      inputs.push({ apiVersion: 'v1', kind: 'Service', metadata: { name: `web-${i}`, namespace: 'shop' }, spec: {} });
      inputs.push({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: `web-${i}`, namespace: 'shop', labels: { app: `a${i}` } }, subsets: [{ addresses: [{ ip: `10.1.0.${i}` }] }] });
    }
    const sandbox = new PatchSandbox({ timeoutMs: 2000 });
    try {
      const built = createHostPreview(SYNCABLE_RESOURCES, { vclusterName: VC, hostNamespace: 'vcluster-vc1', config: loaded.config, sandbox });
      if (!built.ok) throw new Error('the test patches are invalid');
      const outcomes = await built.preview.previewAll(inputs);
      expect(outcomes.map((outcome) => outcome.kind)).toEqual(inputs.map((_, index) => (index % 2 === 0 ? 'skipped' : 'host')));
      const hosts = outcomes.flatMap((outcome) => (outcome.kind === 'host' ? [outcome.object] : []));
      expect(hosts.map((host) => host.metadata?.labels?.['app'])).toEqual(Array.from({ length: OBJECTS }, (_, i) => `a${i}-${VC}`));
      expect(hosts.map((host) => (host as { subsets?: { addresses?: { ip: string }[] }[] }).subsets?.[0]?.addresses?.[0]?.ip)).toEqual(
        Array.from({ length: OBJECTS }, (_, i) => `192.1.0.${i}`),
      );
      // One crossing per object was the old, serial preview; a shared crossing carries several.
      expect(sandbox.crossings).toBeLessThan(OBJECTS);
    } finally {
      sandbox.dispose();
    }
  });
});
