/**
 * The Status reasons of Kubernetes (metav1.StatusReason) and the HTTP code each goes with: the
 * one catalogue both the REST client (which classifies a failure by reason, then by code) and the
 * API-server core (which answers every failure with a reason and its code) read. Clients switch on
 * a reason, never on a message.
 */
export const STATUS_REASON_CODES = Object.freeze({
  /** The request carries no valid credentials. */
  Unauthorized: 401,
  /** The caller may not do this. */
  Forbidden: 403,
  /** The object (or the resource, or the path) does not exist. */
  NotFound: 404,
  /** A create hit an existing name. */
  AlreadyExists: 409,
  /** A precondition failed: a stale resourceVersion or another UID. */
  Conflict: 409,
  /** The requested resourceVersion is no longer retained. */
  Gone: 410,
  /** The object failed validation; `details.causes` name the fields. */
  Invalid: 422,
  /** The server could not finish in time and asks the client to retry. */
  ServerTimeout: 500,
  /** The request's own timeout ran out before the server finished. */
  Timeout: 504,
  /** The server throttles the client; `details.retryAfterSeconds` says when to come back. */
  TooManyRequests: 429,
  /** The request is malformed. */
  BadRequest: 400,
  /** The resource does not support the verb. */
  MethodNotAllowed: 405,
  /** No representation the client accepts. */
  NotAcceptable: 406,
  /** The request body is larger than the server takes. */
  RequestEntityTooLarge: 413,
  /** The request body's media type is not one the verb accepts. */
  UnsupportedMediaType: 415,
  /** The server failed; nothing the client did. */
  InternalError: 500,
  /** A watch or list resumed from a resourceVersion that is no longer retained (sent with 410). */
  Expired: 410,
  /** The server cannot answer now. */
  ServiceUnavailable: 503,
} as const);

/** One of the reasons of {@link STATUS_REASON_CODES}. */
export type StatusReason = keyof typeof STATUS_REASON_CODES;

const KNOWN_REASONS: ReadonlySet<string> = new Set(Object.keys(STATUS_REASON_CODES));

/** Whether `reason` is one Kubernetes defines (anything else, `''` included, is "unknown"). */
export function isKnownStatusReason(reason: string): reason is StatusReason {
  return KNOWN_REASONS.has(reason);
}

/**
 * The reason an HTTP code implies when an answer carries no Status (a proxy's plain-text error):
 * where several reasons share a code, the general one (409 Conflict, 410 Gone, 500 InternalError);
 * 504 is read as the server's timeout. `''` for a code without a reason.
 */
const REASON_OF_CODE: ReadonlyMap<number, StatusReason> = new Map<number, StatusReason>([
  [400, 'BadRequest'],
  [401, 'Unauthorized'],
  [403, 'Forbidden'],
  [404, 'NotFound'],
  [405, 'MethodNotAllowed'],
  [406, 'NotAcceptable'],
  [409, 'Conflict'],
  [410, 'Gone'],
  [413, 'RequestEntityTooLarge'],
  [415, 'UnsupportedMediaType'],
  [422, 'Invalid'],
  [429, 'TooManyRequests'],
  [500, 'InternalError'],
  [503, 'ServiceUnavailable'],
  [504, 'ServerTimeout'],
]);

/** The reason HTTP code `code` implies without a Status body, or `''` when it implies none. */
export function reasonForHttpCode(code: number): StatusReason | '' {
  return REASON_OF_CODE.get(code) ?? '';
}
