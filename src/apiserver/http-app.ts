import type { Duplex } from 'node:stream';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { guardConnections, type ConnectionLimits } from '../observe/connection-guard.js';
import type { Logger } from '../observe/logger.js';
import type { ApiServerMetrics } from './api-server-metrics.js';
import { ApiError, badRequest, methodNotAllowed, pathNotFound, unsupportedMediaType } from '../apimachinery/index.js';
import { decodeBody, UndecodableBody, type BodyDecoder } from './body-decoder.js';
import { bodyTooLarge, MAX_REQUEST_BODY_BYTES } from './body-limits.js';
import { answerOnSocket, answerOversizedBody, boundUnreadBody, clientErrorStatus, connectStatus, isHeadRequest } from './connection-errors.js';
import { bodyMediaType, negotiate, OPENAPI_V2_PROTOBUF } from './content-negotiation.js';
import {
  aggregatedDiscovery,
  aggregatedDiscoveryContentType,
  apiGroupDocument,
  apiGroupList,
  apiResourceList,
  apiVersions,
  versionInfo,
  type ServerVersion,
} from './discovery.js';
import type { OpenApiDocuments } from './openapi.js';
import { authenticateRequest, UNAUTHENTICATED_PATHS, type AuthenticatedUser, type RequestAuthenticator } from './request-authentication.js';
import { authorizeNonResourceRequest, authorizeRequest, isResourcePath, type RequestAuthorizer } from './request-authorization.js';
import type { PublicDocument, PublicRoute } from './public-route.js';
import { parseResourceRequest } from './request-info.js';
import { TEXT_OBJECT_MEDIA_TYPES, type ResourceHandler } from './resource-handler.js';
import type { ResourceRegistry } from './resource-type.js';
import type { ObjectRef, StoredObject } from './storage.js';
import { ANONYMOUS, SELF_SUBJECT_ACCESS_REVIEWS, SELF_SUBJECT_REVIEWS, selfSubjectAccessReview, selfSubjectReview } from './self-reviews.js';
import { SELF_SUBJECT_RULES_REVIEWS, selfSubjectRulesReview } from './self-subject-rules-review.js';
import { bodyLimitError, parseJsonBody, parseYamlBody } from './text-body-parsers.js';

/** TLS material for serving HTTPS with client-certificate authentication. */
export interface HttpsMaterial {
  certPem: string;
  keyPem: string;
  /** CA that client certificates must chain to; undefined: no client certificates are asked for. */
  clientCaPem?: string | undefined;
}

/** What {@link buildHttpApp} wires together. */
export interface HttpAppInit {
  handler: ResourceHandler;
  /** The resources served: routing and discovery. */
  registry: ResourceRegistry;
  openApi: OpenApiDocuments;
  /** What `GET /version` answers. */
  version: ServerVersion;
  /** Binary media types of create and update bodies besides JSON and YAML (protobuf). */
  bodyDecoders: readonly BodyDecoder[];
  /** Why a SelfSubjectAccessReview is allowed on a server without an authorizer. */
  accessReviewReason: string;
  /** A stored object (a named SelfSubjectAccessReview asks whether the user may see it). */
  lookup: (ref: ObjectRef) => Promise<StoredObject | undefined>;
  /** Enforces authentication when given; otherwise every request is anonymous-allowed. */
  authenticator: RequestAuthenticator | undefined;
  https: HttpsMaterial | undefined;
  /** `host:port` clients reach the server on (for `/api`'s serverAddressByClientCIDRs). */
  serverAddress: () => string;
  /**
   * The path every route is served under, e.g. `/kubernetes/management` (no trailing slash), like
   * a server behind a path-routing proxy: `<basePath>/api`, `<basePath>/apis/...`. Requests
   * outside it answer a 404 Status. Default '' (the root).
   */
  basePath?: string;
  /** Decides, per authenticated request, what the user may do and see. Default: everything. */
  authorizer?: RequestAuthorizer | undefined;
  /** Routes answered without authentication or authorization, before the resource routes. Default: none. */
  publicRoutes?: readonly PublicRoute[];
  /** Documents served outside the base path without authentication. Default: none. */
  publicDocuments?: readonly PublicDocument[];
  /** Head and idle timeouts and the connection cap of the listener (see {@link guardConnections}). */
  connectionLimits: Readonly<ConnectionLimits>;
  /** Counts the connections the guard closes. Default: not counted. */
  metrics?: ApiServerMetrics | undefined;
  logger: Logger;
}

const JSON_TYPES = ['application/json', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];
const YAML_TYPES = ['application/yaml', 'application/apply-patch+yaml'];

