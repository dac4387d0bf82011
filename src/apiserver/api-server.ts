import type { FastifyInstance } from 'fastify';
import type { Logger } from '../observe/logger.js';
import type { BodyDecoder } from './body-decoder.js';
import type { ServerVersion } from './discovery.js';
import { buildHttpApp, type HttpsMaterial } from './http-app.js';
import type { CreateAdmission } from './create-admission.js';
import { ListPager } from './list-pager.js';
import { ObjectWriter } from './object-writer.js';
import { OpenApiDocuments } from './openapi.js';
import type { PublicDocument, PublicRoute } from './public-route.js';
import type { RequestAuthenticator } from './request-authentication.js';
import type { RequestAuthorizer } from './request-authorization.js';
import { ResourceHandler, TEXT_OBJECT_MEDIA_TYPES } from './resource-handler.js';
import type { ResourceRegistry } from './resource-type.js';
import type { Storage } from './storage.js';
import type { ApiServerMetrics } from './api-server-metrics.js';
import { WatchAdmission, watchLimitsWithDefaults, type WatchLimits } from './watch-admission.js';
import { WatchEventCache } from './watch-event-cache.js';
import { WatchWriteTurns } from './watch-write-turns.js';
import type { WatchStream } from './watch-stream.js';
import { connectionLimitsWithDefaults, type ConnectionLimits } from '../observe/connection-guard.js';

/** What a server is built from: its kinds, its storage, and how it presents itself. */
export interface ApiServerInit {
  /** The kinds served (each a schema plus a strategy). */
  registry: ResourceRegistry;
  storage: Storage;
  /** Admits creates after validation (the devcluster's namespace lifecycle). Default: every create. */
  admission?: CreateAdmission | undefined;
  /** How the server names itself in OpenAPI descriptions and review answers, e.g. `devcluster`. */
  serverName: string;
  /** What `GET /version` and the OpenAPI documents report. */
  version: ServerVersion;
  /** Binary media types of create and update bodies besides JSON and YAML. Default: none. */
  bodyDecoders?: readonly BodyDecoder[];
  /** Enforces authentication when given; otherwise every request is anonymous-allowed. */
  authenticator?: RequestAuthenticator | undefined;
  /** Decides what each authenticated user may do and see. Default: everything. */
  authorizer?: RequestAuthorizer | undefined;
  /** The path every route is served under, e.g. `/kubernetes/management`. Default '' (the root). */
  basePath?: string;
  /** Routes answered without authentication or authorization (a webhook another server calls). Default: none. */
  publicRoutes?: readonly PublicRoute[];
  /** Documents served at the listener's root without authentication (OpenID discovery). Default: none. */
  publicDocuments?: readonly PublicDocument[];
  /** Serve HTTPS with these; plain HTTP when undefined. */
  https?: HttpsMaterial | undefined;
  /** `host:port` clients reach the server on (for `/api`'s serverAddressByClientCIDRs). */
  serverAddress: () => string;
  /** Interval of BOOKMARK events on watches that allow them, in ms. */
  bookmarkIntervalMs: number;
  /** A watch whose unsent response bytes exceed this many bytes is closed (the client relists). */
  watchSendBufferBytes: number;
  /** The largest object stored, in bytes of JSON (413 beyond, dry runs too). Default 1.5 MiB, etcd's request limit. */
  maxObjectBytes?: number | undefined;
  /**
   * The registry store requests write through, when parts built before the server (an
   * authenticator that records activity) write through the same one; it must be over `storage`.
   * Default: one over `storage` with `admission`, `maxObjectBytes` and `now`, which apply to the
   * default only.
   */
  writer?: ObjectWriter | undefined;
  /** Caps on concurrent watches (429 with Retry-After beyond). Default {@link DEFAULT_WATCH_LIMITS}. */
  watchLimits?: Partial<WatchLimits> | undefined;
  /** Head and idle timeouts and the connection cap of the listener. Default {@link DEFAULT_CONNECTION_LIMITS}. */
  connectionLimits?: Partial<ConnectionLimits> | undefined;
  /** Counts watches, shared encodings and closed connections. Default: not counted. */
  metrics?: ApiServerMetrics | undefined;
  /** Wall clock in ms since the epoch (timestamps, table ages). Default `Date.now`. */
  now?: () => number;
  logger: Logger;
}

/** A server built on the core, not yet listening. */
export interface ApiServer {
  /** The Fastify app: `listen()` it, or `inject()` requests without a socket. */
  readonly app: FastifyInstance;
  /** The registry store, for the server's own writes (bootstrap objects, controllers). */
  readonly writer: ObjectWriter;
  /** Ends every open watch; call before closing the app so that it does not wait for them. */
  endWatches(): void;
}

/**
 * Assembles the generic server: the registry store over `storage`, the REST handlers with
 * paging and watches, and the HTTP pipeline (body parsing, authentication, discovery, OpenAPI,
 * Status errors). Does no I/O and starts no timers.
 */
export function buildApiServer(init: ApiServerInit): ApiServer {
  const now = init.now ?? ((): number => Date.now());
  const writer = init.writer ?? new ObjectWriter({ storage: init.storage, admission: init.admission, now, maxObjectBytes: init.maxObjectBytes });
  const watches = new Set<WatchStream>();
  const bodyDecoders = init.bodyDecoders ?? [];
  const handler = new ResourceHandler({
    storage: init.storage,
    registry: init.registry,
    writer,
    objectMediaTypes: [...TEXT_OBJECT_MEDIA_TYPES, ...bodyDecoders.map((decoder) => decoder.mediaType)],
    pager: new ListPager(),
    now,
    bookmarkIntervalMs: init.bookmarkIntervalMs,
    watchSendBufferBytes: init.watchSendBufferBytes,
    watches,
    watchAdmission: new WatchAdmission(watchLimitsWithDefaults(init.watchLimits)),
    watchLines: new WatchEventCache((representation) => init.metrics?.watchEventEncoded(representation)),
    watchTurns: new WatchWriteTurns(),
    metrics: init.metrics,
    logger: init.logger,
  });
  const app = buildHttpApp({
    handler,
    registry: init.registry,
    openApi: new OpenApiDocuments({ registry: init.registry, gitVersion: init.version.gitVersion, serverName: init.serverName }),
    version: init.version,
    bodyDecoders,
    accessReviewReason: `the ${init.serverName} allows every authenticated request (it has no authorization)`,
    lookup: (ref) => init.storage.get(ref),
    authenticator: init.authenticator,
    authorizer: init.authorizer,
    ...(init.basePath !== undefined ? { basePath: init.basePath } : {}),
    ...(init.publicRoutes !== undefined ? { publicRoutes: init.publicRoutes } : {}),
    ...(init.publicDocuments !== undefined ? { publicDocuments: init.publicDocuments } : {}),
    https: init.https,
    serverAddress: init.serverAddress,
    connectionLimits: connectionLimitsWithDefaults(init.connectionLimits),
    metrics: init.metrics,
    logger: init.logger,
  });
  return {
    app,
    writer,
    endWatches: () => {
      for (const watch of [...watches]) watch.end();
    },
  };
}
