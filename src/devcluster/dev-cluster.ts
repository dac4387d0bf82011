import type { AddressInfo } from 'node:net';
import { buildApiServer, type CertificateAndKey, createAuthenticator, ensureTlsAssets, GarbageCollector, type ObjectWriter, type RequestAuthenticator, resourceIdOf, ResourceRegistry, type ServerVersion, type TlsAssets } from '../apiserver/index.js';
import type { Logger } from '../observe/logger.js';
import { ensureBootstrapObjects } from './bootstrap-objects.js';
import { CertificateSigner } from './certificate-signer.js';
import { ClusterIpIndex } from './cluster-ip-allocator.js';
import { coreKindDefinitions } from './core-kinds.js';
import { withDefaults, type DevClusterOptions } from './dev-cluster-options.js';
import { serviceStrategy } from './service-rules.js';
import { buildKubeConfig, kubeConfigYaml, type KubeConfigDocument } from './kube-config.js';
import { NamespaceController } from './namespace-controller.js';
import { NAMESPACE_STRATEGY, NamespaceLifecycle } from './namespace-lifecycle.js';
import { PROTOBUF_BODY_DECODER } from './protobuf-object-decoder.js';
import { type StoreController, StoreControllers } from './store-controllers.js';
import { ApiStorage } from './storage/api-storage.js';
import { openStore } from './storage/open-store.js';
import type { Store } from './storage/types.js';

/** The Kubernetes version the devcluster reports (kubectl 1.32 is its reference client). */
export const KUBERNETES_VERSION: ServerVersion = Object.freeze({ major: '1', minor: '32', gitVersion: 'v1.32.0-devcluster' });

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
  /**
   * Resolves once the devcluster's controllers (namespace controller, garbage collector) have
   * nothing left to do for the changes made so far: after it, a deleted namespace or the
   * dependents of a deleted owner are gone unless finalizers hold them.
   */
  settled(): Promise<void>;
  /** Stops listening, ends every watch, stops the controllers, closes the store. Idempotent. */
  close(): Promise<void>;
}

/** The server's certificates in `dir` (the certificate library itself loads on first use, in certificate-issuer.ts). */
async function loadTlsAssets(dir: string): Promise<TlsAssets> {
  return ensureTlsAssets(dir, { serverName: 'vcsync-devcluster' });
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The core kinds with their running state over `store`: the Service cluster-IP pool (its index
 * follows the store's own events) and the namespace lifecycle admission.
 */
function coreKinds(store: Store, storage: ApiStorage): { registry: ResourceRegistry; admission: NamespaceLifecycle } {
  // Read on the first write, once the registry below exists.
  const lifecycle = new NamespaceLifecycle({ storage, namespaces: () => registry.byKind('Namespace') });
  const services = coreKindDefinitions().find((definition) => definition.kind === 'Service');
  if (services === undefined) throw new Error('the core kinds have no Service');
  const clusterIps = new ClusterIpIndex(store, resourceIdOf(services));
  const registry: ResourceRegistry = new ResourceRegistry(coreKindDefinitions({ Namespace: NAMESPACE_STRATEGY, Service: serviceStrategy(clusterIps) }));
  return { registry, admission: lifecycle };
}

/** The CA and the longest certificate of the devcluster's CSR signer (TLS servers only). */
interface SigningAuthority {
  ca: CertificateAndKey;
  maxDurationMs: number;
}

/**
 * The devcluster's stand-ins for kube-controller-manager: the namespace controller, the garbage
 * collector and, when there is a client CA (`signing`), the kube-apiserver-client CSR signer.
 */
function controllers(store: Store, registry: ResourceRegistry, writer: ObjectWriter, logger: Logger, signing: SigningAuthority | undefined): StoreControllers {
  const namespaces = registry.byKind('Namespace');
  const namespaced = registry.types.filter((type) => type.namespaced);
  const running: StoreController[] = [new NamespaceController({ store, writer, namespaces, namespaced, now: Date.now }), new GarbageCollector({ writer, types: registry.types })];
  if (signing !== undefined) running.push(new CertificateSigner({ writer, requests: registry.byKind('CertificateSigningRequest'), ...signing, now: Date.now }));
  return new StoreControllers({ store, resources: registry.types.map((type) => type.id), controllers: running, logger });
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
      ? createAuthenticator({
          tokens: resolved.tokens,
          ...(resolved.tokenReviewUrl !== undefined ? { tokenReviewUrl: resolved.tokenReviewUrl } : {}),
          ...(resolved.tokenReviewCaPem !== undefined ? { tokenReviewCaPem: resolved.tokenReviewCaPem } : {}),
          ...(resolved.tokenReviewCacheTtlMs !== undefined ? { cacheTtlMs: resolved.tokenReviewCacheTtlMs } : {}),
          logger,
        })
      : undefined;
    const storage = new ApiStorage(store);
    const { registry, admission } = coreKinds(store, storage);
    let address = `${formatHost(resolved.host)}:${resolved.port}`;
    const { app, writer, endWatches } = buildApiServer({
      registry,
      storage,
      admission,
      serverName: 'devcluster',
      version: KUBERNETES_VERSION,
      bodyDecoders: [PROTOBUF_BODY_DECODER],
      authenticator,
      https: tls !== undefined ? { certPem: tls.serverCertPem, keyPem: tls.serverKeyPem, clientCaPem: tls.caCertPem } : undefined,
      serverAddress: () => address,
      bookmarkIntervalMs: resolved.bookmarkIntervalMs,
      watchSendBufferBytes: resolved.watchSendBufferBytes,
      watchLimits: resolved.watchLimits,
      connectionLimits: resolved.connectionLimits,
      logger,
    });
    await app.listen({ host: resolved.host, port: resolved.port });
    const port = (app.server.address() as AddressInfo).port;
    address = `${formatHost(resolved.host)}:${port}`;
    const url = `${tls !== undefined ? 'https' : 'http'}://${address}`;
    const signing = tls !== undefined ? { ca: { certPem: tls.caCertPem, keyPem: tls.caKeyPem }, maxDurationMs: resolved.clusterSigningDurationMs } : undefined;
    const running = controllers(store, registry, writer, logger, signing);
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closing ??= (async () => {
        endWatches();
        try {
          await app.close();
          await running.stop();
        } finally {
          await store.close();
        }
        logger.info({ url }, 'Devcluster stopped');
      })();
      return closing;
    };
    try {
      running.start();
      await ensureBootstrapObjects(writer, registry, { host: resolved.host, port });
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
      settled: () => running.idle(),
      close,
    };
  } catch (error: unknown) {
    // Startup failed before the server owned the store (or close() already ran); release it.
    await store.close().catch(() => undefined);
    throw error;
  }
}
