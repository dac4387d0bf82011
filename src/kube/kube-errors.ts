import { isInternalError, isServerTimeout, isServiceUnavailable, isTooManyRequests } from '../apimachinery/index.js';

/**
 * The errors of `src/kube/` that are not an API Status: the request got no answer, the answer was
 * not understood, the kubeconfig is unusable, or the leadership term ended. Each carries one of
 * these stable codes in `code`; tests and callers switch on the code, never on the message. A
 * non-2xx answer is an `ApiError` (src/apimachinery), classified by its Status reason and code.
 */
export const KubeErrorCode = Object.freeze({
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
