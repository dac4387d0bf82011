import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { LRUCache } from 'lru-cache';
import { silentLogger, type Logger } from '../../observe/logger.js';

// Required, not imported: an ESM import of node:http builds its facade by reading every export,
// and the lazy WebSocket export then loads undici (~100 ms of start CPU without a snapshot).
const require = createRequire(import.meta.url);
const { request: httpRequest } = require('node:http') as typeof import('node:http');
const { request: httpsRequest } = require('node:https') as typeof import('node:https');

/** Options of {@link createAuthenticator}. */
export interface AuthenticatorOptions {
  /** Bearer tokens accepted as {@link STATIC_TOKEN_USER}. Default: none. */
  tokens?: readonly string[];
  /**
   * URL of an `authentication.k8s.io/v1` TokenReview webhook, asked about bearer tokens that are
   * not in `tokens`. Default: none (such tokens are rejected).
   */
  tokenReviewUrl?: string;
  /**
   * PEM of the CA that signed an https webhook's serving certificate (e.g. the management API's).
   * Default: the system's trusted CAs.
   */
  tokenReviewCaPem?: string;
  /** How long to wait for the webhook, in milliseconds. Default 10_000. */
  tokenReviewTimeoutMs?: number;
  /**
   * How long the webhook's answers (authenticated or not) are cached per token, in milliseconds.
   * Webhook failures are never cached. Default 120_000 (as the kube-apiserver's webhook cache).
   */
  cacheTtlMs?: number;
  /** Where webhook failures are reported (never with the token). Default: silent. */
  logger?: Logger;
}

/** {@link AuthenticatorOptions} with every default applied. */
export interface ResolvedAuthenticatorOptions {
  readonly tokens: readonly string[];
  readonly tokenReviewUrl: string | undefined;
  readonly tokenReviewCaPem: string | undefined;
  readonly tokenReviewTimeoutMs: number;
  readonly cacheTtlMs: number;
  readonly logger: Logger;
}

/** An authenticated identity, as Kubernetes authorizers see it. */
export interface AuthenticatedUser {
  username: string;
  groups: string[];
  /** Further facts about the user (Kubernetes' UserInfo.Extra), as a TokenReview webhook answered them. Default: none. */
  extra?: Readonly<Record<string, readonly string[]>>;
}

/** The `extra` of a TokenReview's `status.user`: its string-list entries, or undefined when there are none. */
export function reviewedExtra(value: unknown): Record<string, string[]> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value).flatMap(([key, values]): Array<[string, string[]]> =>
    Array.isArray(values) ? [[key, values.filter((item): item is string => typeof item === 'string')]] : [],
  );
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** The outcome of {@link Authenticator.authenticate}; failures are data, never exceptions. */
export type AuthenticationResult = { ok: true; user: AuthenticatedUser } | { ok: false; reason: string };

/** The credentials of one request, as the HTTP layer extracted them. */
export interface AuthenticationInput {
  /** The raw `Authorization` header, if any. */
  authorization: string | undefined;
  /** The TLS client certificate, if one was presented; `authorized` when it chains to our CA. */
  clientCertificate: { authorized: boolean; commonName?: string; organizations?: readonly string[] } | undefined;
}

/** Decides who a request comes from. */
export interface Authenticator {
  /**
   * In order: a verified client certificate (user = CN, groups = O); a bearer token from the
   * static list (compared in constant time); a bearer token the TokenReview webhook accepts.
   * Never rejects: webhook failures and missing credentials are `{ ok: false, reason }`.
   */
  authenticate(input: AuthenticationInput): Promise<AuthenticationResult>;
}

/** The user a static bearer token authenticates as: the server's superuser. */
export const STATIC_TOKEN_USER: Readonly<AuthenticatedUser> = Object.freeze({
  username: 'admin',
  groups: ['system:masters'],
});

/** Validates `options` and returns a new frozen object with every default filled in. */
export function withDefaults(options: AuthenticatorOptions): ResolvedAuthenticatorOptions {
  const tokenReviewTimeoutMs = options.tokenReviewTimeoutMs ?? 10_000;
  const cacheTtlMs = options.cacheTtlMs ?? 120_000;
  if (!(tokenReviewTimeoutMs > 0)) {
    throw new RangeError(`tokenReviewTimeoutMs must be positive, got ${tokenReviewTimeoutMs}`);
  }
  if (!(cacheTtlMs >= 0)) {
    throw new RangeError(`cacheTtlMs must not be negative, got ${cacheTtlMs}`);
  }
  if (options.tokenReviewUrl !== undefined) {
    const url = new URL(options.tokenReviewUrl); // throws a TypeError naming the bad URL
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new RangeError(`tokenReviewUrl must be http or https, got ${options.tokenReviewUrl}`);
    }
  }
  for (const token of options.tokens ?? []) {
    if (token === '') {
      throw new RangeError('static tokens must not be empty');
    }
  }
  return Object.freeze({
    tokens: Object.freeze([...(options.tokens ?? [])]),
    tokenReviewUrl: options.tokenReviewUrl,
    tokenReviewCaPem: options.tokenReviewCaPem,
    tokenReviewTimeoutMs,
    cacheTtlMs,
    logger: options.logger ?? silentLogger(),
  });
}

/** Creates an authenticator; does no I/O until a token needs the webhook. */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  return new ChainAuthenticator(withDefaults(options));
}

