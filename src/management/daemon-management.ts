import { randomBytes } from 'node:crypto';
import { CoreResources, collectionPath, objectPath } from '../kube/api-path.js';
import { isAlreadyExists, isNotFound } from '../apimachinery/index.js';
import type { KubeMetrics } from '../kube/metrics.js';
import { retryWhileRetryable } from '../kube/retry.js';
import type { WatchLimits } from '../apiserver/index.js';
import type { ConnectionLimits } from '../observe/connection-guard.js';
import type { Logger } from '../observe/logger.js';
import type { ManagementMetrics } from './management-metrics.js';
import { KEY_HASH_SECRET_BYTES, KEY_HASH_SECRET_NAME } from './management-constants.js';
import type { VirtualClusterAccess } from './kube-configs.js';
import { startManagementServer, type DirectTokenOptions, type ManagementServer } from './management-server.js';
import { SecretStorage, type SecretClient } from './secret-storage.js';

/** The Secret holding the key-hash secret, as read and written. */
interface HashSecret {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  type?: string;
  data?: Record<string, string>;
}

/** The data key of the HMAC secret in {@link KEY_HASH_SECRET_NAME}. */
const HASH_SECRET_DATA_KEY = 'secret';

function secretFrom(secret: HashSecret, where: string): Buffer {
  const value = Buffer.from(secret.data?.[HASH_SECRET_DATA_KEY] ?? '', 'base64');
  if (value.length < 16) {
    throw new Error(`the access-key hash secret in Secret ${where} (data.${HASH_SECRET_DATA_KEY}) is missing or shorter than 16 bytes; delete the Secret to generate a new one (every access key then stops working)`);
  }
  return value;
}

/**
 * The installation's access-key HMAC secret, shared by every replica: read from the Secret
 * {@link KEY_HASH_SECRET_NAME} in `namespace`, created (random) when missing. Race-safe: when
 * another replica creates it first (AlreadyExists), the winner's secret is read and used.
 */
export async function ensureSharedKeyHashSecret(options: { client: Pick<SecretClient, 'get' | 'create'>; namespace: string }): Promise<Buffer> {
  const { client, namespace } = options;
  const where = `${namespace}/${KEY_HASH_SECRET_NAME}`;
  const path = objectPath(CoreResources.secrets, namespace, KEY_HASH_SECRET_NAME);
  const read = (): Promise<Buffer> => client.get<HashSecret>(path).then((secret) => secretFrom(secret, where));
  try {
    return await read();
  } catch (error: unknown) {
    if (!isNotFound(error)) throw error;
  }
  const body: HashSecret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: KEY_HASH_SECRET_NAME, namespace },
    type: 'Opaque',
    data: { [HASH_SECRET_DATA_KEY]: randomBytes(KEY_HASH_SECRET_BYTES).toString('base64') },
  };
  try {
    return secretFrom(await client.create<HashSecret>(collectionPath(CoreResources.secrets, namespace), body), where);
  } catch (error: unknown) {
    if (!isAlreadyExists(error)) throw error;
    return read(); // another replica won the race: use its secret
  }
}

/** Options of {@link runDaemonManagement}. */
export interface DaemonManagementOptions {
  /** Client of the host cluster (Secrets in `namespace`). */
  client: SecretClient;
  /** The host namespace the management objects and the hash secret live in. */
  namespace: string;
  host: string;
  port: number;
  /** Serving certificate and key files; undefined only with `insecureHttp`. */
  tls?: { certPath: string; keyPath: string } | undefined;
  insecureHttp: boolean;
  /** Where the bootstrap admin key is written (0600) on first start. */
  bootstrapKeyPath: string;
  /** The virtual cluster whose kube configs the API issues; undefined: not served. */
  virtualCluster?: VirtualClusterAccess;
  /** How DirectClusterEndpointTokens are issued (the issuer must be the same on every replica). Default: see {@link DirectTokenOptions}. */
  tokens?: DirectTokenOptions;
  metrics?: KubeMetrics;
  /** The management API's own metrics (refused access keys). Default: not counted. */
  managementMetrics?: ManagementMetrics;
  /** Caps on concurrent watches. Default: 1000 in all, 100 per user. */
  watchLimits?: Partial<WatchLimits> | undefined;
  /** Head and idle timeouts and the connection cap. Default: the core's `DEFAULT_CONNECTION_LIMITS`. */
  connectionLimits?: Partial<ConnectionLimits> | undefined;
  logger: Logger;
  /** Called once the API listens, with its base URL. */
  onListening?: (url: string) => void;
}

/**
 * Serves the management API of `vcsync start` until `signal` fires (on every replica): objects
 * in labelled Secrets of the host namespace, the hash secret shared through a Secret, the
 * bootstrap admin key created on first start. Failures the host may get over (no answer, 429,
 * 5xx) are retried with backoff until `signal` fires; rejects on any other failure to start.
 */
export async function runDaemonManagement(options: DaemonManagementOptions, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  const { logger } = options;
  // A host that throttles, restarts or drops a connection while the API starts is retried, not
  // fatal: one lost GET must not take the syncer down with it.
  const started = await retryWhileRetryable(() => startDaemonManagement(options), {
    signal,
    onRetry: (error, delayMs) =>
      logger.warn({ err: error, retryInMs: Math.round(delayMs) }, 'The management API could not start: the host cluster did not answer or asked to retry; retrying'),
  });
  if (started === undefined) return;
  try {
    options.onListening?.(started.server.url);
    if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  } finally {
    await started.stop();
  }
}

/** Reads (or creates) the hash secret, starts the storage and the server; on failure stops what it started. */
async function startDaemonManagement(options: DaemonManagementOptions): Promise<{ server: ManagementServer; stop: () => Promise<void> }> {
  const { client, namespace, logger } = options;
  const keyHashSecret = await ensureSharedKeyHashSecret({ client, namespace });
  const storage = new SecretStorage({ client, namespace, logger, ...(options.metrics !== undefined ? { metrics: options.metrics } : {}) });
  const stopStorage = new AbortController();
  const storing = storage.run(stopStorage.signal);
  const stopStoring = async (): Promise<void> => {
    stopStorage.abort();
    await storing;
  };
  try {
    const server = await startManagementServer({
      storage,
      keyHashSecret,
      host: options.host,
      port: options.port,
      tls: options.tls,
      insecureHttp: options.insecureHttp,
      bootstrapKeyPath: options.bootstrapKeyPath,
      ...(options.tokens !== undefined ? { tokens: options.tokens } : {}),
      ...(options.virtualCluster !== undefined ? { virtualCluster: options.virtualCluster } : {}),
      ...(options.managementMetrics !== undefined ? { metrics: options.managementMetrics } : {}),
      watchLimits: options.watchLimits,
      connectionLimits: options.connectionLimits,
      logger,
    });
    return {
      server,
      stop: async () => {
        try {
          await server.close();
        } finally {
          await stopStoring();
        }
      },
    };
  } catch (error: unknown) {
    await stopStoring();
    throw error;
  }
}
