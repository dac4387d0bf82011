import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { failureStatus } from '#vcsync/apimachinery/index.js';

/**
 * The faults a {@link FaultProxy} injects, one request each:
 * - `close`: the client's connection is destroyed before the request is forwarded.
 * - `drop-response`: the request is forwarded (a write takes effect upstream), then the client's
 *   connection is destroyed instead of answering: the client cannot know whether it worked.
 * - `delay`: the request is forwarded after `delayMs`.
 * - `throttle`: 429 TooManyRequests with `Retry-After: retryAfterSeconds`, not forwarded.
 * - `error-500`: 500 InternalError, not forwarded.
 * - `error-503`: 503 ServiceUnavailable with `Retry-After`, not forwarded.
 * - `cut-watch`: a watch is forwarded, then its stream is cut within `cutAfterMs`, half-way
 *   through a chunk when there is one.
 * - `stall`: forwarded, then nothing more reaches the client (a watch gets its headers, then
 *   stays open but silent; a request gets no answer) until `stallMs` passed (then the connection is destroyed), `heal()`
 *   or `close()`. A stall forced by `partition()` is counted as `partition` and is not forwarded.
 * - `gone`: a watch is answered as the API server answers a too-old resourceVersion: 200, one
 *   ERROR event with a Status 410 reason `Expired`, end of stream.
 */
export type FaultKind = 'close' | 'drop-response' | 'delay' | 'throttle' | 'error-500' | 'error-503' | 'cut-watch' | 'stall' | 'gone';

/** Every {@link FaultKind} plus `partition`, in the order counts are printed. */
export const FAULT_KINDS: readonly (FaultKind | 'partition')[] = Object.freeze([
  'close',
  'drop-response',
  'delay',
  'throttle',
  'error-500',
  'error-503',
  'cut-watch',
  'stall',
  'gone',
  'partition',
]);

/** Which requests a rule or a partition applies to; every field given must match. */
export interface RequestMatch {
  /** HTTP methods (upper case). Default any. */
  methods?: readonly string[];
  /** Tested against the path without the query, e.g. `/apis/coordination\.k8s\.io/`. Default any. */
  path?: RegExp;
  /** true: watches only; false: everything but watches. Default both. */
  watch?: boolean;
}

/** One fault applied with a probability to the requests that match. */
export interface FaultRule {
  fault: FaultKind;
  /** Chance per matching request, in [0, 1]. */
  probability: number;
  match?: RequestMatch;
  /** `delay`: the delay, ms (a random value up to it is drawn). Default 500. */
  delayMs?: number;
  /** `throttle` and `error-503`: the Retry-After header, seconds. Default 1. */
  retryAfterSeconds?: number;
  /** `cut-watch`: the stream is cut a random time up to this after its headers, ms. Default 1 000. */
  cutAfterMs?: number;
  /** `stall`: the connection is destroyed after this, ms. Default: never (until heal or close). */
  stallMs?: number;
}

/** A source of numbers in [0, 1): a SeededRandom, so a seed replays the faults. */
export interface RandomSource {
  next(): number;
}

/** Options of {@link startFaultProxy}. */
export interface FaultProxyOptions {
  /** The API server, `http(s)://host:port`; its path prefix, if any, is kept. */
  upstream: string;
  /** TLS towards an https upstream: its CA and the client certificate the proxy presents. */
  upstreamTls?: { ca?: string; cert?: string; key?: string };
  /** Draws every fault decision. Default Math.random. */
  random?: RandomSource;
  /** Initial rules; the first that fires wins. Default none (a plain proxy). */
  rules?: readonly FaultRule[];
  /** Listen address. Default 127.0.0.1 on an ephemeral port. */
  host?: string;
}

/** One injected fault, as logged. */
export interface FaultRecord {
  /** ISO time of the injection. */
  at: string;
  kind: FaultKind | 'partition';
  method: string;
  /** Path and query of the request. */
  path: string;
}

/** A reverse proxy in front of an API server that injects faults; see {@link startFaultProxy}. */
export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: point a client here instead of at the upstream. */
  readonly url: string;
  /** Replaces the rules (an empty list stops new faults; stalls in progress stay until heal). */
  setRules(rules: readonly FaultRule[]): void;
  /** Stalls every request and open watch matching `match` (default: all) until {@link heal}. */
  partition(match?: RequestMatch): void;
  /** Ends every partition and stall: held connections are destroyed (their clients retry). */
  heal(): void;
  /** Faults injected so far, by kind (every kind present, zeros included). */
  counts(): Record<FaultKind | 'partition', number>;
  /** Every fault injected so far, in order. */
  log(): readonly FaultRecord[];
  /** Requests received so far. */
  requests(): number;
  /** Stops listening, destroys every connection, clears every timer. Idempotent. */
  close(): Promise<void>;
}

