/**
 * The API-server core's error catalogue. Every failure a server built on the core answers is a Kubernetes `Status`
 * built from an {@link ApiError}; clients classify them by `reason` and `code`, never by message,
 * so each reason below maps to exactly one HTTP code (Conflict and AlreadyExists share 409, as in
 * Kubernetes).
 */

/** The Status reasons the core answers, with their HTTP codes. */
export const STATUS_REASON_CODES = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  Conflict: 409,
  Gone: 410,
  Expired: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  TooManyRequests: 429,
  InternalError: 500,
  ServiceUnavailable: 503,
  Timeout: 504,
} as const;

/** A Status reason the core may answer. */
export type StatusReason = keyof typeof STATUS_REASON_CODES;

/** One field-level cause of an `Invalid` (or other) failure. */
export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

/** The `details` of a Status: what object the failure is about. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** A Kubernetes meta/v1 Status object as sent on the wire. */
export interface StatusObject {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A failure that the HTTP layer answers as a Status with `code` and `reason`. */
export class ApiError extends Error {
  readonly reason: StatusReason;
  readonly code: number;
  readonly details: StatusDetails | undefined;

  constructor(reason: StatusReason, message: string, details?: StatusDetails, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ApiError';
    this.reason = reason;
    this.code = STATUS_REASON_CODES[reason];
    this.details = details;
  }

