import { readFileSync } from 'node:fs';
import { KubeConfig, type Cluster, type User } from '@kubernetes/client-node';
import { KubeConfigError } from './api-error.js';

/** Where a cluster's credentials come from. */
export type KubeConfigSource =
  /** A kubeconfig file; relative certificate paths resolve against the file's folder. */
  | { kind: 'file'; path: string }
  /** A kubeconfig document as YAML (or JSON) text. */
  | { kind: 'yaml'; yaml: string }
  /** A kubeconfig document already parsed (e.g. the devcluster's `kubeConfig`). */
  | { kind: 'object'; config: object }
  /** The pod's service account (`KUBERNETES_SERVICE_HOST/PORT` and the mounted token and CA). */
  | { kind: 'inCluster' };

/** Options of {@link loadClusterConfig}. */
export interface LoadClusterConfigOptions {
  /**
   * A short, unique name for the cluster inside this process (`virtual`, `host`, …). The loaded
   * user is renamed `vcsync-<name>` so that client-node's per-user credential caches never
   * collide between clusters whose kubeconfigs happen to use the same user name. Required.
   */
  name: string;
  /** Context to use instead of the document's `current-context`. Default: the current context. */
  context?: string;
}

/** A cluster's connection settings, one {@link KubeConfig} per cluster. */
export interface ClusterConfig {
  /** The name given in {@link LoadClusterConfigOptions.name}. */
  readonly name: string;
  /** A KubeConfig holding exactly this cluster, its user (renamed) and one context. */
  readonly kubeConfig: KubeConfig;
  /** The API server's base URL without a trailing slash, e.g. `https://10.0.0.1:443`. */
  readonly server: string;
  /** The context's default namespace, or `default`. */
  readonly namespace: string;
}

/**
 * Loads one cluster's connection settings from a file, text, object, or the in-cluster service
 * account, and returns a fresh single-context {@link KubeConfig} whose user is named
 * `vcsync-<name>`. A plain `http://` server is accepted: client-node refuses one unless
 * `insecure-skip-tls-verify` is set, which is meaningless without TLS, so it is set for such
 * servers. Throws {@link KubeConfigError} when the source cannot be read or names no cluster/user.
 */
export function loadClusterConfig(source: KubeConfigSource, options: LoadClusterConfigOptions): ClusterConfig {
  const loaded = new KubeConfig();
  try {
    switch (source.kind) {
      case 'file':
        loaded.loadFromFile(source.path);
        break;
      case 'yaml':
        loaded.loadFromString(source.yaml);
        break;
      case 'object':
        loaded.loadFromString(JSON.stringify(source.config));
        break;
      case 'inCluster':
        if (process.env['KUBERNETES_SERVICE_HOST'] === undefined) {
          throw new KubeConfigError('not running in a cluster: KUBERNETES_SERVICE_HOST is not set');
        }
        loaded.loadFromCluster();
        break;
    }
  } catch (err) {
    if (err instanceof KubeConfigError) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new KubeConfigError(`cannot load kubeconfig for cluster ${options.name} (${describe(source)}): ${reason}`, err);
  }
  if (options.context !== undefined) {
    if (loaded.getContextObject(options.context) === null) {
      throw new KubeConfigError(`kubeconfig for cluster ${options.name} has no context ${options.context}`);
    }
    loaded.setCurrentContext(options.context);
  }
  const context = loaded.getContextObject(loaded.getCurrentContext());
  const cluster = loaded.getCurrentCluster();
  const user = loaded.getCurrentUser();
  if (context === null || cluster === null) {
    throw new KubeConfigError(
      `kubeconfig for cluster ${options.name} (${describe(source)}) has no current context with a cluster; set current-context`,
    );
  }
  const server = cluster.server.replace(/\/+$/, '');
  const ownCluster: Cluster = {
    ...cluster,
    name: `vcsync-${options.name}`,
    server,
    skipTLSVerify: server.startsWith('http:') ? true : cluster.skipTLSVerify,
  };
  const ownUser: User = { ...(user ?? {}), name: `vcsync-${options.name}` };
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromClusterAndUser(ownCluster, ownUser);
  const namespace = context.namespace !== undefined && context.namespace.trim() !== '' ? context.namespace.trim() : 'default';
  return Object.freeze({ name: options.name, kubeConfig, server, namespace });
}

function describe(source: KubeConfigSource): string {
  switch (source.kind) {
    case 'file':
      return `file ${source.path}`;
    case 'yaml':
      return 'inline YAML';
    case 'object':
      return 'inline object';
    case 'inCluster':
      return 'in-cluster service account';
  }
}

/**
 * The PEM of the CA `config` trusts for its API server (inline data or its file), or undefined
 * when it names none (a plain-HTTP server, or the system roots). Throws when the file is unreadable.
 */
export function clusterCaPem(config: ClusterConfig): string | undefined {
  const cluster = config.kubeConfig.getCurrentCluster();
  if (cluster?.caData !== undefined && cluster.caData !== '') return Buffer.from(cluster.caData, 'base64').toString('utf8');
  if (cluster?.caFile !== undefined && cluster.caFile !== '') return readFileSync(cluster.caFile, 'utf8');
  return undefined;
}