/** Whether a request is a watch: `?watch=true|1` or the legacy `/watch/` path. */
export function isWatchRequest(path: string, query: URLSearchParams): boolean {
  const watch = query.get('watch');
  return watch === 'true' || watch === '1' || /^\/(api\/v1|apis\/[^/]+\/[^/]+)\/watch\//.test(path);
}

/** How long a cut watch waits for a chunk to cut in half before it closes anyway, ms. */
const CUT_GRACE_MS = 200;

function matches(match: RequestMatch | undefined, method: string, path: string, watch: boolean): boolean {
  if (match === undefined) return true;
  if (match.methods !== undefined && !match.methods.includes(method)) return false;
  if (match.path !== undefined && !match.path.test(path)) return false;
  if (match.watch !== undefined && match.watch !== watch) return false;
  return true;
}

/** A stream the proxy is relaying, which a partition or a stall may freeze. */
interface Relay {
  method: string;
  path: string;
  watch: boolean;
  /** Set once nothing more may reach the client. */
  frozen: boolean;
  /** Destroys both sides. */
  destroy(): void;
}

/**
 * Starts a plain-HTTP reverse proxy on an ephemeral port that forwards to `upstream` (HTTP or
 * HTTPS; a client's own Authorization header is forwarded unchanged, client certificates are the
 * proxy's) and injects faults by rule (each rule's probability drawn from `random`, so a seeded
 * source replays the same decisions for the same request order) or by force (`partition`).
 * Error answers are Kubernetes Status objects as the API server writes them. Every fault is
 * counted and logged with its time.
 */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const upstream = new URL(options.upstream);
  const secure = upstream.protocol === 'https:';
  const agent = secure ? new https.Agent({ keepAlive: true, ...options.upstreamTls }) : new http.Agent({ keepAlive: true });
  const basePath = upstream.pathname.replace(/\/$/, '');
  const random = options.random ?? { next: Math.random };
  let rules: readonly FaultRule[] = options.rules ?? [];
  const partitions: RequestMatch[] = [];
  const relays = new Set<Relay>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const records: FaultRecord[] = [];
  const counts = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind | 'partition', number>;
  let requestCount = 0;
  let closed = false;

  const later = (ms: number, run: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };
  const record = (kind: FaultKind | 'partition', method: string, path: string): void => {
    counts[kind] += 1;
    records.push({ at: new Date().toISOString(), kind, method, path });
  };
  const answerStatus = (response: http.ServerResponse, code: number, reason: string, message: string, retryAfterSeconds?: number): void => {
    const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json' };
    if (retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds);
    const details = retryAfterSeconds !== undefined ? { retryAfterSeconds } : undefined;
    response.writeHead(code, headers).end(JSON.stringify(failureStatus(code, reason, message, details)));
  };

  /** Forwards the request; `fault` shapes what reaches the client. */
  const forward = (request: http.IncomingMessage, response: http.ServerResponse, relay: Relay, rule: FaultRule | undefined): void => {
    const headers = { ...request.headers, host: upstream.host };
    const outgoing = (secure ? https : http).request({
      agent,
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      method: request.method,
      path: `${basePath}${request.url ?? '/'}`,
      headers,
    });
    const destroy = relay.destroy;
    relay.destroy = () => {
      outgoing.destroy();
      destroy();
    };
    outgoing.on('error', () => {
      // The upstream is down or went away (a restart): the client sees its connection close, as
      // it would without the proxy.
      relay.destroy();
    });
    outgoing.on('response', (answer) => {
      if (rule?.fault === 'drop-response') {
        answer.resume();
        answer.on('end', () => relay.destroy());
        return;
      }
      if (relay.frozen) {
        answer.resume();
        return;
      }
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
      response.flushHeaders();
      // A stalled watch is established (its headers pass), then silent.
      if (rule?.fault === 'stall') relay.frozen = true;
      let cut = false;
      if (rule?.fault === 'cut-watch') {
        later(random.next() * (rule.cutAfterMs ?? 1_000), () => {
          // The next chunk, if one comes soon, is cut in half; else the stream ends without it.
          cut = true;
          later(CUT_GRACE_MS, () => relay.destroy());
        });
      }
      answer.on('data', (chunk: Buffer) => {
        if (relay.frozen) return;
        if (cut) {
          // Half a chunk (half a watch event, usually), then the connection is gone.
          response.write(chunk.subarray(0, Math.floor(chunk.length / 2)));
          relay.destroy();
          return;
        }
        response.write(chunk);
      });
      answer.on('end', () => {
        if (cut && rule?.fault === 'cut-watch') {
          relay.destroy();
          return;
        }
        if (!relay.frozen) response.end();
      });
      answer.on('error', () => relay.destroy());
    });
    request.pipe(outgoing);
  };

  const handle = (request: http.IncomingMessage, response: http.ServerResponse): void => {
    requestCount += 1;
    const method = request.method ?? 'GET';
    const target = new URL(request.url ?? '/', 'http://proxy');
    const path = target.pathname;
    const pathAndQuery = `${target.pathname}${target.search}`;
    const watch = isWatchRequest(path, target.searchParams);
    const relay: Relay = {
      method,
      path,
      watch,
      frozen: false,
      destroy: () => {
        // A relay whose response has ended gave its socket back to the client's keep-alive pool:
        // a late timer (a cut, a stall's end) must not break the next request on it.
        if (!relays.delete(relay)) return;
        request.socket.destroy();
      },
    };
    relays.add(relay);
    response.on('close', () => relays.delete(relay));

    if (partitions.some((match) => matches(match, method, path, watch))) {
      record('partition', method, pathAndQuery);
      relay.frozen = true;
      request.resume();
      return;
    }
    const rule = rules.find((candidate) => {
      if (!matches(candidate.match, method, path, watch)) return false;
      if ((candidate.fault === 'cut-watch' || candidate.fault === 'gone') && !watch) return false;
      return random.next() < candidate.probability;
    });
    if (rule !== undefined) record(rule.fault, method, pathAndQuery);
    switch (rule?.fault) {
      case 'close':
        relay.destroy();
        return;
      case 'throttle':
        request.resume();
        answerStatus(response, 429, 'TooManyRequests', 'the fault proxy throttled this request; retry after the delay', rule.retryAfterSeconds ?? 1);
        return;
      case 'error-500':
        request.resume();
        answerStatus(response, 500, 'InternalError', 'Internal error occurred: the fault proxy failed this request');
        return;
      case 'error-503':
        request.resume();
        answerStatus(response, 503, 'ServiceUnavailable', 'the fault proxy answered: the server is currently unable to handle the request', rule.retryAfterSeconds ?? 1);
        return;
      case 'gone': {
        request.resume();
        const rv = target.searchParams.get('resourceVersion') ?? '0';
        const status = failureStatus(410, 'Expired', `too old resource version: ${rv} (${rv})`);
        response.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
        response.end(`${JSON.stringify({ type: 'ERROR', object: status })}\n`);
        return;
      }
      case 'delay':
        later(random.next() * (rule.delayMs ?? 500), () => {
          if (!closed) forward(request, response, relay, rule);
        });
        return;
      case 'stall':
        if (!watch) relay.frozen = true;
        if (rule.stallMs !== undefined) later(rule.stallMs, () => relay.destroy());
        forward(request, response, relay, rule);
        return;
      default:
        forward(request, response, relay, rule);
    }
  };

  const server = http.createServer(handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A client that goes away mid-request is not the proxy's problem.
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the fault proxy has no TCP port');

  return {
    url: `http://${address.address}:${address.port}`,
    setRules(next) {
      rules = [...next];
    },
    partition(match = {}) {
      partitions.push(match);
      for (const relay of relays) {
        if (matches(match, relay.method, relay.path, relay.watch) && !relay.frozen) {
          relay.frozen = true;
          record('partition', relay.method, relay.path);
        }
      }
    },
    heal() {
      partitions.length = 0;
      for (const relay of [...relays]) if (relay.frozen) relay.destroy();
    },
    counts: () => ({ ...counts }),
    log: () => [...records],
    requests: () => requestCount,
    async close() {
      if (closed) return;
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const relay of [...relays]) relay.destroy();
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      await stopped;
    },
  };
}
