import type { AddressInfo } from 'node:net';
import { ensureBootstrapObjects } from './bootstrap-objects.js';
import { withDefaults, type DevClusterOptions } from './dev-cluster-options.js';
import { buildHttpApp } from './http-app.js';
import { buildKubeConfig, kubeConfigYaml, type KubeConfigDocument } from './kube-config.js';
import { ListPager } from '../apiserver/list-pager.js';
import { ObjectWriter } from './object-writer.js';
import type { RequestAuthenticator } from '../apiserver/request-authentication.js';
import { ResourceHandler } from './resource-handler.js';
import { createAuthenticator } from '../apiserver/security/authenticator.js';
import type { TlsAssets } from '../apiserver/security/tls-assets.js';
import { openStore } from './storage/open-store.js';
import type { WatchStream } from './watch-stream.js';

/** A running devcluster. */
export interface DevCluster {
  /** Base URL, e.g. `http://127.0.0.1:43121` (`https://` with TLS). */
  readonly url: string;
  /**
   * A kubeconfig for this server: one cluster/user/context named `devcluster-<port>`, with the
   * admin client certificate (TLS) or the first token, and the CA data for TLS.
   */
  readonly kubeConfig: KubeConfigDocument;
  /** {@link DevCluster.kubeConfig} as YAML text. */
  kubeConfigYaml(): string;
  /** Stops listening, ends every watch, closes the store. Idempotent. */
  close(): Promise<void>;
}

/** Loaded on demand: the certificate tooling is heavy and only TLS servers need it. */
async function loadTlsAssets(dir: string): Promise<TlsAssets> {
  const { ensureTlsAssets } = await import('../apiserver/security/tls-assets.js');
  return ensureTlsAssets(dir, { serverName: 'vcsync-devcluster' });
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts an embedded Kubernetes-compatible API server: opens the store (durable with
 * `dataDir`), prepares TLS and authentication when asked, listens, and creates the initial
 * namespaces and the `default/kubernetes` Service and Endpoints. Authentication is enforced only
 * when TLS or tokens are configured; otherwise every request is allowed anonymously.
 */
export async function startDevCluster(options: DevClusterOptions = {}): Promise<DevCluster> {
  const resolved = withDefaults(options);
  const logger = resolved.logger.child({ component: 'devcluster' });
  const store = await openStore({ ...(resolved.dataDir !== undefined ? { dataDir: resolved.dataDir } : {}), watchWindow: resolved.watchWindow, logger });
  try {
    const tls = resolved.tls !== undefined ? await loadTlsAssets(resolved.tls.dir) : undefined;
    const authenticate = tls !== undefined || resolved.tokens.length > 0 || resolved.tokenReviewUrl !== undefined;
    const authenticator: RequestAuthenticator | undefined = authenticate
      ? createAuthenticator({ tokens: resolved.tokens, ...(resolved.tokenReviewUrl !== undefined ? { tokenReviewUrl: resolved.tokenReviewUrl } : {}), logger })
      : undefined;
    const now = (): number => Date.now();
    const writer = new ObjectWriter({ store, now, logger });
    const watches = new Set<WatchStream>();
    let address = `${formatHost(resolved.host)}:${resolved.port}`;
    const handler = new ResourceHandler({
      store,
      writer,
      pager: new ListPager(),
      now,
      bookmarkIntervalMs: resolved.bookmarkIntervalMs,
      watchSendBufferBytes: resolved.watchSendBufferBytes,
      watches,
      logger,
    });
    const app = buildHttpApp({
      handler,
      authenticator,
      https: tls !== undefined ? { certPem: tls.serverCertPem, keyPem: tls.serverKeyPem, clientCaPem: tls.caCertPem } : undefined,
      serverAddress: () => address,
      logger,
    });
    await app.listen({ host: resolved.host, port: resolved.port });
    const port = (app.server.address() as AddressInfo).port;
    address = `${formatHost(resolved.host)}:${port}`;
    const url = `${tls !== undefined ? 'https' : 'http'}://${address}`;
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closing ??= (async () => {
        for (const watch of [...watches]) watch.end();
        try {
          await app.close();
        } finally {
          await store.close();
        }
        logger.info({ url }, 'Devcluster stopped');
      })();
      return closing;
    };
    try {
      await ensureBootstrapObjects(writer, { host: resolved.host, port });
    } catch (error: unknown) {
      await close();
      throw error;
    }
    const name = `devcluster-${port}`;
    const kubeConfig = buildKubeConfig({
      name,
      server: url,
      ...(tls !== undefined ? { caCertPem: tls.caCertPem, clientCertPem: tls.adminCertPem, clientKeyPem: tls.adminKeyPem } : {}),
      ...(resolved.tokens[0] !== undefined ? { token: resolved.tokens[0] } : {}),
    });
    logger.info({ url, durable: resolved.dataDir !== undefined, tls: tls !== undefined }, 'Devcluster listening');
    return {
      url,
      kubeConfig,
      kubeConfigYaml: () => kubeConfigYaml(kubeConfig),
      close,
    };
  } catch (error: unknown) {
    // Startup failed before the server owned the store (or close() already ran); release it.
    await store.close().catch(() => undefined);
    throw error;
  }
}
