import type { Agent, ClientRequest, IncomingMessage, OutgoingHttpHeaders, RequestOptions } from 'node:http';
import type { AgentOptions, RequestOptions as TlsRequestOptions } from 'node:https';
import { createRequire } from 'node:module';
import { Registry } from 'prom-client';
import { ApiError, type Status, statusFromHttpCode } from '../apimachinery/index.js';
import { BadResponseError, TransportError } from './kube-errors.js';
import { realClock, type Clock } from './clock.js';
import type { ClusterConfig } from './kube-config.js';
import type { KubeList, KubeObject } from './kube-object.js';
import { parseListText } from './list-text.js';
import { withoutManagedFieldsString } from './managed-fields-text.js';
import { KubeMetrics, type RestClientMetrics } from './metrics.js';
import { TokenBucket } from './token-bucket.js';
import { InFlightAborts } from './in-flight-aborts.js';
import { RequestDeadline } from './request-deadline.js';
import { ReusedBuffers } from './reused-buffers.js';
import { openWatchStream, type WatchStream } from './watch-stream.js';
import { silentLogger, type Logger } from '../observe/logger.js';

// Required, not imported: an ESM import of node:http builds its facade by reading every export,
// and the lazy WebSocket export then loads undici (~100 ms of start CPU without a snapshot).
const require = createRequire(import.meta.url);
const http = require('node:http') as typeof import('node:http');
const https = require('node:https') as typeof import('node:https');

/** Options of {@link RestClient}. */
export interface RestClientOptions {
  /** The cluster to talk to (see `loadClusterConfig`). Required. */
  cluster: ClusterConfig;
  /** Client-side rate limit in requests per second; `Infinity` disables it. Default 40 (vcluster's host QPS). */
  qps?: number;
  /** Requests allowed at once above the rate. Default 80 (vcluster's host burst). */
  burst?: number;
  /** Timeout of a non-watch request in ms, from sending to the full body. Default 30 000. */
  requestTimeoutMs?: number;
  /** `User-Agent` header. Default `vcsync`. */
  userAgent?: string;
  /** Time source for the rate limiter. Default the real clock. */
  clock?: Clock;
  /** Logger. Default silent. */
  logger?: Logger;
  /** Metrics sink. Default a private registry (nothing exported). */
  metrics?: KubeMetrics;
}

interface ResolvedOptions {
  readonly cluster: ClusterConfig;
  readonly qps: number;
  readonly burst: number;
  readonly requestTimeoutMs: number;
  readonly userAgent: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: KubeMetrics;
}

function withDefaults(options: RestClientOptions): ResolvedOptions {
  return Object.freeze({
    cluster: options.cluster,
    qps: options.qps ?? 40,
    burst: options.burst ?? 80,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    userAgent: options.userAgent ?? 'vcsync',
    clock: options.clock ?? realClock,
    logger: options.logger ?? silentLogger(),
    metrics: options.metrics ?? new KubeMetrics(new Registry()),
  });
}

/** Query parameters; undefined values are left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/** Per-call options every verb accepts. */
export interface CallOptions {
  /** Aborts the call (including its wait for the rate limiter); the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Extra query parameters, e.g. `{ dryRun: 'All' }`. */
  query?: Query;
}

/** Options of {@link RestClient.list}. */
export interface ListOptions extends CallOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size; the server returns a `continue` token when more remain. */
  limit?: number;
  /** The `continue` token of the previous page. */
  continue?: string;
  /** `0` = any version (served from cache on real servers); unset = most recent. */
  resourceVersion?: string;
  /**
   * Items without `metadata.managedFields`: every `managedFields` member is cut from the answer's
   * text before it is parsed (see `withoutManagedFieldsString`), for a cache that drops them anyway.
   * Only for kinds with no other field of that name. Default false.
   */
  withoutManagedFields?: boolean;
}

