import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ensureTlsAssets } from '../apiserver/security/tls-assets.js';
import { buildKubeConfig, kubeConfigYaml, openDevStorage } from '../devcluster/index.js';
import { ensureKeyHashSecret, startManagementServer, writeSecretFile, type ManagementServer, type VirtualClusterAccess } from '../management/index.js';
import type { Logger } from '../observe/logger.js';

/** The management API `vcsync dev` runs, and what it wrote for the user. */
export interface DevManagement {
  readonly server: ManagementServer;
  /** `<dir>/management.kubeconfig`: server = the base URL, the CA, the bootstrap admin key as token. */
  readonly kubeconfigPath: string;
  /** The CA of the management API's serving certificate (a TokenReview webhook client trusts it). */
  readonly caCertPem: string;
  /**
   * `<dir>/token-review-webhook.kubeconfig`: the TokenReview webhook (URL + CA) in the format of a
   * kube-apiserver's `--authentication-token-webhook-config-file`.
   */
  readonly tokenReviewConfigPath: string;
  /** Lines telling the user how to reach it. */
  readonly usage: string[];
  close(): Promise<void>;
}

/**
 * Starts `vcsync dev`'s management API: HTTPS on an ephemeral port of 127.0.0.1 (`port` to choose
 * one) with generated TLS under `<dir>/management/tls`, objects durable under
 * `<dir>/management/data`, the hash secret and the bootstrap admin key (0600) under
 * `<dir>/management`, and `<dir>/management.kubeconfig` written (0600) for kubectl, and
 * `<dir>/token-review-webhook.kubeconfig` for a kube-apiserver that should accept its access keys;
 * serves the kube configs of `virtualCluster` when given.
 */
export async function startDevManagement(options: { dir: string; port?: number; virtualCluster?: VirtualClusterAccess; logger: Logger }): Promise<DevManagement> {
  const base = join(options.dir, 'management');
  const tls = await ensureTlsAssets(join(base, 'tls'), { serverName: 'vcsync-management' });
  const keyHashSecret = await ensureKeyHashSecret(join(base, 'key-hash-secret'));
  const devStorage = await openDevStorage({ dataDir: join(base, 'data'), logger: options.logger });
  const bootstrapKeyPath = join(base, 'admin.key');
  let server: ManagementServer;
  try {
    server = await startManagementServer({
      storage: devStorage.storage,
      keyHashSecret,
      port: options.port ?? 0,
      tls: { certPath: tls.serverCertPath, keyPath: tls.serverKeyPath },
      bootstrapKeyPath,
      ...(options.virtualCluster !== undefined ? { virtualCluster: options.virtualCluster } : {}),
      logger: options.logger,
    });
  } catch (error: unknown) {
    await devStorage.close();
    throw error;
  }
  const close = async (): Promise<void> => {
    try {
      await server.close();
    } finally {
      await devStorage.close();
    }
  };
  try {
    const adminKey = await readFile(bootstrapKeyPath, 'utf8').then(
      (text) => text.trim(),
      () => undefined,
    );
    const kubeconfigPath = join(options.dir, 'management.kubeconfig');
    const kubeConfig = buildKubeConfig({ name: 'vcsync-management', server: server.url, caCertPem: tls.caCertPem, ...(adminKey !== undefined ? { token: adminKey } : {}) });
    await writeSecretFile(kubeconfigPath, kubeConfigYaml(kubeConfig));
    const tokenReviewConfigPath = join(options.dir, 'token-review-webhook.kubeconfig');
    await writeSecretFile(tokenReviewConfigPath, kubeConfigYaml(buildKubeConfig({ name: 'vcsync-token-review', server: server.tokenReviewUrl, caCertPem: tls.caCertPem })));
    const shown = relative(process.cwd(), kubeconfigPath) || kubeconfigPath;
    const usage = [
      `Management API ${server.url} (access keys; the bootstrap admin key is in ${relative(process.cwd(), bootstrapKeyPath) || bootstrapKeyPath}):`,
      `  kubectl --kubeconfig ${shown} get ownedaccesskeys`,
      ...(adminKey === undefined ? ['  (the bootstrap admin key file is missing: the kubeconfig has no token; delete the management directory to start afresh)'] : []),
    ];
    return { server, kubeconfigPath, caCertPem: tls.caCertPem, tokenReviewConfigPath, usage, close };
  } catch (error: unknown) {
    await close();
    throw error;
  }
}
