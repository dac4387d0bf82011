import type { Status } from './kube-object.js';

/**
 * The error catalogue of `src/kube/`. Every error thrown by this folder carries one of these
 * stable codes in `code`; tests and callers switch on the code, never on the message.
 */
export const KubeErrorCode = Object.freeze({
  /** The API server answered with a non-2xx status; `status` holds its Kubernetes Status. */
  apiStatus: 'KUBE_API_STATUS',
  /** The request never got an HTTP answer (connection refused, reset, TLS, DNS, timeout). */
  transport: 'KUBE_TRANSPORT',
  /** The server answered 2xx but the body was not the JSON the caller asked for. */
  badResponse: 'KUBE_BAD_RESPONSE',
  /** A kubeconfig could not be loaded or has no usable cluster. */
  config: 'KUBE_CONFIG',
  /** A write of leader-gated work was refused: its leadership term had ended (see {@link LeadershipEndedError}). */
  leadershipEnded: 'KUBE_LEADERSHIP_ENDED',
} as const);

/** One of the {@link KubeErrorCode} values. */
export type KubeErrorCodeValue = (typeof KubeErrorCode)[keyof typeof KubeErrorCode];

/** The Status reasons Kubernetes defines (metav1.StatusReason); anything else is "unknown". */
export const StatusReason = Object.freeze({
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  notFound: 'NotFound',
  alreadyExists: 'AlreadyExists',
  conflict: 'Conflict',
  gone: 'Gone',
  invalid: 'Invalid',
  serverTimeout: 'ServerTimeout',
  timeout: 'Timeout',
  tooManyRequests: 'TooManyRequests',
  badRequest: 'BadRequest',
  methodNotAllowed: 'MethodNotAllowed',
  notAcceptable: 'NotAcceptable',
  requestEntityTooLarge: 'RequestEntityTooLarge',
  unsupportedMediaType: 'UnsupportedMediaType',
  internalError: 'InternalError',
  expired: 'Expired',
  serviceUnavailable: 'ServiceUnavailable',
} as const);

const KNOWN_REASONS: ReadonlySet<string> = new Set(Object.values(StatusReason));

/**
 * A non-2xx answer from the API server. `status` is the Kubernetes Status the server sent, or
 * one synthesised from the HTTP code when the body was not a Status; classify it with the
 * predicates below (`isNotFound(err)` …), which look at reason and code, never the message.
 */
export class ApiError extends Error {
  /** Always {@link KubeErrorCode.apiStatus}. */
  readonly code = KubeErrorCode.apiStatus;
  /** HTTP status code of the response. */
  readonly httpStatus: number;
  /** The Status from the response body (normalised so that `code` is always set). */
  readonly status: Status;
  /** HTTP verb and path of the failed request, for logs. */
  readonly request: { verb: string; path: string };

  constructor(init: { httpStatus: number; status: Status; verb: string; path: string }) {
    super(`${init.verb} ${init.path}: ${init.status.message ?? `HTTP ${init.httpStatus}`}`);
    this.name = 'ApiError';
    this.httpStatus = init.httpStatus;
    this.status = { ...init.status, code: init.status.code ?? init.httpStatus };
    this.request = { verb: init.verb, path: init.path };
  }

  /** The Status reason, or `''` when the server sent none. */
  get reason(): string {
    return this.status.reason ?? '';
  }
}

/** The request did not get an HTTP answer. `cause` holds the underlying Node error. */
export class TransportError extends Error {
  /** Always {@link KubeErrorCode.transport}. */
  readonly code = KubeErrorCode.transport;
  /** The Node error code of the cause when it had one (`ECONNREFUSED`, `ECONNRESET`, …), else `''`. */
  readonly syscallCode: string;

  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'TransportError';
    const code = (cause as { code?: unknown } | undefined)?.code;
    this.syscallCode = typeof code === 'string' ? code : '';
  }
}

/** A 2xx answer whose body could not be understood (not JSON, or not the expected shape). */
export class BadResponseError extends Error {
  /** Always {@link KubeErrorCode.badResponse}. */
  readonly code = KubeErrorCode.badResponse;

  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'BadResponseError';
  }
}

/** A kubeconfig could not be loaded or used. */
export class KubeConfigError extends Error {
  /** Always {@link KubeErrorCode.config}. */
  readonly code = KubeErrorCode.config;

  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'KubeConfigError';
  }
}

/**
 * A write refused (or aborted in flight) because the leadership term of the work making it ended:
 * the Lease was not renewed within the renew deadline, another replica holds it, or vcsync is
 * stopping. Not a failure to report: the Lease holder writes instead.
 */
export class LeadershipEndedError extends Error {
  /** Always {@link KubeErrorCode.leadershipEnded}. */
  readonly code = KubeErrorCode.leadershipEnded;

  constructor(message = 'write refused: this replica no longer holds the Lease (not renewed within the renew deadline, taken by another replica, or stopping); the Lease holder syncs instead') {
    super(message);
    this.name = 'LeadershipEndedError';
  }
}

/** Builds the Status an HTTP code implies when the server sent no Status body. */
export function statusFromHttpCode(httpStatus: number, message: string): Status {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason: reasonForCode(httpStatus), code: httpStatus };
}

