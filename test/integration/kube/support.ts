import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { startDevCluster, type DevCluster, type DevClusterOptions } from '../../../src/devcluster/index.js';
import { loadClusterConfig } from '../../../src/kube/kube-config.js';
import { KubeMetrics } from '../../../src/kube/metrics.js';
import { RestClient } from '../../../src/kube/rest-client.js';

/** Everything a kube integration test starts, with one `stop()` that ends it all in reverse order. */
export interface TestBed {
  cluster: DevCluster;
  client: RestClient;
  registry: Registry;
  metrics: KubeMetrics;
  /** Registers a cleanup to run at stop (last registered runs first). */
  defer(cleanup: () => Promise<void> | void): void;
  stop(): Promise<void>;
}

/** Starts a devcluster and a REST client for it (no client-side rate limit). */
export async function startTestBed(options: DevClusterOptions = {}): Promise<TestBed> {
  const cleanups: Array<() => Promise<void> | void> = [];
  const bed: TestBed = {
    cluster: await startDevCluster(options),
    client: undefined as unknown as RestClient,
    registry: new Registry(),
    metrics: undefined as unknown as KubeMetrics,
    defer: (cleanup) => {
      cleanups.push(cleanup);
    },
    stop: async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    },
  };
  bed.defer(() => bed.cluster.close());
  bed.metrics = new KubeMetrics(bed.registry);
  bed.client = new RestClient({
    cluster: loadClusterConfig({ kind: 'object', config: bed.cluster.kubeConfig }, { name: 'test' }),
    qps: Infinity,
    metrics: bed.metrics,
  });
  bed.defer(() => bed.client.close());
  return bed;
}

/** A fresh temporary directory, removed by the returned cleanup. */
export async function tempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vcsync-kube-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export { metricValue } from '../../support/metrics.js';
