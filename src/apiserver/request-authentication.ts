import type { IncomingMessage } from 'node:http';
import { TLSSocket } from 'node:tls';
import { ApiError } from '../apimachinery/index.js';

/** The client certificate of a request as the authenticator sees it. */
export interface PresentedCertificate {
  /** Whether the certificate chains to the server's client CA. */
  authorized: boolean;
  commonName?: string;
  organizations?: readonly string[];
}

/** The user a request authenticated as. */
export interface AuthenticatedUser {
  username: string;
  groups: string[];
  /** Further facts about the user an authorizer reads (Kubernetes' UserInfo.Extra). Default: none. */
  extra?: Readonly<Record<string, readonly string[]>>;
}

/**
 * What the HTTP layer asks of an authenticator (implemented by `security/authenticator.ts`). A
 * failure's `reason` is for logs; its `message`, when given, is the 401 Status message the client
 * reads (it must not echo the credential), else the message is `Unauthorized`.
 */
export interface RequestAuthenticator {
  authenticate(input: {
    authorization: string | undefined;
    clientCertificate: PresentedCertificate | undefined;
  }): Promise<{ ok: true; user: AuthenticatedUser } | { ok: false; reason: string; message?: string }>;
}

/** Paths answered without authentication, like the real server's public health endpoints. */
export const UNAUTHENTICATED_PATHS: readonly string[] = ['/healthz', '/readyz', '/livez'];

function asList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * The certificate each TLS connection presented, read on its first request: a connection's peer
 * certificate and whether it verified are settled by its handshake (the servers never
 * renegotiate), and `getPeerCertificate` builds a new object from the DER on every call (a few
 * per cent of a server's CPU when keep-alive connections send many requests). `null`: none.
 */
const certificatesBySocket = new WeakMap<TLSSocket, Readonly<PresentedCertificate> | null>();

function readPresentedCertificate(socket: TLSSocket): Readonly<PresentedCertificate> | null {
  const certificate = socket.getPeerCertificate();
  if (certificate === null || Object.keys(certificate).length === 0) return null;
  const subject = certificate.subject as unknown as Record<string, string | string[] | undefined> | undefined;
  const commonName = asList(subject?.['CN'])[0];
  const organizations = Object.freeze(asList(subject?.['O']));
  return Object.freeze({ authorized: socket.authorized, ...(commonName !== undefined ? { commonName } : {}), organizations });
}

/**
 * The client certificate presented on the request's TLS connection, if any; read once per
 * connection (see {@link certificatesBySocket}), the same frozen object for its later requests.
 */
export function presentedCertificate(request: IncomingMessage): PresentedCertificate | undefined {
  const socket = request.socket;
  if (!(socket instanceof TLSSocket)) return undefined;
  let presented = certificatesBySocket.get(socket);
  if (presented === undefined) {
    // A request is read only once its connection's handshake is done.
    presented = readPresentedCertificate(socket);
    certificatesBySocket.set(socket, presented);
  }
  return presented ?? undefined;
}

/**
 * Authenticates one request (bearer token or client certificate); throws a 401 {@link ApiError}
 * when it fails. Returns the user for logging.
 */
export async function authenticateRequest(authenticator: RequestAuthenticator, request: IncomingMessage): Promise<AuthenticatedUser> {
  const result = await authenticator.authenticate({ authorization: request.headers.authorization, clientCertificate: presentedCertificate(request) });
  if (!result.ok) throw new ApiError('Unauthorized', result.message ?? 'Unauthorized', undefined, { cause: result.reason });
  return result.user;
}