function reasonForCode(code: number): string {
  switch (code) {
    case 400: return StatusReason.badRequest;
    case 401: return StatusReason.unauthorized;
    case 403: return StatusReason.forbidden;
    case 404: return StatusReason.notFound;
    case 405: return StatusReason.methodNotAllowed;
    case 406: return StatusReason.notAcceptable;
    case 409: return StatusReason.conflict;
    case 410: return StatusReason.gone;
    case 413: return StatusReason.requestEntityTooLarge;
    case 415: return StatusReason.unsupportedMediaType;
    case 422: return StatusReason.invalid;
    case 429: return StatusReason.tooManyRequests;
    case 500: return StatusReason.internalError;
    case 503: return StatusReason.serviceUnavailable;
    case 504: return StatusReason.serverTimeout;
    default: return '';
  }
}

/** The Status carried by `err` when it is an {@link ApiError} (or a Status itself), else undefined. */
export function statusOf(err: unknown): Status | undefined {
  if (err instanceof ApiError) return err.status;
  if (typeof err === 'object' && err !== null && (err as Status).kind === 'Status') return err as Status;
  return undefined;
}

/**
 * True when `err` has Status reason `reason`, or has no known reason and HTTP code `code` — the
 * same rule client-go applies, so an unknown reason falls back to the code, and a known reason
 * with an unexpected code still counts.
 */
function hasReasonOrCode(err: unknown, reason: string, code: number | undefined): boolean {
  const status = statusOf(err);
  if (status === undefined) return false;
  const actual = status.reason ?? '';
  if (actual === reason) return true;
  return code !== undefined && !KNOWN_REASONS.has(actual) && status.code === code;
}

/** The object does not exist (404 / `NotFound`). */
export const isNotFound = (err: unknown): boolean => hasReasonOrCode(err, StatusReason.notFound, 404);
/**
 * A write into a namespace that does not exist: `NotFound` whose details name the core resource
 * `namespaces` (the API server answers a create in a missing namespace this way; a missing object
 * names its own resource instead).
 */
export function isNamespaceNotFound(err: unknown): boolean {
  const details = statusOf(err)?.details;
  return isNotFound(err) && details?.kind === 'namespaces' && (details.group ?? '') === '';
}
/** Optimistic concurrency failed: resourceVersion mismatch (409 / `Conflict`). */
export const isConflict = (err: unknown): boolean => hasReasonOrCode(err, StatusReason.conflict, 409);
/** A create hit an existing name (`AlreadyExists`; a bare 409 counts as Conflict, not this). */
export const isAlreadyExists = (err: unknown): boolean => hasReasonOrCode(err, StatusReason.alreadyExists, undefined);
/** The requested resourceVersion is gone (410 / `Gone`). */
export const isGone = (err: unknown): boolean => hasReasonOrCode(err, StatusReason.gone, 410);
/** The requested resourceVersion expired (`Expired`, sent in watch streams with code 410). */
export const isExpired = (err: unknown): boolean => hasReasonOrCode(err, StatusReason.expired, undefined);
/** Either {@link isGone} or {@link isExpired}: the reflector must relist. */
export const isResourceExpired = (err: unknown): boolean => isGone(err) || isExpired(err) || statusOf(err)?.code === 410;
/** The object failed validation (422 / `Invalid`). */
export const isInvalid = (err: unknown): boolean => hasReasonOrCode(err, StatusReason.invalid, 422);
/** The server throttled the client (429 / `TooManyRequests`). */
export const isTooManyRequests = (err: unknown): boolean => hasReasonOrCode(err, StatusReason.tooManyRequests, 429);
/** The request was malformed (400 / `BadRequest`). */
export const isBadRequest = (err: unknown): boolean => hasReasonOrCode(err, StatusReason.badRequest, 400);
/** The client is not authenticated (401 / `Unauthorized`). */
export const isUnauthorized = (err: unknown): boolean => hasReasonOrCode(err, StatusReason.unauthorized, 401);
/** The client may not do this (403 / `Forbidden`). */
export const isForbidden = (err: unknown): boolean => hasReasonOrCode(err, StatusReason.forbidden, 403);
/** The verb is not supported on the resource (405 / `MethodNotAllowed`). */
export const isMethodNotSupported = (err: unknown): boolean => hasReasonOrCode(err, StatusReason.methodNotAllowed, 405);
/** The server timed out processing the request (504 / `ServerTimeout`, or `Timeout`). */
export const isServerTimeout = (err: unknown): boolean =>
  hasReasonOrCode(err, StatusReason.serverTimeout, 504) || hasReasonOrCode(err, StatusReason.timeout, undefined);
/** The server failed internally (500 / `InternalError`). */
export const isInternalError = (err: unknown): boolean => hasReasonOrCode(err, StatusReason.internalError, 500);
/** The server is unavailable (503 / `ServiceUnavailable`). */
export const isServiceUnavailable = (err: unknown): boolean => hasReasonOrCode(err, StatusReason.serviceUnavailable, 503);
/** The request never got an answer: see {@link TransportError}. */
export const isTransportError = (err: unknown): boolean => err instanceof TransportError;

/**
 * True when the same request may succeed later without any change by the caller: throttling,
 * server timeouts, internal errors, unavailability, or a transport failure.
 */
export function isRetryable(err: unknown): boolean {
  return (
    isTransportError(err) ||
    isTooManyRequests(err) ||
    isServerTimeout(err) ||
    isInternalError(err) ||
    isServiceUnavailable(err)
  );
}
