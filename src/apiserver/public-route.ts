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