/** Options of {@link RestClient.watch}. */
export interface WatchOptions extends CallOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Start after this resourceVersion (opaque). Unset: synthetic ADDED events for current state first. */
  resourceVersion?: string;
  /** The server ends the watch cleanly after this many seconds. */
  timeoutSeconds?: number;
  /** Ask for BOOKMARK events. Default true. */
  allowWatchBookmarks?: boolean;
}

/** The three PATCH flavours Kubernetes accepts. */
export type PatchType = 'json' | 'merge' | 'strategic';

const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = Object.freeze({
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
});

interface RequestSpec {
  verb: string;
  method: string;
  path: string;
  query?: Query;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  /** Parses a 2xx answer's bytes (not empty). Default: decoded and parsed whole. */
  parseBody?: (body: Buffer) => unknown;
}

/** A list answer parsed item by item (see {@link parseListText}). */
const parseList = (body: Buffer): unknown => parseListText(body);

/** A list answer parsed item by item, every item's `managedFields` cut from its text first. */
const parseListWithoutManagedFields = (body: Buffer): unknown => parseListText(body, withoutManagedFieldsString);

/** What a request that got no (complete) answer rejects with: the caller's abort reason, or a TransportError. */
function transportFailure(spec: RequestSpec, err: unknown, deadline: RequestDeadline | undefined): unknown {
  if (spec.signal?.aborted === true) return spec.signal.reason;
  if (deadline?.timedOut() === true) return new TransportError(`${spec.verb} ${spec.path}: no answer within ${deadline.timeoutMs} ms`, err);
  const detail = err instanceof Error ? err.message : String(err);
  return new TransportError(`${spec.verb} ${spec.path}: ${detail}`, err);
}

/** How long auth headers and TLS material read from the kubeconfig are reused, in ms. */
const CREDENTIALS_REFRESH_MS = 60_000;

interface Credentials {
  /** The headers of every request: auth (bearer token, basic auth, …), Accept and User-Agent. */
  readonly headers: Readonly<OutgoingHttpHeaders>;
  /** TLS options for the connection agent (ca, cert, key, …). */
  readonly tls: TlsRequestOptions;
}

/**
 * A small JSON client for one cluster's API server: `get/list/create/update/patch/delete` on API
 * paths (see `collectionPath`/`objectPath`), plus `watch`. Results are parsed JSON typed by the
 * caller (no validation). Every call first waits on the client's token bucket (`qps`/`burst`),
 * can be aborted with a signal, and reuses keep-alive connections.
 *
 * Errors: a non-2xx answer rejects with {@link ApiError} carrying the server's Status; no answer
 * (refused, reset, TLS, timeout) with {@link TransportError}; an unreadable 2xx body with
 * {@link BadResponseError}; an aborted call with the signal's reason.
 */
export class RestClient {
  readonly #options: ResolvedOptions;
  readonly #limiter: TokenBucket;
  readonly #metrics: RestClientMetrics;
  readonly #target: ServerTarget;
  readonly #aborts = new InFlightAborts();
  readonly #bodyBuffers = new ReusedBuffers();
  #agent: Agent | undefined;
  #cachedCredentials: { value: Credentials; expiresAt: number } | undefined;

  constructor(options: RestClientOptions) {
    this.#options = withDefaults(options);
    this.#limiter = new TokenBucket({ qps: this.#options.qps, burst: this.#options.burst, clock: this.#options.clock });
    this.#metrics = this.#options.metrics.restClient(this.#options.cluster.name);
    this.#target = serverTarget(this.#options.cluster.server);
  }

  /** The cluster this client talks to. */
  get cluster(): ClusterConfig {
    return this.#options.cluster;
  }

  /** GET one object (or any JSON document) at `path`. */
  async get<T>(path: string, options: CallOptions = {}): Promise<T> {
    return this.#json<T>({ verb: 'GET', method: 'GET', path, ...options });
  }

