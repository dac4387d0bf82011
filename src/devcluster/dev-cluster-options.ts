import { type WatchLimits, watchLimitsWithDefaults } from '../apiserver/index.js';
import { connectionLimitsWithDefaults, type ConnectionLimits } from '../observe/connection-guard.js';
import { silentLogger, type Logger } from '../observe/logger.js';
import { DEFAULT_SIGNING_DURATION_MS } from './certificate-signer.js';

/** Options of `startDevCluster`. */
export interface DevClusterOptions {
  /** Address to listen on. Default `127.0.0.1`. */
  host?: string;
  /** TCP port; 0 picks a free ephemeral port. Default 0. */
  port?: number;
  /**
   * Directory of the durable store (append-only log with fsync, snapshots). Objects and
   * resourceVersions survive restarts. Default: none (memory only).
   */
  dataDir?: string;
  /**
   * Serve HTTPS with client-certificate authentication; the CA, serving and admin certificates
   * are generated in (or reused from) `dir`. Default: none (plain HTTP).
   */
  tls?: { dir: string };
  /**
   * The longest client certificate the CSR signer issues (with `tls`), in ms; a request's
   * `expirationSeconds` may only shorten it. Default one year (kube-controller-manager's
   * `--cluster-signing-duration`).
   */
  clusterSigningDurationMs?: number;
  /** Bearer tokens accepted as the admin user. Setting any enforces authentication. Default: none. */
  tokens?: readonly string[];
  /** A TokenReview webhook asked about bearer tokens not in `tokens`. Default: none. */
  tokenReviewUrl?: string;
  /** PEM of the CA of an https `tokenReviewUrl` (the management API's). Default: the system's trusted CAs. */
  tokenReviewCaPem?: string;
  /**
   * How long the webhook's answers (accepted or refused) are cached per token, in ms: a disabled
   * or deleted key keeps working that long. Default 120_000, as the kube-apiserver's
   * `--authentication-token-webhook-cache-ttl`.
   */
  tokenReviewCacheTtlMs?: number;
  /**
   * Number of retained events for watch resume (count); a watch resumed from an older
   * resourceVersion gets 410 Expired. Small values let tests force 410. Default 10_000.
   */
  watchWindow?: number;
  /**
   * A watch whose unsent response bytes exceed this many bytes is closed (the client relists),
   * so a slow watcher neither blocks writers nor grows memory without bound. Default 8 MiB.
   */
  watchSendBufferBytes?: number;
  /** Interval of BOOKMARK events on watches with `allowWatchBookmarks=true`, in ms. Default 60_000. */
  bookmarkIntervalMs?: number;
  /** Caps on concurrent watches, in all and per user (429 with Retry-After beyond). Default 1000 and 100. */
  watchLimits?: Partial<WatchLimits>;
  /**
   * Timeouts of request heads (10 s) and idle keep-alive connections (60 s), of receiving a
   * request (60 s), and the connection cap (2048; idle connections are evicted for newcomers).
   */
  connectionLimits?: Partial<ConnectionLimits>;
  /** Where the server logs. Default: silent. */
  logger?: Logger;
}

/** {@link DevClusterOptions} with every default applied. */
export interface ResolvedDevClusterOptions {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string | undefined;
  readonly tls: { readonly dir: string } | undefined;
  readonly clusterSigningDurationMs: number;
  readonly tokens: readonly string[];
  readonly tokenReviewUrl: string | undefined;
  readonly tokenReviewCaPem: string | undefined;
  readonly tokenReviewCacheTtlMs: number | undefined;
  readonly watchWindow: number;
  readonly watchSendBufferBytes: number;
  readonly bookmarkIntervalMs: number;
  readonly watchLimits: Readonly<WatchLimits>;
  readonly connectionLimits: Readonly<ConnectionLimits>;
  readonly logger: Logger;
}

/** Default of {@link DevClusterOptions.watchSendBufferBytes}: 8 MiB. */
export const DEFAULT_WATCH_SEND_BUFFER_BYTES = 8 * 1024 * 1024;

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}

/** Validates `options` and returns a new frozen object with every default filled in. */
export function withDefaults(options: DevClusterOptions = {}): ResolvedDevClusterOptions {
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`port must be between 0 and 65535, got ${port}`);
  if (options.tls !== undefined && options.tls.dir === '') throw new RangeError('tls.dir must not be empty');
  return Object.freeze({
    host: options.host ?? '127.0.0.1',
    port,
    dataDir: options.dataDir,
    tls: options.tls === undefined ? undefined : Object.freeze({ dir: options.tls.dir }),
    clusterSigningDurationMs: positiveInteger('clusterSigningDurationMs', options.clusterSigningDurationMs ?? DEFAULT_SIGNING_DURATION_MS),
    tokens: Object.freeze([...(options.tokens ?? [])]),
    tokenReviewUrl: options.tokenReviewUrl,
    tokenReviewCaPem: options.tokenReviewCaPem,
    tokenReviewCacheTtlMs: options.tokenReviewCacheTtlMs,
    watchWindow: positiveInteger('watchWindow', options.watchWindow ?? 10_000),
    watchSendBufferBytes: positiveInteger('watchSendBufferBytes', options.watchSendBufferBytes ?? DEFAULT_WATCH_SEND_BUFFER_BYTES),
    bookmarkIntervalMs: positiveInteger('bookmarkIntervalMs', options.bookmarkIntervalMs ?? 60_000),
    watchLimits: watchLimitsWithDefaults(options.watchLimits),
    connectionLimits: connectionLimitsWithDefaults(options.connectionLimits),
    logger: options.logger ?? silentLogger(),
  });
}
