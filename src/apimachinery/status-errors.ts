import { ApiError } from './api-error.js';
import type { StatusCause, StatusDetails } from './status.js';

/*
 * The failures the API-server core answers, each as the real server words it (k8s.io/apimachinery
 * errors.NewNotFound, NewAlreadyExists, …): clients and conformance tests compare these messages
 * with the real server's, so they follow its text.
 */

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
