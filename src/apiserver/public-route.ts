/**
 * A route a server adds beside the core's, answered without authentication or authorization, like
 * `/healthz`: for endpoints whose callers hold no credential of this server (the management
 * server's TokenReview webhook, called by another API server). The body is parsed as for every
 * route (JSON or YAML, within the body limits); other media types answer 415.
 */
export interface PublicRoute {
  /** The only method served; others answer 405. */
  method: 'POST';
  /** The path under the server's base path, e.g. `/apis/authentication.k8s.io/v1/tokenreviews`. */
  path: string;
  /** The JSON answer to one request; an `ApiError` thrown answers its Status. */
  handle(body: unknown): Promise<{ code: number; body: unknown }>;
}

/**
 * A document served at an absolute path of the listener, outside the base path, to anyone without
 * authentication (OpenID Connect discovery and its key set): GET only, JSON.
 */
export interface PublicDocument {
  /** The absolute path, e.g. `/.well-known/openid-configuration`. */
  path: string;
  /** The document, asked for on every request (it may change, e.g. when keys rotate). */
  body: () => unknown | Promise<unknown>;
  /** Default `application/json`. */
  contentType?: string;
  /** How long clients may cache it, in seconds. Default: no caching. */
  maxAgeSeconds?: number;
}