function statusOfFastifyError(error: FastifyError): ApiError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UnsupportedMediaType', `unsupported media type: ${error.message}`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return badRequest(error.message);
    default:
      break;
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) return badRequest(error.message);
  return undefined;
}

/**
 * Builds a server's Fastify app: body parsers for JSON, YAML, the patch types and the server's
 * binary media types, authentication, discovery, OpenAPI, health and the resource routes. Every error answers a
 * Kubernetes Status. Does no I/O; the caller listens (or injects).
 */
export function buildHttpApp(init: HttpAppInit): FastifyInstance {
  const basePath = init.basePath ?? '';
  const sendFailure = (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    if (error instanceof Error && 'code' in error && error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // The rest of the body is still on its way: answered on the connection, which reads and drops it before closing.
      reply.hijack();
      answerOversizedBody(request.raw, bodyLimitError(bodyTooLarge()).toStatus());
      return reply;
    }
    let failure: ApiError | undefined;
    // An ApiError the REST client received describes another server's objects: not this server's answer.
    if (error instanceof ApiError && error.request === undefined) failure = error;
    else if (error instanceof Error && 'code' in error && typeof error.code === 'string') failure = statusOfFastifyError(error as FastifyError);
    if (failure === undefined) {
      init.logger.error({ err: error, method: request.method, url: request.url }, 'Request failed with an unexpected error');
      failure = new ApiError('InternalError', `Internal error occurred: ${error instanceof Error ? error.message : String(error)}`);
    }
    // An overload answer says when to come back, as the real server's 429s do.
    if (failure.details?.retryAfterSeconds !== undefined) reply.header('retry-after', String(failure.details.retryAfterSeconds));
    return reply.code(failure.code).type('application/json').send(JSON.stringify(failure.toStatus()));
  };
  const publicRoutes = new Map((init.publicRoutes ?? []).map((route) => [route.path, route]));
  // Requests whose path is not under the base path (answered 404 before authentication).
  const outsideBasePath = new WeakSet<object>();
  const app = Fastify({
    logger: false,
    ...(basePath !== ''
      ? {
          rewriteUrl: (raw: { url?: string }): string => {
            const url = raw.url ?? '/';
            const rest = url.slice(basePath.length);
            if (url.startsWith(basePath) && (rest === '' || rest.startsWith('/') || rest.startsWith('?'))) return rest.startsWith('/') ? rest : `/${rest}`;
            outsideBasePath.add(raw);
            return url;
          },
        }
      : {}),
    bodyLimit: MAX_REQUEST_BODY_BYTES,
    // A path that is not valid percent-encoded UTF-8 fails before routing: a Status too.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
      sendFailure(error, request, reply);
    },
    // HTTP the Node parser refuses never becomes a request: answered with a Status on the socket.
    clientErrorHandler: (error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex) => {
      if (error.code === 'ECONNRESET') socket.destroy();
      else answerOnSocket(socket, clientErrorStatus(error.code), isHeadRequest(error.rawPacket));
    },
    forceCloseConnections: true,
    return503OnClosing: false,
    ...(init.https !== undefined
      ? {
          https: {
            cert: init.https.certPem,
            key: init.https.keyPem,
            ...(init.https.clientCaPem !== undefined ? { ca: init.https.clientCaPem, requestCert: true, rejectUnauthorized: false } : {}),
          },
        }
      : {}),
  }) as unknown as FastifyInstance;
  guardConnections(app.server, init.connectionLimits, init.metrics);
  // Node hands CONNECT to this event, not to the routes; unheard, it drops the connection unanswered.
  app.server.on('connect', (_request: unknown, socket: Duplex) => answerOnSocket(socket, connectStatus()));
  // An answer given before the body was read (a 401 from the head, a route that ignores bodies):
  // Node would read the rest for as long as the request timeout allows; bounded instead.
  app.addHook('onSend', (request, reply, payload, done) => {
    boundUnreadBody(request.raw, reply.raw);
    done(null, payload);
  });

  app.removeAllContentTypeParsers();
  // JSON and YAML bodies are checked against the body limits before they become values.
  const textParsers = [
    [JSON_TYPES, parseJsonBody],
    [YAML_TYPES, parseYamlBody],
  ] as const;
  for (const [mediaTypes, parse] of textParsers) {
    app.addContentTypeParser(mediaTypes, { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, parse(String(body)));
      } catch (error: unknown) {
        done(error as Error, undefined);
      }
    });
  }
  // Binary bodies (kubectl's generators send protobuf) are decoded to JSON for create and update;
  // for other verbs the bytes reach the route, which answers 415.
  for (const decoder of init.bodyDecoders) {
    app.addContentTypeParser(decoder.mediaType, { parseAs: 'buffer' }, (request, body, done) => {
      done(null, decodeBody(decoder, request.method, body as Buffer));
    });
  }
  // Any other media type is read as bytes; the route answers 415 when the verb needs a body. A
  // body without a Content-Type is JSON (bodyMediaType), as on the real server.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    const readAsJson = request.headers['content-type'] === undefined && bodyMediaType(request.method, undefined) === 'application/json';
    if (!readAsJson) {
      done(null, body);
      return;
    }
    try {
      done(null, parseJsonBody((body as Buffer).toString('utf8')));
    } catch (error: unknown) {
      done(error as Error, undefined);
    }
  });

  app.setErrorHandler(sendFailure);
  app.setNotFoundHandler((request, reply) => {
    return reply.code(404).type('application/json').send(JSON.stringify(pathNotFound(request.url).toStatus()));
  });

  const publicDocuments = new Map((init.publicDocuments ?? []).map((document) => [document.path, document]));
  if (publicDocuments.size > 0) {
    // Answered before the base path and authentication: only at the listener's root.
    app.addHook('onRequest', async (request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      const document = publicDocuments.get(path);
      if (document === undefined || (basePath !== '' && !outsideBasePath.has(request.raw))) return undefined;
      if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(request.method, path);
      if (document.maxAgeSeconds !== undefined) reply.header('cache-control', `public, max-age=${document.maxAgeSeconds}`);
      const body = await document.body();
      return reply.code(200).header('content-type', document.contentType ?? 'application/json').send(Buffer.from(JSON.stringify(body)));
    });
  }
  if (basePath !== '') {
    app.addHook('onRequest', async (request) => {
      if (outsideBasePath.has(request.raw)) throw pathNotFound(request.url.split('?')[0] ?? '');
    });
  }

  // The user each request authenticated as (requests without authentication have none).
  const authenticatedUsers = new WeakMap<object, AuthenticatedUser>();
  if (init.authenticator !== undefined) {
    const authenticator = init.authenticator;
    app.addHook('onRequest', async (request) => {
      const path = request.url.split('?')[0] ?? '';
      if (UNAUTHENTICATED_PATHS.includes(path) || publicRoutes.has(path)) return;
      const user = await authenticateRequest(authenticator, request.raw);
      authenticatedUsers.set(request.raw, user);
      request.log.debug({ user: user.username }, 'Authenticated');
    });
  }

  app.route({
    method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/*',
    handler: async (request, reply) => {
      const url = new URL(request.url, 'http://apiserver.invalid');
      const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
      const publicRoute = publicRoutes.get(path);
      if (publicRoute !== undefined) return servePublicRoute(publicRoute, request, reply);
      const user = authenticatedUsers.get(request.raw);
      if (init.authorizer !== undefined && user !== undefined && !isResourcePath(path)) await authorizeNonResourceRequest(init.authorizer, user, request.method, path);
      const answered = serveNonResource(init, path, request, reply, user);
      if (answered !== undefined) return answered;
      const target = parseResourceRequest(init.registry, request.method, path, url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1');
      const access = init.authorizer !== undefined && user !== undefined ? await authorizeRequest(init.authorizer, user, target, path) : undefined;
      return init.handler.handle(target, request, reply, url.searchParams, access, user ?? ANONYMOUS);
    },
  });
  return app;
}

function sendJson(reply: FastifyReply, body: unknown, contentType = 'application/json'): FastifyReply {
  // Sent as bytes so Fastify keeps the media type verbatim: for strings it rewrites the
  // parameters (quotes, charset) of the aggregated discovery type.
  return reply.code(200).header('content-type', contentType).send(Buffer.from(JSON.stringify(body)));
}

async function servePublicRoute(route: PublicRoute, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  if (request.method !== route.method) throw methodNotAllowed(request.method, route.path);
  if (Buffer.isBuffer(request.body)) throw unsupportedMediaType(String(request.headers['content-type'] ?? ''), ['application/json', 'application/yaml']);
  const answer = await route.handle(request.body);
  return reply.code(answer.code).header('content-type', 'application/json').send(Buffer.from(JSON.stringify(answer.body)));
}

/** Discovery, OpenAPI, version and health; undefined when `path` is a resource path. */
function serveNonResource(init: HttpAppInit, path: string, request: FastifyRequest, reply: FastifyReply, user: AuthenticatedUser | undefined): FastifyReply | Promise<FastifyReply> | undefined {
  const parts = path.split('/').filter((part) => part !== '');
  const get = (answer: () => FastifyReply): FastifyReply => {
    if (request.method !== 'GET') throw methodNotAllowed(request.method, path);
    return answer();
  };
  if (path === '/healthz' || path === '/readyz' || path === '/livez') return get(() => reply.code(200).type('text/plain; charset=utf-8').send('ok'));
  if (path === '/version') return get(() => sendJson(reply, versionInfo(init.version)));
  if (path === SELF_SUBJECT_ACCESS_REVIEWS || path === SELF_SUBJECT_REVIEWS || path === SELF_SUBJECT_RULES_REVIEWS) {
    if (request.method !== 'POST') throw methodNotAllowed(request.method, path);
    const created = (body: unknown): FastifyReply => reply.code(201).header('content-type', 'application/json').send(Buffer.from(JSON.stringify(body)));
    if (path === SELF_SUBJECT_REVIEWS) return created(selfSubjectReview(user ?? ANONYMOUS));
    const asked = request.body;
    if (path === SELF_SUBJECT_RULES_REVIEWS) {
      if (asked instanceof UndecodableBody) throw asked.failure;
      if (Buffer.isBuffer(asked)) throw unsupportedMediaType(String(request.headers['content-type'] ?? ''), [...TEXT_OBJECT_MEDIA_TYPES, ...init.bodyDecoders.map((decoder) => decoder.mediaType)]);
      return selfSubjectRulesReview(asked, { user, authorizer: user !== undefined ? init.authorizer : undefined, registry: init.registry }).then(created);
    }
    const authorizer = user !== undefined ? init.authorizer : undefined;
    // A server that allows everything needs no spec: an undecodable body is answered all the same.
    if (authorizer !== undefined && asked instanceof UndecodableBody) throw asked.failure;
    if (authorizer !== undefined && Buffer.isBuffer(asked)) throw unsupportedMediaType(String(request.headers['content-type'] ?? ''), [...TEXT_OBJECT_MEDIA_TYPES, ...init.bodyDecoders.map((decoder) => decoder.mediaType)]);
    const context = { user, authorizer, noAuthorizerReason: init.accessReviewReason, registry: init.registry, lookup: init.lookup };
    return selfSubjectAccessReview(asked, context).then(created);
  }
  if (path === '/api' || path === '/apis') {
    return get(() => {
      const representation = negotiate(request.headers.accept, ['json', 'discovery-v2', 'discovery-v2beta1']);
      if (representation === 'discovery-v2' || representation === 'discovery-v2beta1') {
        const version = representation === 'discovery-v2' ? 'v2' : 'v2beta1';
        return sendJson(reply.header('Vary', 'Accept'), aggregatedDiscovery(init.registry, path === '/api', version), aggregatedDiscoveryContentType(version));
      }
      return sendJson(reply.header('Vary', 'Accept'), path === '/api' ? apiVersions(init.serverAddress()) : apiGroupList(init.registry));
    });
  }
  if (parts[0] === 'apis' && parts.length === 2) {
    return get(() => {
      const document = apiGroupDocument(init.registry, parts[1] ?? '');
      if (document === undefined) throw new ApiError('NotFound', 'the server could not find the requested resource');
      return sendJson(reply, document);
    });
  }
  if ((parts[0] === 'api' && parts.length === 2) || (parts[0] === 'apis' && parts.length === 3)) {
    return get(() => {
      const document = parts[0] === 'api' ? apiResourceList(init.registry, '', parts[1] ?? '') : apiResourceList(init.registry, parts[1] ?? '', parts[2] ?? '');
      if (document === undefined) throw new ApiError('NotFound', 'the server could not find the requested resource');
      return sendJson(reply, document);
    });
  }
  if (parts[0] === 'openapi') {
    return get(() => {
      if (path === '/openapi/v3') return sendJson(reply, init.openApi.index());
      if (path === '/openapi/v2') {
        // client-go asks for protobuf only (kubectl's client-side validation); other clients JSON.
        if (negotiate(request.headers.accept, ['openapi-v2-protobuf', 'json']) === 'json') return sendJson(reply, init.openApi.documentV2());
        return reply.code(200).header('content-type', OPENAPI_V2_PROTOBUF).send(init.openApi.documentV2Protobuf());
      }
      const document = parts[1] === 'v3' ? init.openApi.document(parts.slice(2).join('/')) : undefined;
      if (document === undefined) throw new ApiError('NotFound', 'the server could not find the requested resource');
      const hashed = request.url.includes('hash=');
      return sendJson(reply.header('Cache-Control', hashed ? 'public, immutable' : 'no-cache, private'), document);
    });
  }
  return undefined;
}
