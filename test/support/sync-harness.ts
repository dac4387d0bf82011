import { Registry } from 'prom-client';
import { startDevCluster, type DevCluster } from '../../src/devcluster/index.js';
import { loadClusterConfig } from '../../src/kube/kube-config.js';
import { RestClient } from '../../src/kube/rest-client.js';
import { isNotFound } from '../../src/kube/api-error.js';

/** A virtual and a host devcluster with REST clients, for syncer integration tests. */
export interface TwoClusters {
  virtual: DevCluster;
  host: DevCluster;
  virtualClient: RestClient;
  hostClient: RestClient;
  hostNamespace: string;
  close(): Promise<void>;
}

/** Starts two in-memory devclusters and creates the host namespace. */
export async function startTwoClusters(options: { hostNamespace?: string } = {}): Promise<TwoClusters> {
  const hostNamespace = options.hostNamespace ?? 'vcluster-vc1';
  const [virtual, host] = await Promise.all([startDevCluster(), startDevCluster()]);
  const virtualClient = new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: virtual.kubeConfig }, { name: 'virtual' }), qps: Infinity });
  const hostClient = new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: host.kubeConfig }, { name: 'host' }), qps: Infinity });
  await hostClient.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: hostNamespace } });
  return {
    virtual,
    host,
    virtualClient,
    hostClient,
    hostNamespace,
    async close() {
      virtualClient.close();
      hostClient.close();
      await Promise.all([virtual.close(), host.close()]);
    },
  };
}

/** GET that answers undefined for 404. */
export async function getOrUndefined<T>(client: RestClient, path: string): Promise<T | undefined> {
  try {
    return await client.get<T>(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** A fresh metrics registry per test. */
export function newRegistry(): Registry {
  return new Registry();
}
