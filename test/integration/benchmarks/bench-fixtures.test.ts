import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../../src/config/load-config-file.js';
import { registryConfigSchema } from '../../../src/syncer/resources.js';
import type { KubeObject } from '../../../src/kube/kube-object.js';
import { assertBuilt, REPO_ROOT } from '../../support/vcsync-cli.js';

/** One entry of SYNC_RESOURCES in benchmarks/lib/endpoints-fixtures.mjs: what `--resource` picks. */
interface BenchResource {
  name: string;
  kind: string;
  plural: string;
  type: { group?: string; version: string; resource: string };
  controller: string;
  objectName(i: number): string;
  object(i: number, namespace: string, generation?: number): KubeObject;
  firstIp(object: unknown): string | undefined;
}

/** What the tests use of benchmarks/lib/endpoints-fixtures.mjs (plain JavaScript, typed here). */
interface BenchFixtures {
  SYNC_RESOURCES: Record<string, BenchResource>;
  RESOURCE_CHOICES: string[];
  syncConfig(resource: BenchResource): string;
  resultName(benchmark: string, resource: BenchResource, realHost?: boolean): string;
  tableName(benchmark: string, resource: BenchResource, realHost?: boolean): string;
  service(i: number, namespace: string): KubeObject;
  firstIp(i: number, generation: number): string;
  translateForHost(objects: KubeObject[], services: KubeObject[], options: { configPath: string; vclusterName: string; hostNamespace: string }): Promise<KubeObject[]>;
}

let fixtures: BenchFixtures;
let dir: string;

beforeAll(async () => {
  assertBuilt(['src/kube', 'src/config', 'src/syncer', 'src/patches']);
  fixtures = (await import(pathToFileURL(join(REPO_ROOT, 'benchmarks/lib/endpoints-fixtures.mjs')).href)) as BenchFixtures;
  dir = await mkdtemp(join(tmpdir(), 'bench-fixtures-'));
});

afterAll(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Writes the config a benchmark of `resource` runs with and returns its path. */
async function configFile(resource: BenchResource): Promise<string> {
  const path = join(dir, `${resource.name}.yaml`);
  await writeFile(path, fixtures.syncConfig(resource));
  return path;
}

const RESOURCES = ['endpoints', 'endpointslices'];

describe('syncer benchmarks: one resource per run', () => {
  it('--resource takes Endpoints and EndpointSlices', () => {
    expect(fixtures.RESOURCE_CHOICES).toEqual(RESOURCES);
  });

  it('Endpoints keep their result files and table rows; slices get their own beside them', () => {
    const { endpoints, endpointslices } = fixtures.SYNC_RESOURCES as { endpoints: BenchResource; endpointslices: BenchResource };
    expect([fixtures.resultName('syncer-bulk', endpoints), fixtures.resultName('syncer-bulk', endpoints, true)]).toEqual(['syncer-bulk', 'syncer-bulk-real-host']);
    expect([fixtures.resultName('syncer-bulk', endpointslices), fixtures.resultName('syncer-bulk', endpointslices, true)]).toEqual([
      'syncer-bulk-endpointslices',
      'syncer-bulk-endpointslices-real-host',
    ]);
    expect([fixtures.tableName('syncer-memory', endpoints), fixtures.tableName('syncer-bulk', endpoints, true)]).toEqual(['syncer-memory', 'syncer-bulk (real host)']);
    expect([fixtures.tableName('syncer-memory', endpointslices), fixtures.tableName('syncer-bulk', endpointslices, true)]).toEqual([
      'syncer-memory (EndpointSlices)',
      'syncer-bulk (EndpointSlices, real host)',
    ]);
  });

  it.each(RESOURCES)('the %s config is valid and turns on that resource only', async (name) => {
    const resource = fixtures.SYNC_RESOURCES[name]!;
    const loaded = await loadConfigFile(await configFile(resource), registryConfigSchema());
    expect(loaded.ok, JSON.stringify(loaded)).toBe(true);
    if (!loaded.ok) return;
    const toHost = loaded.config.sync.toHost as unknown as Record<string, { enabled?: boolean }>;
    expect({ endpoints: toHost['endpoints']?.enabled, endpointslices: toHost['endpointSlices']?.enabled }).toEqual({
      endpoints: name === 'endpoints',
      endpointslices: name === 'endpointslices',
    });
  });

  it.each(RESOURCES)('the %s fixture carries the addresses a probe looks for, and names its Service', (name) => {
    const resource = fixtures.SYNC_RESOURCES[name]!;
    const object = resource.object(7, 'default', 3);
    expect(object.kind).toBe(resource.kind);
    expect(object.metadata?.name).toBe(resource.objectName(7));
    expect(resource.firstIp(object)).toBe(fixtures.firstIp(7, 3));
    expect(resource.firstIp(resource.object(7, 'default', 4))).not.toBe(fixtures.firstIp(7, 3));
    if (name === 'endpointslices') expect(object.metadata?.labels?.['kubernetes.io/service-name']).toBe(fixtures.service(7, 'default').metadata?.name);
    else expect(object.metadata?.name).toBe(fixtures.service(7, 'default').metadata?.name);
  });

  it.each(RESOURCES)('the baseline POSTs of %s are what the syncer writes: host name, namespace, managed-by label, addresses', async (name) => {
    const resource = fixtures.SYNC_RESOURCES[name]!;
    const virtual = [0, 1].map((i) => {
      const object = resource.object(i, 'default');
      return { ...object, metadata: { ...object.metadata, uid: `uid-${i}`, resourceVersion: '10' } };
    });
    const services = [0, 1].map((i) => fixtures.service(i, 'default'));
    const host = await fixtures.translateForHost(virtual, services, { configPath: await configFile(resource), vclusterName: 'bench', hostNamespace: 'vcluster-bench' });
    expect(host.map((object) => [object.kind, object.metadata?.name, object.metadata?.namespace])).toEqual(
      [0, 1].map((i) => [resource.kind, `${resource.objectName(i)}-x-default-x-bench`, 'vcluster-bench']),
    );
    for (const [i, object] of host.entries()) {
      expect(object.metadata?.labels?.['vcluster.loft.sh/managed-by']).toBe('bench');
      expect(resource.firstIp(object)).toBe(fixtures.firstIp(i, 0));
    }
  });

  it.each(RESOURCES)('the baseline refuses %s under the other resource\'s config (the syncer would write nothing)', async (name) => {
    const resource = fixtures.SYNC_RESOURCES[name]!;
    const other = fixtures.SYNC_RESOURCES[RESOURCES.find((r) => r !== name)!]!;
    const translate = fixtures.translateForHost([resource.object(0, 'default')], [fixtures.service(0, 'default')], {
      configPath: await configFile(other),
      vclusterName: 'bench',
      hostNamespace: 'vcluster-bench',
    });
    await expect(translate).rejects.toThrow(`the syncer would not write ${resource.kind} default/${resource.objectName(0)}`);
  });
});
