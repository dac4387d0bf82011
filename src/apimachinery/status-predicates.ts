import { ApiError } from './api-error.js';
import type { Status } from './status.js';
import { isKnownStatusReason, type StatusReason } from './status-reason.js';

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
function hasReasonOrCode(err: unknown, reason: StatusReason, code: number | undefined): boolean {
  const status = statusOf(err);
  if (status === undefined) return false;
  const actual = status.reason ?? '';
  if (actual === reason) return true;
  return code !== undefined && !isKnownStatusReason(actual) && status.code === code;
}

/** The object does not exist (404 / `NotFound`). */
export const isNotFound = (err: unknown): boolean => hasReasonOrCode(err, 'NotFound', 404);
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
export const isConflict = (err: unknown): boolean => hasReasonOrCode(err, 'Conflict', 409);
/** A create hit an existing name (`AlreadyExists`; a bare 409 counts as Conflict, not this). */
export const isAlreadyExists = (err: unknown): boolean => hasReasonOrCode(err, 'AlreadyExists', undefined);
/** The requested resourceVersion is gone (410 / `Gone`). */
export const isGone = (err: unknown): boolean => hasReasonOrCode(err, 'Gone', 410);
/** The requested resourceVersion expired (`Expired`, sent in watch streams with code 410). */
export const isExpired = (err: unknown): boolean => hasReasonOrCode(err, 'Expired', undefined);
/** Either {@link isGone} or {@link isExpired}: the reflector must relist. */
export const isResourceExpired = (err: unknown): boolean => isGone(err) || isExpired(err) || statusOf(err)?.code === 410;
/** The object failed validation (422 / `Invalid`). */
export const isInvalid = (err: unknown): boolean => hasReasonOrCode(err, 'Invalid', 422);
/** The server throttled the client (429 / `TooManyRequests`). */
export const isTooManyRequests = (err: unknown): boolean => hasReasonOrCode(err, 'TooManyRequests', 429);
/** The request was malformed (400 / `BadRequest`). */
export const isBadRequest = (err: unknown): boolean => hasReasonOrCode(err, 'BadRequest', 400);
/** The client is not authenticated (401 / `Unauthorized`). */
export const isUnauthorized = (err: unknown): boolean => hasReasonOrCode(err, 'Unauthorized', 401);
/** The client may not do this (403 / `Forbidden`). */
export const isForbidden = (err: unknown): boolean => hasReasonOrCode(err, 'Forbidden', 403);
/** The verb is not supported on the resource (405 / `MethodNotAllowed`). */
export const isMethodNotSupported = (err: unknown): boolean => hasReasonOrCode(err, 'MethodNotAllowed', 405);
/** The server timed out processing the request (504 / `ServerTimeout`, or `Timeout`). */
export const isServerTimeout = (err: unknown): boolean => hasReasonOrCode(err, 'ServerTimeout', 504) || hasReasonOrCode(err, 'Timeout', undefined);
/** The server failed internally (500 / `InternalError`). */
export const isInternalError = (err: unknown): boolean => hasReasonOrCode(err, 'InternalError', 500);
/** The server is unavailable (503 / `ServiceUnavailable`). */
export const isServiceUnavailable = (err: unknown): boolean => hasReasonOrCode(err, 'ServiceUnavailable', 503);
