import { failureStatus, type Status, type StatusDetails, type StatusObject } from './status.js';
import { reasonForHttpCode, STATUS_REASON_CODES, type StatusReason } from './status-reason.js';

/** The request a Status answered, for errors the REST client received. */
export interface FailedRequest {
  /** HTTP verb (or `WATCH` for a watch stream's ERROR event). */
  verb: string;
  path: string;
}

/** A non-2xx answer as the REST client received it. */
export interface ReceivedStatus {
  /** HTTP code of the answer. */
  httpStatus: number;
  /** The Status of the body, or one built from the HTTP code when the body was not a Status. */
  status: Status;
  verb: string;
  path: string;
}

/**
 * A failure that is a Kubernetes Status (client-go's StatusError), on both sides of the wire:
 *
 * - the API-server core throws it to refuse a request (`new ApiError('NotFound', message)`) and
 *   answers it as {@link toStatus} with HTTP code {@link code};
 * - the REST client throws it for a non-2xx answer (`new ApiError({ httpStatus, status, verb, path })`),
 *   holding the Status the server sent and the request it answered; its message names the request.
 *
 * Classify one by `reason` and `code` (the predicates of status-predicates.ts), never by message.
 * A server built on the core answers only the ApiErrors it decided itself as they are; one the
 * REST client received ({@link request} set) describes another server's objects and is an
 * internal error there.
 */
export class ApiError extends Error {
  /** The Status: as the remote server sent it (with `code` always set), or as this process answers it. */
  readonly status: Status & { code: number };
  /** The request a remote server answered with this Status; undefined for a failure this process decided. */
  readonly request: FailedRequest | undefined;

  constructor(reason: StatusReason, message: string, details?: StatusDetails, options?: { cause?: unknown });
  constructor(received: ReceivedStatus);
  constructor(first: StatusReason | ReceivedStatus, message?: string, details?: StatusDetails, options?: { cause?: unknown }) {
    if (typeof first === 'string') {
      super(message, options);
      this.status = { kind: 'Status', status: 'Failure', message: message ?? '', reason: first, code: STATUS_REASON_CODES[first], ...(details !== undefined ? { details } : {}) };
      this.request = undefined;
    } else {
      super(`${first.verb} ${first.path}: ${first.status.message ?? `HTTP ${first.httpStatus}`}`);
      this.status = { ...first.status, code: first.status.code ?? first.httpStatus };
      this.request = { verb: first.verb, path: first.path };
    }
    this.name = 'ApiError';
  }

  /** The Status reason, or `''` when the server sent none. */
  get reason(): string {
    return this.status.reason ?? '';
  }

  /** The HTTP code of the Status. */
  get code(): number {
    return this.status.code;
  }

  /** The Status' details, as given (see {@link toStatus} for how they go out). */
  get details(): StatusDetails | undefined {
    return this.status.details;
  }

  /** The Failure Status a server answers for this error. */
  toStatus(): StatusObject {
    return failureStatus(this.code, this.reason || reasonForHttpCode(this.code), this.status.message ?? this.message, this.details);
  }
}