  /** The Status body for this failure. */
  toStatus(): StatusObject {
    return failureStatus(this.code, this.reason, this.message, this.details);
  }
}

/**
 * `details` as the real server sends them: every field is `omitempty` there, so an empty name or
 * group (a core resource, an object without a name yet), no causes and a zero retry delay are left
 * out, while the `details` object itself stays (an empty `{}` when nothing is left).
 */
export function wireDetails(details: StatusDetails): StatusDetails {
  const wire: StatusDetails = {};
  if (details.name !== undefined && details.name !== '') wire.name = details.name;
  if (details.group !== undefined && details.group !== '') wire.group = details.group;
  if (details.kind !== undefined && details.kind !== '') wire.kind = details.kind;
  if (details.uid !== undefined && details.uid !== '') wire.uid = details.uid;
  if (details.causes !== undefined && details.causes.length > 0) wire.causes = details.causes;
  if (details.retryAfterSeconds !== undefined && details.retryAfterSeconds !== 0) wire.retryAfterSeconds = details.retryAfterSeconds;
  return wire;
}

/** Builds a Failure Status; `details` go out as {@link wireDetails}. */
export function failureStatus(code: number, reason: string, message: string, details?: StatusDetails): StatusObject {
  const status: StatusObject = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
  if (details !== undefined) status.details = wireDetails(details);
  return status;
}

/** What an error is about: the resource's group, its plural (as Kubernetes names it in messages) and the object. */
export interface ErrorSubject {
  group: string;
  /** The resource's plural name, e.g. `endpoints` (Kubernetes' `qualifiedResource`). */
  resource: string;
  name: string;
}

function qualified(subject: ErrorSubject): string {
  return subject.group === '' ? subject.resource : `${subject.resource}.${subject.group}`;
}

function subjectDetails(subject: ErrorSubject): StatusDetails {
  return { name: subject.name, group: subject.group, kind: subject.resource };
}

/** 404: `endpoints "web" not found`. */
export function notFound(subject: ErrorSubject): ApiError {
  return new ApiError('NotFound', `${qualified(subject)} "${subject.name}" not found`, subjectDetails(subject));
}

/** 409 AlreadyExists: `endpoints "web" already exists`. */
export function alreadyExists(subject: ErrorSubject): ApiError {
  return new ApiError('AlreadyExists', `${qualified(subject)} "${subject.name}" already exists`, subjectDetails(subject));
}

/**
 * 409 AlreadyExists of a create whose names generated from `generateName` were all taken
 * (errors.NewGenerateNameConflict): the client may retry after a second.
 */
export function generatedNameConflict(subject: ErrorSubject): ApiError {
  return new ApiError('AlreadyExists', `${qualified(subject)} "${subject.name}" already exists, the server was not able to generate a unique name for the object`, {
    ...subjectDetails(subject),
    retryAfterSeconds: 1,
  });
}

/** 409 Conflict for a stale resourceVersion (or other precondition). */
export function conflict(subject: ErrorSubject, why = 'the object has been modified; please apply your changes to the latest version and try again'): ApiError {
  return new ApiError('Conflict', `Operation cannot be fulfilled on ${qualified(subject)} "${subject.name}": ${why}`, subjectDetails(subject));
}

/** 410 Expired: a watch or list resumed from a revision that is no longer retained. */
export function expired(message = 'too old resource version'): ApiError {
  return new ApiError('Expired', message);
}

/** 400 BadRequest. */
export function badRequest(message: string): ApiError {
  return new ApiError('BadRequest', message);
}

/** Causes as an Invalid message lists them: `field: message`, in brackets when there are several. */
function causeList(causes: readonly StatusCause[]): string {
  const summary = causes.map((cause) => (cause.field !== undefined ? `${cause.field}: ${cause.message}` : cause.message));
  return summary.length === 1 ? (summary[0] ?? '') : `[${summary.join(', ')}]`;
}

/** 422 Invalid: `Endpoints "web" is invalid: <cause>; <cause>` with one cause per field. */
export function invalid(kind: string, group: string, name: string, causes: readonly StatusCause[]): ApiError {
  return new ApiError('Invalid', `${kind} "${name}" is invalid: ${causeList(causes)}`, { name, group, kind, causes: [...causes] });
}

/**
 * 422 Invalid about a request's options (`CreateOptions`, `UpdateOptions`, …) rather than its
 * object: `CreateOptions.meta.k8s.io "" is invalid: <cause>`, details naming the options kind.
 */
export function invalidOptions(kind: string, causes: readonly StatusCause[]): ApiError {
  return new ApiError('Invalid', `${kind}.meta.k8s.io "" is invalid: ${causeList(causes)}`, { group: 'meta.k8s.io', kind, causes: [...causes] });
}

/** 415: the request body's media type is not one this verb accepts. */
export function unsupportedMediaType(contentType: string, accepted: readonly string[]): ApiError {
  return new ApiError(
    'UnsupportedMediaType',
    `the body of the request was in an unknown format (${contentType}) - accepted media types include: ${accepted.join(', ')}`,
  );
}

/** 403 Forbidden. */
export function forbidden(message: string, details?: StatusDetails): ApiError {
  return new ApiError('Forbidden', message, details);
}

/** 405 for a verb the resource does not support; like the real server's, with empty `details`. */
export function methodNotAllowed(method: string, what: string): ApiError {
  return new ApiError('MethodNotAllowed', `the server does not allow this method on the requested resource (${method} ${what})`, {});
}

/** The message of a 404 for a path the server does not serve (the real server's words). */
const NOT_SERVED_MESSAGE = 'the server could not find the requested resource';

/**
 * 404 for a path inside an API group the server serves (the core `/api`, or `/apis/<group>` it has)
 * that names no resource it serves: the real server answers a Status with empty `details`.
 */
export function resourceNotServed(): ApiError {
  return new ApiError('NotFound', NOT_SERVED_MESSAGE, {});
}

/**
 * 404 for a path outside every API group the server serves. The real server answers a text/plain
 * `404 page not found` there, which client-go turns into a NotFound Status with one
 * `UnexpectedServerResponse` cause; this is that Status, so a client sees the same either way.
 */
export function pathNotFound(path: string): ApiError {
  return new ApiError('NotFound', NOT_SERVED_MESSAGE, { causes: [{ reason: 'UnexpectedServerResponse', message: `404 page not found: ${path}` }] });
}
