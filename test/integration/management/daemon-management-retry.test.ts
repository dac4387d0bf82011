import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDevCluster, type DevCluster } from '../../../src/devcluster/index.js';
import { buildKubeConfig } from '../../../src/devcluster/kube-config.js';
import { loadClusterConfig } from '../../../src/kube/kube-config.js';
import { RestClient } from '../../../src/kube/rest-client.js';
import { KEY_HASH_SECRET_NAME, runDaemonManagement } from '../../../src/management/index.js';
import { silentLogger } from '../../../src/observe/logger.js';
import { tempDir } from '../../support/endpoints-fixtures.js';
import { startFaultProxy, type FaultKind, type FaultProxy } from '../../support/fault-proxy.js';
import { waitFor } from '../../support/wait-for.js';

const NAMESPACE = 'vcluster-vc1';

/**
 * The management API of `vcsync start` on a host that fails while it starts (found by the chaos
 * run: one reset GET of the hash secret stopped the whole daemon).
 */
describe('the daemon management API starting on a failing host', () => {
  let host: DevCluster;
  let proxy: FaultProxy;
  let client: RestClient;
  let direct: RestClient;
  let dir: { dir: string; remove: () => Promise<void> };

  beforeEach(async () => {
    host = await startDevCluster();
    direct = new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: host.kubeConfig }, { name: 'direct' }), qps: Infinity });
    await direct.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    proxy = await startFaultProxy({ upstream: host.url });
    client = new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: buildKubeConfig({ name: 'host', server: proxy.url }) }, { name: 'host' }), qps: Infinity, requestTimeoutMs: 2_000 });
    dir = await tempDir('vcsync-management-retry-');
  });
  afterEach(async () => {
    client.close();
    direct.close();
    await proxy.close();
    await host.close();
    await dir.remove();
  });

  function start(stop: AbortSignal, listening: (url: string) => void): Promise<void> {
    return runDaemonManagement(
      { client, namespace: NAMESPACE, host: '127.0.0.1', port: 0, insecureHttp: true, bootstrapKeyPath: join(dir.dir, 'admin.key'), logger: silentLogger(), onListening: listening },
      stop,
    );
  }

  it.each<FaultKind>(['close', 'error-503', 'throttle'])('retries while the hash secret read fails with %s, then serves', async (fault) => {
    proxy.setRules([{ fault, probability: 1, match: { path: new RegExp(`/secrets/${KEY_HASH_SECRET_NAME}$`) }, retryAfterSeconds: 0 }]);
    const stop = new AbortController();
    let url: string | undefined;
    const running = start(stop.signal, (listening) => (url = listening));
    const failed = { done: false };
    running.catch(() => (failed.done = true));
    await waitFor(`two ${fault} answers to the hash secret read`, () => proxy.counts()[fault] >= 2 || undefined);
    expect(failed.done, 'runDaemonManagement rejected on a retryable failure').toBe(false);
    proxy.setRules([]);
    const served = await waitFor('the management API to listen', () => url);
    expect((await fetch(`${served}/apis/management.loft.sh/v1/ownedaccesskeys`)).status).toBe(401);
    stop.abort();
    await running;
    await expect(direct.get(`/api/v1/namespaces/${NAMESPACE}/secrets/${KEY_HASH_SECRET_NAME}`)).resolves.toBeDefined();
  });

  it('still fails at once when the host refuses (a missing namespace is not a passing fault)', async () => {
    await direct.delete(`/api/v1/namespaces/${NAMESPACE}`);
    await waitFor('the namespace to be gone', async () => (await direct.get(`/api/v1/namespaces/${NAMESPACE}`).then(() => false, () => true)) || undefined);
    await expect(start(new AbortController().signal, () => undefined)).rejects.toThrow(/not found/i);
  });
});
