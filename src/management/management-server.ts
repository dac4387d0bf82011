import { protobufBodyDecoder } from '../apiserver/protobuf-decoder.js';
import { SELF_REVIEW_PROTOBUF_KINDS } from '../apiserver/self-reviews.js';
import type { Server as TlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { buildApiServer } from '../apiserver/api-server.js';
import type { ServerVersion } from '../apiserver/discovery.js';
import type { RequestAuthorizer } from '../apiserver/request-authorization.js';
import { ResourceRegistry, type ResourceType } from '../apiserver/resource-type.js';
import type { Storage } from '../apiserver/storage.js';
import type { ObjectWriter } from '../apiserver/object-writer.js';
import type { Logger } from '../observe/logger.js';
import { AccessKeyAuthenticator } from './access-key-authenticator.js';
import { AccessKeyHasher } from './access-key-hasher.js';
import { ensureBootstrapAdminKey } from './bootstrap-admin-key.js';
import { DEFAULT_PLATFORM, MANAGEMENT_BASE_PATH, MANAGEMENT_SERVER_NAME } from './management-constants.js';
import { ownedAccessKeyKind } from './owned-access-key-kind.js';
import { MANAGEMENT_AUTHORIZER } from './ownership-authorizer.js';
import { readServingPair, watchServingPair } from './tls-reloader.js';

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
  logger: Logger;
}

/** A running management server. */
export interface ManagementServer {
  /** The base URL clients use as `--server`, e.g. `https://127.0.0.1:43121/kubernetes/management`. */
  readonly url: string;
  readonly port: number;
  /** The served OwnedAccessKey resource. */
  readonly ownedAccessKeys: ResourceType;
  /** The registry store (the server's own writes). */
  readonly writer: ObjectWriter;
  readonly authenticator: AccessKeyAuthenticator;
  /** Stops listening, ends watches, stops the key watch and certificate reloads. Idempotent. */
  close(): Promise<void>;
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Starts the management API (issue 9 §2): the apiserver core with OwnedAccessKey under
 * `/kubernetes/management`, HTTPS from certificate files reloaded when they change (plain HTTP
 * only with `insecureHttp`), every request authenticated by its access key and authorized by
 * `authorizer`; creates the bootstrap admin key when asked. Fails when neither TLS files nor
 * `insecureHttp` are given.
 */
export async function startManagementServer(options: ManagementServerOptions): Promise<ManagementServer> {
  if (options.tls === undefined && options.insecureHttp !== true) {
    throw new TypeError('the management server needs a serving certificate and key (tls.certPath, tls.keyPath), or insecureHttp: true to serve plain HTTP');
  }
  const logger = options.logger.child({ component: 'management' });
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? ((): number => Date.now());
  const hasher = new AccessKeyHasher(options.keyHashSecret);
  const registry = new ResourceRegistry([ownedAccessKeyKind({ platform: options.platform ?? DEFAULT_PLATFORM, hasher })]);
  const ownedAccessKeys = registry.byKind('OwnedAccessKey');
  const tls = options.insecureHttp === true ? undefined : options.tls;
  const pair = tls !== undefined ? await readServingPair(tls.certPath, tls.keyPath) : undefined;
  let address = `${formatHost(host)}:${options.port ?? 0}`;
  // The authenticator needs the writer the server builds; it is only asked once the server listens.
  const late: { authenticator?: AccessKeyAuthenticator } = {};
  const { app, writer, endWatches } = buildApiServer({
    registry,
    storage: options.storage,
    serverName: MANAGEMENT_SERVER_NAME,
    version: MANAGEMENT_VERSION_INFO,
    authenticator: { authenticate: (input) => (late.authenticator as AccessKeyAuthenticator).authenticate(input) },
    authorizer: options.authorizer ?? MANAGEMENT_AUTHORIZER,
    // kubectl sends its self reviews (`auth can-i`, `auth whoami`) as protobuf.
    bodyDecoders: [protobufBodyDecoder(SELF_REVIEW_PROTOBUF_KINDS)],
    basePath: MANAGEMENT_BASE_PATH,
    https: pair,
    serverAddress: () => address,
    bookmarkIntervalMs: 60_000,
    watchSendBufferBytes: 16 * 1024 * 1024,
    now,
    logger,
  });
  const authenticator = new AccessKeyAuthenticator({
    storage: options.storage,
    writer,
    type: ownedAccessKeys,
    hasher,
    now,
    ...(options.lastActivityWriteIntervalMs !== undefined ? { lastActivityWriteIntervalMs: options.lastActivityWriteIntervalMs } : {}),
    logger,
  });
  late.authenticator = authenticator;
  const stopping = new AbortController();
  const watching = authenticator.run(stopping.signal);
  let stopReloads = (): void => undefined;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      stopReloads();
      stopping.abort();
      endWatches();
      await app.close();
      await watching;
      logger.info({ address }, 'Management API stopped');
    })();
    return closing;
  };
  try {
    if (options.bootstrapKeyPath !== undefined) await ensureBootstrapAdminKey({ writer, type: ownedAccessKeys, keyPath: options.bootstrapKeyPath, logger });
    await app.listen({ host, port: options.port ?? 0 });
    const port = (app.server.address() as AddressInfo).port;
    address = `${formatHost(host)}:${port}`;
    if (tls !== undefined) {
      const server = app.server as unknown as TlsServer;
      stopReloads = watchServingPair({ certPath: tls.certPath, keyPath: tls.keyPath, install: (next) => server.setSecureContext({ cert: next.certPem, key: next.keyPem }), logger });
    }
    const url = `${tls !== undefined ? 'https' : 'http'}://${address}${MANAGEMENT_BASE_PATH}`;
    logger.info({ url, tls: tls !== undefined }, 'Management API listening');
    return { url, port, ownedAccessKeys, writer, authenticator, close };
  } catch (error: unknown) {
    await close();
    throw error;
  }
}
