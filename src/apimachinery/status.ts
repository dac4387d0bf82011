import { reasonForHttpCode } from './status-reason.js';

/**
 * The Kubernetes meta/v1 `Status`: how an API server reports a failure (and some successes), as
 * the REST client receives it and as the API-server core sends it.
 */

/** One field-level cause of a failure (an `Invalid` object lists one per field). */
export interface StatusCause {
  /** Machine-readable cause, e.g. `FieldValueInvalid`, `FieldValueRequired`. */
  reason: string;
  message: string;
  /** The field path, e.g. `metadata.name`; absent when the cause is about the whole object. */
  field?: string;
}

/** The `details` of a Status: what object the failure is about, and why. */
export interface StatusDetails {
  name?: string;
  group?: string;
  /** The kind, or the resource's plural for the errors about an object of a resource. */
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  /** When the client may retry (TooManyRequests, a generated-name conflict). */
  retryAfterSeconds?: number;
}

/**
 * A Status as received: every field optional, since a server (or a proxy in front of it) may send
 * any subset. The REST client fills in `code` from the HTTP answer when the body has none.
 */
export interface Status {
  kind?: 'Status';
  apiVersion?: string;
  status?: 'Success' | 'Failure' | string;
  message?: string;
  /** Machine-readable reason, e.g. `NotFound`, `Conflict`, `Expired` (see STATUS_REASON_CODES). */
  reason?: string;
  details?: StatusDetails;
  /** The HTTP status code the failure corresponds to. */
  code?: number;
}

/** A Failure Status as the API-server core sends it: the fields the real server always sets. */
export interface StatusObject extends Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure' | 'Success';
  code: number;
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

/** The Status an HTTP code implies when the answer carried no Status body (a proxy's plain-text error). */
export function statusFromHttpCode(httpStatus: number, message: string): Status {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason: reasonForHttpCode(httpStatus), code: httpStatus };
}