  /** GET a collection: one page when `limit` is set, else the whole list. */
  async list<T extends KubeObject>(path: string, options: ListOptions = {}): Promise<KubeList<T>> {
    const query: Query = {
      ...options.query,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      limit: options.limit,
      continue: options.continue,
      resourceVersion: options.resourceVersion,
    };
    const list = await this.#json<KubeList<T>>({
      verb: 'LIST',
      method: 'GET',
      path,
      query,
      signal: options.signal,
      parseBody: options.withoutManagedFields === true ? parseListWithoutManagedFields : parseList,
    });
    if (!Array.isArray(list.items)) {
      if ((list as { items?: unknown }).items === null || (list as { items?: unknown }).items === undefined) {
        return { ...list, items: [] };
      }
      throw new BadResponseError(`LIST ${path}: response has no items array`);
    }
    return list;
  }

  /** POST `body` to the collection at `path`; resolves with the created object. */
  async create<T>(path: string, body: T, options: CallOptions = {}): Promise<T> {
    return this.#json<T>({ verb: 'POST', method: 'POST', path, body, ...options });
  }

  /** PUT `body` at the object's `path`; optimistic concurrency via `metadata.resourceVersion` (409 on mismatch). */
  async update<T>(path: string, body: T, options: CallOptions = {}): Promise<T> {
    return this.#json<T>({ verb: 'PUT', method: 'PUT', path, body, ...options });
  }

  /** PATCH the object at `path` with a JSON patch (array), merge patch or strategic merge patch. */
  async patch<T>(path: string, type: PatchType, patch: unknown, options: CallOptions = {}): Promise<T> {
    return this.#json<T>({ verb: 'PATCH', method: 'PATCH', path, body: patch, contentType: PATCH_CONTENT_TYPES[type], ...options });
  }

  /** DELETE the object at `path`; resolves with what the server returns (the object, or a Success Status). */
  async delete<T = KubeObject | Status>(path: string, options: CallOptions & { body?: object } = {}): Promise<T> {
    return this.#json<T>({ verb: 'DELETE', method: 'DELETE', path, ...options });
  }

  /**
   * Opens a watch on the collection at `path`. Resolves once the server accepted it (HTTP 200);
   * a refusal (e.g. 410 Gone for a too-old resourceVersion) rejects with {@link ApiError}. The
   * stream's iteration ends when the server ends the response; a broken connection makes it
   * throw {@link TransportError}, an unparsable line {@link BadResponseError}.
   */
  async watch<T extends KubeObject>(path: string, options: WatchOptions = {}): Promise<WatchStream<T>> {
    const query: Query = {
      ...options.query,
      watch: true,
      labelSelector: options.labelSelector,
      fieldSelector: options.fieldSelector,
      resourceVersion: options.resourceVersion,
      timeoutSeconds: options.timeoutSeconds,
      allowWatchBookmarks: options.allowWatchBookmarks ?? true,
    };
    const spec: RequestSpec = { verb: 'WATCH', method: 'GET', path, query, signal: options.signal };
    await this.#throttle(spec);
    const response = await this.#send(spec, undefined);
    return openWatchStream<T>(response, path);
  }

  /** Closes idle keep-alive connections. Calls made afterwards open new ones. */
  close(): void {
    this.#agent?.destroy();
    this.#agent = undefined;
  }

  async #json<T>(spec: RequestSpec): Promise<T> {
    await this.#throttle(spec);
    const deadline = new RequestDeadline(this.#options.requestTimeoutMs);
    const signal = spec.signal;
    let release: (() => void) | undefined;
    let chunks: Buffer[];
    try {
      const response = await this.#send(spec, deadline, signal === undefined ? undefined : (request) => (release = this.#aborts.track(signal, request)));
      chunks = await readChunks(response, spec, deadline);
    } finally {
      release?.();
    }
    const { body, joinedInto } = this.#joined(chunks);
    try {
      if (body.length === 0) return undefined as T;
      return (spec.parseBody === undefined ? JSON.parse(body.toString('utf8')) : spec.parseBody(body)) as T;
    } catch (err) {
      throw new BadResponseError(`${spec.verb} ${spec.path}: response is not JSON`, err);
    } finally {
      // Parsing copied what it kept out of the bytes (strings are V8's own): the buffer is free again.
      if (joinedInto !== undefined) this.#bodyBuffers.give(joinedInto);
    }
  }

  /** The answer's bytes in one buffer: its only chunk, or its chunks copied into a reused buffer (given back by the caller). */
  #joined(chunks: readonly Buffer[]): { body: Buffer; joinedInto?: Buffer } {
    if (chunks.length === 0) return { body: EMPTY };
    if (chunks.length === 1) return { body: chunks[0] as Buffer };
    let size = 0;
    for (const chunk of chunks) size += chunk.length;
    const buffer = this.#bodyBuffers.take(size);
    let offset = 0;
    for (const chunk of chunks) offset += chunk.copy(buffer, offset);
    return { body: buffer.subarray(0, size), joinedInto: buffer };
  }

  async #throttle(spec: RequestSpec): Promise<void> {
    const waitedMs = await this.#limiter.wait(spec.signal);
    this.#metrics.observeRateLimiterWait(waitedMs / 1000);
  }

  /**
   * Sends the request; resolves with a 2xx response whose body is not read yet, or rejects.
   * `deadline` (when given) limits the request's time (see {@link RequestDeadline}); the caller's
   * signal aborts it: through `attachAbort` when given (it ties the request to the signal, see
   * {@link InFlightAborts}, until the caller has read the body), else as `http.request`'s signal.
   */
  async #send(spec: RequestSpec, deadline: RequestDeadline | undefined, attachAbort?: (request: ClientRequest) => void): Promise<IncomingMessage> {
    const target = this.#target;
    const credentials = await this.#credentials();
    let headers = credentials.headers;
    let payload: string | undefined;
    if (spec.body !== undefined) {
      payload = JSON.stringify(spec.body);
      headers = { ...headers, 'Content-Type': spec.contentType ?? 'application/json', 'Content-Length': Buffer.byteLength(payload) };
    }
    const signal = spec.signal;
    signal?.throwIfAborted();
    const transport = target.protocol === 'https:' ? https : http;
    const agent = this.#agentFor(target.protocol, credentials.tls);
    const options: RequestOptions = { ...target.options, path: requestPath(target, spec.path + queryString(spec.query)), method: spec.method, headers, agent };
    if (attachAbort === undefined && signal !== undefined) options.signal = signal;

    let response: IncomingMessage;
    try {
      response = await new Promise<IncomingMessage>((resolve, reject) => {
        const request = transport.request(options, resolve);
        attachAbort?.(request);
        deadline?.arm(request);
        request.on('error', reject);
        request.end(payload);
      });
    } catch (err) {
      this.#metrics.request(spec.verb, 'error');
      if (!(spec.signal?.aborted ?? false)) {
        this.#options.logger.debug({ err, verb: spec.verb, path: spec.path }, 'Kubernetes API request failed without an answer');
      }
      throw transportFailure(spec, err, deadline);
    }
    const code = response.statusCode ?? 0;
    this.#metrics.request(spec.verb, code);
    if (code >= 200 && code < 300) return response;
    const text = await readBody(response, spec, deadline).catch(() => '');
    throw new ApiError({ httpStatus: code, status: parseStatus(text, code), verb: spec.verb, path: spec.path });
  }

  /**
   * The auth headers and TLS material of the kubeconfig, refreshed every
   * {@link CREDENTIALS_REFRESH_MS}: the cluster's `applyToHTTPSOptions` re-reads CA, certificate
   * and key files on every call (in-cluster: the CA and token files), which would put file I/O
   * on every request; once a minute still follows rotated service-account tokens, as client-go
   * re-reads them at most once a minute.
   */
  async #credentials(): Promise<Credentials> {
    const now = this.#options.clock.now();
    if (this.#cachedCredentials !== undefined && now < this.#cachedCredentials.expiresAt) return this.#cachedCredentials.value;
    const tls: TlsRequestOptions = { headers: {} };
    await this.#options.cluster.applyToHTTPSOptions(tls);
    const headers: OutgoingHttpHeaders = { ...(tls.headers as OutgoingHttpHeaders), Accept: 'application/json', 'User-Agent': this.#options.userAgent };
    if (tls.auth !== undefined && tls.auth !== null) headers['Authorization'] = `Basic ${Buffer.from(tls.auth).toString('base64')}`;
    const value = { headers, tls };
    this.#cachedCredentials = { value, expiresAt: now + CREDENTIALS_REFRESH_MS };
    return value;
  }

  #agentFor(protocol: string, tls: TlsRequestOptions): Agent {
    if (this.#agent !== undefined) return this.#agent;
    if (protocol === 'https:') {
      const agentOptions: AgentOptions = { keepAlive: true, ca: tls.ca, cert: tls.cert, key: tls.key, pfx: tls.pfx, passphrase: tls.passphrase };
      if (tls.rejectUnauthorized !== undefined) agentOptions.rejectUnauthorized = tls.rejectUnauthorized;
      if (tls.servername !== undefined) agentOptions.servername = tls.servername;
      this.#agent = new https.Agent(agentOptions);
    } else {
      this.#agent = new http.Agent({ keepAlive: true });
    }
    return this.#agent;
  }
}

