import { buildApiServer, GarbageCollector, ObjectWriter, protobufBodyDecoder, type RequestAuthorizer, ResourceRegistry, resourceType, type ResourceType, SELF_REVIEW_PROTOBUF_KINDS, SELF_SUBJECT_RULES_REVIEW_PROTOBUF_KIND, type ServerVersion, type Storage, StorageControllers, type WatchLimits } from '../apiserver/index.js';
import { Server as TlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { ConnectionLimits } from '../observe/connection-guard.js';
import type { Logger } from '../observe/logger.js';
import { MAX_MANAGEMENT_OBJECT_BYTES } from './secret-encoding.js';
import { AccessKeyAuthenticator } from './access-key-authenticator.js';
import { AccessKeyHasher } from './access-key-hasher.js';
import { ensureBootstrapAdminKey } from './bootstrap-admin-key.js';
import { directClusterEndpointTokenKind } from './direct-cluster-endpoint-token-kind.js';
import { DirectTokens } from './direct-tokens.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from './key-rotation.js';
import type { JWK } from 'jose';
import {
  DEFAULT_DIRECT_TOKEN_AUDIENCE,
  DEFAULT_PLATFORM,
  DIRECT_TOKEN_MAX_TTL_SECONDS,
  KEY_SET_MAX_AGE_SECONDS,
  KEY_SET_PATH,
  managementGroup,
  MANAGEMENT_BASE_PATH,
  MANAGEMENT_SERVER_NAME,
  OIDC_DISCOVERY_PATH,
  KUBE_CONFIG_SIGNING_KEY_RING_NAME,
  KUBE_CONFIG_TOKEN_ALGORITHM,
  SIGNING_KEY_PREPUBLISH_MS,
  SIGNING_KEY_ROTATION_INTERVAL_MS,
  TOKEN_REVIEW_PATH,
} from './management-constants.js';
import { KubeConfigs, type VirtualClusterAccess } from './kube-configs.js';
import type { ManagementMetrics } from './management-metrics.js';
import { ownedAccessKeyKind } from './owned-access-key-kind.js';
import { virtualClusterInstanceKind } from './virtual-cluster-instance-kind.js';
import { SigningKeyRing } from './signing-keys.js';
import { MANAGEMENT_AUTHORIZER } from './ownership-authorizer.js';
import { readServingPair, watchServingPair } from './tls-reloader.js';
import { reviewToken } from './token-review.js';
import { TokenVerifierChain, type NamedTokenVerifier } from './token-verifier.js';

/** What `GET /version` of the management API answers. */
export const MANAGEMENT_VERSION_INFO: ServerVersion = Object.freeze({ major: '1', minor: '32', gitVersion: 'v1.32.0-vcsync-management' });

/** Options of {@link startManagementServer}. */
export interface ManagementServerOptions {
  /** Where management objects live (host Secrets in the daemon, a map in tests). */
  storage: Storage;
  /** The installation's secret keying access-key hashes (at least 16 bytes); the same on every replica. */
  keyHashSecret: Buffer;
  /** The platform word of `management.<platform>.sh`. Default {@link DEFAULT_PLATFORM}. */
  platform?: string;
  /** Address to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port; 0 picks a free one. Default 0. */
  port?: number;
  /** The serving certificate and key files (reloaded when they change). Required unless `insecureHttp`. */
  tls?: { certPath: string; keyPath: string } | undefined;
  /** Serve plain HTTP instead of HTTPS: only when explicitly asked for (tests, a TLS-terminating proxy). Default false. */
  insecureHttp?: boolean;
  /** Decides what each key may do and see. Default {@link MANAGEMENT_AUTHORIZER}. */
  authorizer?: RequestAuthorizer;
  /** Where the bootstrap admin key is written on first start; undefined: none is created. */
  bootstrapKeyPath?: string | undefined;
  /** Wall clock in ms since the epoch (timestamps, expiry). Default `Date.now`. */
  now?: () => number;
  /** `status.lastActivity` is written at most once per this many ms per key. Default 60000. */
  lastActivityWriteIntervalMs?: number;
  /** Verifiers the token review asks after the access keys (the DirectClusterEndpointTokens). Default: none. */
  tokenVerifiers?: readonly NamedTokenVerifier[];
  /** Verified keys the authenticator caches. Default `AUTH_CACHE_MAX_KEYS` (10,000). */
  authCacheMaxKeys?: number;
  /** Counts requests refused for their access key, and the core's watches and connections. Default: not counted. */
  metrics?: ManagementMetrics;
  /** Caps on concurrent watches (429 with Retry-After beyond). Default: 1000 in all, 100 per user (the core's `DEFAULT_WATCH_LIMITS`). */
  watchLimits?: Partial<WatchLimits> | undefined;
  /** Head and idle timeouts and the connection cap of the listener. Default: the core's `DEFAULT_CONNECTION_LIMITS`. */
  connectionLimits?: Partial<ConnectionLimits> | undefined;
  /**
   * Run the garbage collector over `storage` (keys whose owners are gone are deleted; orphan and
   * foreground deletions complete). Every replica may run it: its deletes carry a uid precondition
   * and its patches a resourceVersion, so a replica that loses a race gets a Conflict or NotFound
   * and drops the key (ADR 0018). Default true.
   */
  garbageCollection?: boolean;
  /** How DirectClusterEndpointTokens are issued. Default: see {@link DirectTokenOptions}. */
  tokens?: DirectTokenOptions;
  /** The virtual cluster whose kube configs `virtualclusterinstances/<name>/kubeconfig` issues; undefined: not served. */
  virtualCluster?: VirtualClusterAccess | undefined;
  logger: Logger;
}

/** How DirectClusterEndpointTokens are signed and checked. */
export interface DirectTokenOptions {
  /** Algorithm of newly generated signing keys. Default `RS256` (as the reference platform). */
  algorithm?: SigningAlgorithm;
  /**
   * `iss` of the tokens: the URL (scheme, host, port) where the listener's root, with
   * `/.well-known/openid-configuration`, is reached by verifiers. Default the listening address.
   */
  issuer?: string;
  /** `aud` of the tokens. Default {@link DEFAULT_DIRECT_TOKEN_AUDIENCE}. */
  audience?: string;
  /** Lifetime when `spec.ttl` is absent or 0, in seconds. Default 3600. */
  defaultTtlSeconds?: number;
  /** Longest lifetime; larger `spec.ttl`s are cut to it, in seconds. Default {@link DIRECT_TOKEN_MAX_TTL_SECONDS}. */
  maxTtlSeconds?: number;
  /** How long one signing key signs, in ms. Default {@link SIGNING_KEY_ROTATION_INTERVAL_MS} (7 days). */
  rotationIntervalMs?: number;
  /** How long before a key retires its successor is published, in ms. Default {@link SIGNING_KEY_PREPUBLISH_MS}. */
  prepublishMs?: number;
}

/** A running management server. */
export interface ManagementServer {
  /** The base URL clients use as `--server`, e.g. `https://127.0.0.1:43121/kubernetes/management`. */
  readonly url: string;
  /** The TokenReview webhook's URL (`url` + {@link TOKEN_REVIEW_PATH}), for a kube-apiserver's webhook config. */
  readonly tokenReviewUrl: string;
  readonly port: number;
  /** The served OwnedAccessKey resource. */
  readonly ownedAccessKeys: ResourceType;
  /** The registry store (the server's own writes). */
  readonly writer: ObjectWriter;
  /** The garbage collector's runner (undefined when `garbageCollection` is false); `idle()` is a test hook. */
  readonly controllers: StorageControllers | undefined;
  readonly authenticator: AccessKeyAuthenticator;
  /** Issues and verifies DirectClusterEndpointTokens (token review verifies through it). */
  readonly directTokens: DirectTokens;
  /** `iss` of the tokens, whose `/.well-known/openid-configuration` this server answers. */
  readonly issuer: string;
  /** Stops listening, ends watches, stops the key watch and certificate reloads. Idempotent. */
  close(): Promise<void>;
}

/**
 * The OpenID Connect discovery document of the token issuer: enough for a verifier (a proxy, or a
 * kube-apiserver's JWT authenticator) to find the key set; the token endpoint is the management
 * API's create of DirectClusterEndpointTokens, not an OAuth flow.
 */
function openIdConfiguration(issuer: string): Record<string, unknown> {
  return {
    issuer,
    jwks_uri: `${issuer}${KEY_SET_PATH}`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
  };
}

/** The key set of both rings: every key a token of this server may name. */
async function publishedKeySet(...rings: readonly SigningKeyRing[]): Promise<{ keys: JWK[] }> {
  const sets = await Promise.all(rings.map((ring) => ring.keySet()));
  return { keys: sets.flatMap((set) => set.keys) };
}

/** The port a listening server is bound to; throws for a server not listening on TCP. */
function listeningPort(server: { address(): AddressInfo | string | null }): number {
  const bound = server.address();
  if (bound === null || typeof bound === 'string') throw new TypeError(`the management server is not listening on a TCP port (its address is ${String(bound)})`);
  return bound.port;
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts the management API: the apiserver core with OwnedAccessKey under
 * `/kubernetes/management`, HTTPS from certificate files reloaded when they change (plain HTTP
 * only with `insecureHttp`), every request authenticated by its access key and authorized by
 * `authorizer`, except the TokenReview webhook at {@link TOKEN_REVIEW_PATH}, which
 * answers for the access keys and then `tokenVerifiers` without a credential (ADR 0020); creates
 * the bootstrap admin key when asked. Fails when neither TLS files nor `insecureHttp` are given.
 */
export async function startManagementServer(options: ManagementServerOptions): Promise<ManagementServer> {
  if (options.tls === undefined && options.insecureHttp !== true) {
    throw new TypeError('the management server needs a serving certificate and key (tls.certPath, tls.keyPath), or insecureHttp: true to serve plain HTTP');
  }
  const logger = options.logger.child({ component: 'management' });
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? ((): number => Date.now());
  const platform = options.platform ?? DEFAULT_PLATFORM;
  const hasher = new AccessKeyHasher(options.keyHashSecret);
  const tls = options.insecureHttp === true ? undefined : options.tls;
  const pair = tls !== undefined ? await readServingPair(tls.certPath, tls.keyPath) : undefined;
  const scheme = tls !== undefined ? 'https' : 'http';
  // The issuer defaults to the listening address, known once the server listens (port 0 picks one).
  let address = `${formatHost(host)}:${options.port ?? 0}`;
  const tokenOptions = options.tokens ?? {};
  const issuer = (): string => tokenOptions.issuer ?? `${scheme}://${address}`;
  const maxTtlSeconds = tokenOptions.maxTtlSeconds ?? DIRECT_TOKEN_MAX_TTL_SECONDS;

  // Built in dependency order: the store's writer and the keys first, then who reads them
  // (authenticator, token service, kube configs), then the kinds that call those, then the server.
  // Each object is one host Secret's data: refused before the host cluster refuses the Secret.
  const writer = new ObjectWriter({ storage: options.storage, now, maxObjectBytes: MAX_MANAGEMENT_OBJECT_BYTES });
  // Resolved on its own for the authenticator and the bootstrap key; the registry resolves the same definition.
  const ownedAccessKeyDefinition = ownedAccessKeyKind({ platform, hasher });
  const ownedAccessKeys = resourceType(ownedAccessKeyDefinition);
  const rotation = {
    rotationIntervalMs: tokenOptions.rotationIntervalMs ?? SIGNING_KEY_ROTATION_INTERVAL_MS,
    prepublishMs: tokenOptions.prepublishMs ?? SIGNING_KEY_PREPUBLISH_MS,
    maxTokenTtlMs: maxTtlSeconds * 1000,
  };
  const ring = new SigningKeyRing({ storage: options.storage, algorithm: tokenOptions.algorithm ?? 'RS256', policy: rotation, now, logger });
  const kubeConfigRing = new SigningKeyRing({ storage: options.storage, name: KUBE_CONFIG_SIGNING_KEY_RING_NAME, algorithm: KUBE_CONFIG_TOKEN_ALGORITHM, policy: rotation, now, logger });
  const authenticator = new AccessKeyAuthenticator({
    storage: options.storage,
    writer,
    type: ownedAccessKeys,
    hasher,
    now,
    ...(options.lastActivityWriteIntervalMs !== undefined ? { lastActivityWriteIntervalMs: options.lastActivityWriteIntervalMs } : {}),
    ...(options.authCacheMaxKeys !== undefined ? { cacheMaxKeys: options.authCacheMaxKeys } : {}),
    ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
    logger,
  });
  const directTokens = new DirectTokens({
    ring,
    kubeConfigRing,
    issuer,
    audience: tokenOptions.audience ?? DEFAULT_DIRECT_TOKEN_AUDIENCE,
    claimName: managementGroup(platform),
    keys: authenticator,
    ...(tokenOptions.defaultTtlSeconds !== undefined ? { defaultTtlSeconds: tokenOptions.defaultTtlSeconds } : {}),
    maxTtlSeconds,
    now,
  });
  const kubeConfigs = options.virtualCluster !== undefined ? new KubeConfigs(options.virtualCluster, directTokens, managementGroup(platform), logger) : undefined;
  const registry = new ResourceRegistry([
    ownedAccessKeyDefinition,
    directClusterEndpointTokenKind({ platform, issue: (request) => directTokens.issue(request) }),
    ...(kubeConfigs !== undefined ? [virtualClusterInstanceKind({ platform, issue: (request) => kubeConfigs.issue(request) })] : []),
  ]);
  const verifiers = new TokenVerifierChain([
    { kind: 'access key', verifier: authenticator },
    { kind: 'direct cluster endpoint token', verifier: directTokens },
    ...(options.tokenVerifiers ?? []),
  ]);
  const tokenReview = async (body: unknown): Promise<{ code: number; body: unknown }> => ({ code: 200, body: await reviewToken(verifiers, body) });
  const { app, endWatches } = buildApiServer({
    registry,
    storage: options.storage,
    writer,
    serverName: MANAGEMENT_SERVER_NAME,
    version: MANAGEMENT_VERSION_INFO,
    authenticator,
    authorizer: options.authorizer ?? MANAGEMENT_AUTHORIZER,
    // kubectl sends its self reviews (`auth can-i`, `auth whoami`) as protobuf.
    bodyDecoders: [protobufBodyDecoder(new Map([...SELF_REVIEW_PROTOBUF_KINDS, SELF_SUBJECT_RULES_REVIEW_PROTOBUF_KIND]))],
    basePath: MANAGEMENT_BASE_PATH,
    // The webhook's caller is a kube-apiserver, which holds no access key: see docs/adr/0020-token-review-webhook.md.
    publicRoutes: [{ method: 'POST', path: TOKEN_REVIEW_PATH, handle: tokenReview }],
    publicDocuments: [
      { path: OIDC_DISCOVERY_PATH, body: () => openIdConfiguration(issuer()), maxAgeSeconds: KEY_SET_MAX_AGE_SECONDS },
      { path: KEY_SET_PATH, body: () => publishedKeySet(ring, kubeConfigRing), contentType: 'application/jwk-set+json', maxAgeSeconds: KEY_SET_MAX_AGE_SECONDS },
    ],
    https: pair,
    serverAddress: () => address,
    bookmarkIntervalMs: 60_000,
    watchSendBufferBytes: 16 * 1024 * 1024,
    watchLimits: options.watchLimits,
    connectionLimits: options.connectionLimits,
    metrics: options.metrics?.apiServer,
    now,
    logger,
  });
  const stopping = new AbortController();
  const watching = authenticator.run(stopping.signal);
  const controllers =
    options.garbageCollection === false
      ? undefined
      : new StorageControllers({ storage: options.storage, resources: registry.types.map((type) => type.id), controllers: [new GarbageCollector({ writer, types: registry.types })], logger });
  const collecting = controllers?.run(stopping.signal);
  let stopReloads = (): void => undefined;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      stopReloads();
      stopping.abort();
      endWatches();
      await app.close();
      await kubeConfigs?.close();
      await watching;
      await collecting;
      logger.info({ address }, 'Management API stopped');
    })();
    return closing;
  };
  try {
    if (options.bootstrapKeyPath !== undefined) await ensureBootstrapAdminKey({ writer, type: ownedAccessKeys, keyPath: options.bootstrapKeyPath, logger });
    await app.listen({ host, port: options.port ?? 0 });
    const port = listeningPort(app.server);
    address = `${formatHost(host)}:${port}`;
    const server = app.server;
    if (tls !== undefined) {
      if (!(server instanceof TlsServer)) throw new TypeError('the management server was given TLS files but its listener does not serve TLS');
      stopReloads = watchServingPair({ certPath: tls.certPath, keyPath: tls.keyPath, install: (next) => server.setSecureContext({ cert: next.certPem, key: next.keyPem }), logger });
    }
    const url = `${scheme}://${address}${MANAGEMENT_BASE_PATH}`;
    logger.info({ url, tls: tls !== undefined, issuer: issuer() }, 'Management API listening');
    return { url, tokenReviewUrl: `${url}${TOKEN_REVIEW_PATH}`, port, ownedAccessKeys, writer, controllers, authenticator, directTokens, issuer: issuer(), close };
  } catch (error: unknown) {
    await close();
    throw error;
  }
}