class ChainAuthenticator implements Authenticator {
  readonly #options: ResolvedAuthenticatorOptions;
  /** SHA-256 digests of the static tokens: equal length, so comparable in constant time. */
  readonly #tokenDigests: Buffer[];
  /** Webhook answers by token digest (the token itself is not kept). */
  readonly #cache: LRUCache<string, AuthenticationResult> | undefined;
  /** Webhook calls in flight by token digest, so concurrent requests share one call. */
  readonly #inFlight = new Map<string, Promise<AuthenticationResult>>();

  constructor(options: ResolvedAuthenticatorOptions) {
    this.#options = options;
    this.#tokenDigests = options.tokens.map((token) => digest(token));
    this.#cache =
      options.cacheTtlMs > 0 ? new LRUCache({ max: 10_000, ttl: options.cacheTtlMs, ttlAutopurge: false }) : undefined;
  }

  async authenticate(input: AuthenticationInput): Promise<AuthenticationResult> {
    const certificate = input.clientCertificate;
    if (certificate?.authorized === true && certificate.commonName !== undefined && certificate.commonName !== '') {
      return { ok: true, user: { username: certificate.commonName, groups: [...(certificate.organizations ?? [])] } };
    }
    if (input.authorization === undefined || input.authorization.trim() === '') {
      if (certificate?.authorized === true) {
        return { ok: false, reason: 'client certificate has no common name' };
      }
      return { ok: false, reason: certificate === undefined ? 'no credentials' : 'client certificate not trusted' };
    }
    const token = bearerToken(input.authorization);
    if (token === undefined) {
      return { ok: false, reason: 'unsupported Authorization header: expected "Bearer <token>"' };
    }
    const tokenDigest = digest(token);
    if (this.#isStaticToken(tokenDigest)) {
      return { ok: true, user: { username: STATIC_TOKEN_USER.username, groups: [...STATIC_TOKEN_USER.groups] } };
    }
    if (this.#options.tokenReviewUrl === undefined) {
      return { ok: false, reason: 'invalid bearer token' };
    }
    return this.#review(token, tokenDigest.toString('hex'), this.#options.tokenReviewUrl);
  }

  #isStaticToken(tokenDigest: Buffer): boolean {
    let found = false;
    for (const candidate of this.#tokenDigests) {
      // No early exit: the time taken does not depend on which token matched.
      found = timingSafeEqual(candidate, tokenDigest) || found;
    }
    return found;
  }

  async #review(token: string, key: string, url: string): Promise<AuthenticationResult> {
    const cached = this.#cache?.get(key);
    if (cached !== undefined) {
      return cached;
    }
    let call = this.#inFlight.get(key);
    if (call === undefined) {
      call = this.#callWebhook(token, url).then(({ result, cacheable }) => {
        if (cacheable) {
          this.#cache?.set(key, result);
        }
        return result;
      });
      this.#inFlight.set(key, call);
      const started = call;
      // Remove the entry once settled; #callWebhook never rejects, so this chain cannot either.
      started.finally(() => this.#inFlight.delete(key)).catch(() => undefined);
    }
    return call;
  }

  /** Never rejects; `cacheable` is false for failures to get an answer. */
  async #callWebhook(token: string, url: string): Promise<{ result: AuthenticationResult; cacheable: boolean }> {
    const timeoutMs = this.#options.tokenReviewTimeoutMs;
    let body: unknown;
    try {
      const response = await postJson(url, JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } }), {
        caPem: this.#options.tokenReviewCaPem,
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.status < 200 || response.status > 299) {
        this.#options.logger.warn({ url, status: response.status }, 'Token review webhook answered with an error status');
        return { result: { ok: false, reason: `token review webhook answered HTTP ${response.status}` }, cacheable: false };
      }
      body = JSON.parse(response.text);
    } catch (error: unknown) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      const reason = timedOut
        ? `token review webhook did not answer within ${timeoutMs} ms`
        : `token review webhook failed: ${error instanceof Error ? error.message : String(error)}`;
      this.#options.logger.warn({ err: error, url }, 'Token review webhook call failed');
      return { result: { ok: false, reason }, cacheable: false };
    }
    const status = (body as { status?: unknown } | null)?.status as
      | { authenticated?: unknown; user?: { username?: unknown; groups?: unknown; extra?: unknown }; error?: unknown }
      | undefined;
    if (status?.authenticated === true) {
      const username = status.user?.username;
      if (typeof username !== 'string' || username === '') {
        return { result: { ok: false, reason: 'token review webhook accepted the token but named no user' }, cacheable: false };
      }
      const groups = Array.isArray(status.user?.groups)
        ? status.user.groups.filter((group): group is string => typeof group === 'string')
        : [];
      const extra = reviewedExtra(status.user?.extra);
      return { result: { ok: true, user: { username, groups, ...(extra !== undefined ? { extra } : {}) } }, cacheable: true };
    }
    const detail = typeof status?.error === 'string' && status.error !== '' ? `: ${status.error}` : '';
    return { result: { ok: false, reason: `token rejected by token review webhook${detail}` }, cacheable: true };
  }
}

/** POSTs a JSON `body` to `url` (http, or https trusting `caPem` when given); rejects on network errors and on `signal`. */
function postJson(url: string, body: string, options: { caPem: string | undefined; signal: AbortSignal }): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json', 'content-length': Buffer.byteLength(body) };
    const onResponse = (response: IncomingMessage): void => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    };
    const request = url.startsWith('https:')
      ? httpsRequest(url, { method: 'POST', headers, signal: options.signal, ...(options.caPem !== undefined ? { ca: options.caPem } : {}) }, onResponse)
      : httpRequest(url, { method: 'POST', headers, signal: options.signal }, onResponse);
    request.on('error', reject);
    request.end(body);
  });
}

function bearerToken(authorization: string): string | undefined {
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