/** The server URL parsed once per client (a URL parsed per request was ~3% of a bulk sync's CPU). */
interface ServerTarget {
  readonly protocol: string;
  /** The server's base URL, for the rare path that needs {@link requestPath}'s URL parsing. */
  readonly server: string;
  /** Its path (e.g. a proxy's prefix), `''` for none. */
  readonly pathPrefix: string;
  readonly options: Readonly<Pick<RequestOptions, 'protocol' | 'hostname' | 'port'>>;
}

function serverTarget(server: string): ServerTarget {
  const url = new URL(server);
  // URL keeps an IPv6 host in brackets; http.request wants it bare.
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return {
    protocol: url.protocol,
    server,
    pathPrefix: url.pathname === '/' ? '' : url.pathname,
    options: Object.freeze({ protocol: url.protocol, hostname, ...(url.port !== '' ? { port: url.port } : {}) }),
  };
}

/** Printable ASCII without `#` or `\` and without a `/.` dot segment: what URL parsing would leave as it is. */
const PLAIN_PATH = /^(?:[!-"$-[\]-~](?<!\/\.))*$/u;

/**
 * The request path of `path` (with its query) on `target`: as given when URL parsing would not
 * change it (the paths of `collectionPath`/`objectPath` always), else as URL parsing gives it
 * (percent-encoded, dot segments resolved), as a `new URL(server + path)` per request did.
 */
function requestPath(target: ServerTarget, path: string): string {
  const full = target.pathPrefix + path;
  if (PLAIN_PATH.test(full)) return full;
  const url = new URL(target.server + path);
  return url.pathname + url.search;
}

function queryString(query: Query | undefined): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

const EMPTY = Buffer.alloc(0);

/** The chunks of an answer's body as they arrived. */
async function readChunks(response: IncomingMessage, spec: RequestSpec, deadline: RequestDeadline | undefined): Promise<Buffer[]> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of response) {
      chunks.push(chunk as Buffer);
      deadline?.check();
    }
  } catch (err) {
    throw transportFailure(spec, err, deadline);
  }
  return chunks;
}

/** An answer's body as text (an error's Status, read whole). */
async function readBody(response: IncomingMessage, spec: RequestSpec, deadline: RequestDeadline | undefined): Promise<string> {
  const chunks = await readChunks(response, spec, deadline);
  return (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8');
}

function parseStatus(text: string, code: number): Status {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && (parsed as Status).kind === 'Status') return parsed as Status;
  } catch {
    // Not JSON (e.g. a proxy's HTML error page): fall through to a Status derived from the code.
  }
  return statusFromHttpCode(code, text.trim().slice(0, 500) || `HTTP ${code}`);
}
