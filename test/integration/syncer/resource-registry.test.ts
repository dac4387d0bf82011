import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runPreview } from '../../../src/cli/run-preview.js';
import { runValidate } from '../../../src/cli/run-validate.js';
import { silentLogger } from '../../../src/observe/logger.js';
import { SYNCABLE_RESOURCES } from '../../../src/syncer/resources.js';
import { configMapsSyncable, SYNC_LABEL } from '../../support/configmaps-resource/configmaps-syncable.js';
import { createEndpoints, createService, getHostEndpoints, hostName, simpleSubset, tempDir } from '../../support/endpoints-fixtures.js';
import { startTwoClusters, type TwoClusters } from '../../support/sync-harness.js';
import { waitFor } from '../../support/wait-for.js';
import { startSyncerDaemon, type SyncerDaemon } from '../../support/syncer-daemon.js';

/** The registry with a made-up second resource (one folder under test/support) added. */
const WITH_CONFIGMAPS = [...SYNCABLE_RESOURCES, configMapsSyncable];
const CONFIGMAPS_ON = 'sync:\n  toHost:\n    configMaps:\n      enabled: true\n';

function sink() {
  let text = '';
  return {
    write: (chunk: string) => {
      text += chunk;
    },
    get text() {
      return text;
    },
  };
}

describe('a second syncable resource is one folder: validate, preview and start iterate the registry', () => {
  let dir: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    dir = await tempDir('vcsync-registry-');
  });
  afterEach(async () => {
    await dir.remove();
  });

  it('validate runs the new resource’s checks', async () => {
    const config = path.join(dir.dir, 'vcluster.yaml');
    await writeFile(config, 'sync:\n  toHost:\n    configMaps:\n      enabled: "yes"\n');
    expect(await runValidate({ configPath: config, out: sink(), err: sink() })).toBe(0);
    const err = sink();
    expect(await runValidate({ configPath: config, resources: WITH_CONFIGMAPS, out: sink(), err })).toBe(1);
    expect(err.text).toMatch(/vcluster\.yaml:4:\d+ sync\.toHost\.configMaps\.enabled: must be true or false/);
  });

  it('preview shows the host object of the new kind', async () => {
    const config = path.join(dir.dir, 'vcluster.yaml');
    await writeFile(config, CONFIGMAPS_ON);
    const objects = path.join(dir.dir, 'objects.yaml');
    await writeFile(objects, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop, labels: {${SYNC_LABEL}: "true"}}\ndata: {mode: fast}\n`);

    const without = sink();
    expect(await runPreview({ configPath: config, objectPath: objects, vclusterName: 'vc', hostNamespace: 'vcluster-vc', out: sink(), err: without })).toBe(0);
    expect(without.text).toBe(`${objects}:1:1 document 1: skipped ConfigMap (vcsync syncs Endpoints, EndpointSlice)\n`);

    const out = sink();
    const err = sink();
    expect(await runPreview({ configPath: config, objectPath: objects, vclusterName: 'vc', hostNamespace: 'vcluster-vc', resources: WITH_CONFIGMAPS, out, err })).toBe(0);
    expect(err.text).toBe('');
    const host = parse(out.text.replace(/^---\n/, '')) as { kind: string; metadata: { name: string; namespace: string }; data: unknown };
    expect(host).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'settings-x-shop-x-vc', namespace: 'vcluster-vc' }, data: { mode: 'fast' } });
  });

  describe('start', () => {
    let clusters: TwoClusters;
    let daemon: SyncerDaemon | undefined;
    beforeEach(async () => {
      clusters = await startTwoClusters();
    });
    afterEach(async () => {
      await daemon?.stop();
      daemon = undefined;
      await clusters.close();
    });

    it('syncs the new resource beside Endpoints, its informers in the one sync check and its metrics beside theirs', async () => {
      const config = path.join(dir.dir, 'vcluster.yaml');
      await writeFile(config, CONFIGMAPS_ON);
      daemon = await startSyncerDaemon(clusters, config, { logger: silentLogger(), resources: WITH_CONFIGMAPS });
      const metricsUrl = daemon.metricsUrl;
      await clusters.virtualClient.create('/api/v1/namespaces/default/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'settings', namespace: 'default', labels: { [SYNC_LABEL]: 'true' } },
        data: { mode: 'fast' },
      });
      await createService(clusters.virtualClient, 'web');
      await createEndpoints(clusters.virtualClient, 'web', { subsets: [simpleSubset('10.0.0.1')] });

      const copy = await waitFor('the host ConfigMap', async () => {
        try {
          return await clusters.hostClient.get<{ data?: Record<string, string> }>(`/api/v1/namespaces/${clusters.hostNamespace}/configmaps/${hostName('settings')}`);
        } catch {
          return undefined;
        }
      });
      expect(copy.data).toEqual({ mode: 'fast' });
      await waitFor('the host Endpoints', () => getHostEndpoints(clusters.hostClient, clusters.hostNamespace, 'web'));
      const syncz = await waitFor('/syncz 200', async () => {
        const response = await fetch(`${metricsUrl}/syncz?verbose`);
        return response.status === 200 ? response.text() : undefined;
      });
      expect(syncz).toContain('[+]informers ok');
      const metrics = await (await fetch(`${metricsUrl}/metrics`)).text();
      expect(metrics).toMatch(/vcsync_sync_operations_total\{controller="configmaps",result="[a-z]+"\} [1-9]/);
    });
  });
});
