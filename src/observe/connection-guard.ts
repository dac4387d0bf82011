import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setDeadline } from './deadline.js';

/** How long connections may idle and how many a listener holds, so idle or half-open connections cannot exhaust its file descriptors. */
export interface ConnectionLimits {
  /**
   * A new connection (TCP accept, including a TLS handshake) must complete its first request
   * head within this many ms, or it is closed. Default {@link DEFAULT_CONNECTION_LIMITS}.
   */
  headersTimeoutMs: number;
  /**
   * A connection with no request in flight (a keep-alive connection between requests, or one that
   * was answered and left open by its client) is closed after this many ms. A request head that
   * starts but does not finish in this time is cut with it. Default {@link DEFAULT_CONNECTION_LIMITS}.
   */
  idleTimeoutMs: number;
  /**
   * A request whose head and body have not all arrived within this many ms is answered 408 by
   * Node's parser (`server.requestTimeout`); streaming responses (watches) are not cut by it.
   */
  requestTimeoutMs: number;
  /**
   * Open connections the listener holds. At the cap a new connection evicts the longest-idle
   * connection (no request in flight: clients reconnect at once); when every connection is busy
   * the new one is closed. Busy connections are bounded by the watch caps, so the cap must exceed
   * them: the difference is the room kept for probes and plain requests.
   */
  maxConnections: number;
}

/** Defaults of {@link ConnectionLimits}: 10 s for a first head, 60 s idle, 60 s per request, 2048 connections. */
export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = Object.freeze({
  headersTimeoutMs: 10_000,
  idleTimeoutMs: 60_000,
  requestTimeoutMs: 60_000,
  maxConnections: 2048,
});

/** Why the guard closed a connection (a bounded metric label). */
export type ConnectionCloseReason = 'headers_timeout' | 'idle_timeout' | 'evicted_idle' | 'refused_full';

/** What the guard reports; the servers count it in their metrics. Every method is optional to call. */
export interface ConnectionGuardEvents {
  closed(reason: ConnectionCloseReason): void;
}

interface Tracked {
  key: string;
  socket: Socket;
  /** Requests whose head arrived and whose response has not ended. */
  busy: number;
  /** Whether the connection has completed a request head yet (selects the timeout that applies). */
  served: boolean;
  timer: NodeJS.Timeout | undefined;
}

/** A validated copy of `limits` over the defaults; throws a RangeError naming a bad value. */
export function connectionLimitsWithDefaults(limits: Partial<ConnectionLimits> = {}): Readonly<ConnectionLimits> {
  const resolved = { ...DEFAULT_CONNECTION_LIMITS, ...limits };
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return Object.freeze(resolved);
}

/**
 * Keeps one listener's connections from exhausting the process: closes connections that send no
 * complete request head in time (idle TCP, stalled TLS handshakes, half heads) and idle
 * keep-alive connections, and caps the open connections, evicting the longest-idle one for a
 * newcomer so that probes and plain requests still get in. Works on a plain `node:http` server
 * and on an HTTPS one (tracked by the raw TCP socket; requests are matched to it by the peer's
 * address and port). Installs listeners and Node's own `requestTimeout`/`headersTimeout`/
 * `keepAliveTimeout`; the per-connection timers stop when the connection closes.
 */
export function guardConnections(server: HttpServer, limits: Readonly<ConnectionLimits>, events?: ConnectionGuardEvents): void {
  const tracked = new Map<string, Tracked>();
  server.requestTimeout = limits.requestTimeoutMs;
  server.headersTimeout = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  // Node's own idle timer would fire first and close without our count: ours decides.
  server.keepAliveTimeout = limits.idleTimeoutMs + 1000;

  const close = (entry: Tracked, reason: ConnectionCloseReason): void => {
    events?.closed(reason);
    entry.socket.destroy();
  };
  const arm = (entry: Tracked): void => {
    clearTimeout(entry.timer);
    entry.timer = undefined;
    if (entry.busy > 0) return;
    const [timeoutMs, reason] = entry.served ? [limits.idleTimeoutMs, 'idle_timeout' as const] : [limits.headersTimeoutMs, 'headers_timeout' as const];
    // Decided after the next read: a head that arrived in time re-arms the timer first.
    const timer = setDeadline(() => {
      if (entry.timer === timer) close(entry, reason);
    }, timeoutMs);
    timer.unref();
    entry.timer = timer;
  };
  const makeRoom = (): boolean => {
    for (const entry of tracked.values()) {
      if (entry.busy === 0) {
        close(entry, 'evicted_idle');
        return true;
      }
    }
    return false;
  };

  server.on('connection', (socket: Socket) => {
    const key = `${socket.remoteAddress ?? ''}|${socket.remotePort ?? ''}`;
    if (tracked.size >= limits.maxConnections && !makeRoom()) {
      events?.closed('refused_full');
      socket.destroy();
      return;
    }
    const entry: Tracked = { key, socket, busy: 0, served: false, timer: undefined };
    tracked.set(key, entry);
    arm(entry);
    socket.once('close', () => {
      clearTimeout(entry.timer);
      if (tracked.get(key) === entry) tracked.delete(key);
    });
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const entry = tracked.get(`${request.socket.remoteAddress ?? ''}|${request.socket.remotePort ?? ''}`);
    if (entry === undefined) return;
    entry.busy += 1;
    entry.served = true;
    arm(entry);
    let done = false;
    const finished = (): void => {
      if (done) return;
      done = true;
      entry.busy -= 1;
      if (entry.busy === 0 && tracked.get(entry.key) === entry) {
        // Back of the line: eviction takes the longest-idle connection, from the front.
        tracked.delete(entry.key);
        tracked.set(entry.key, entry);
      }
      arm(entry);
    };
    response.once('finish', finished);
    response.once('close', finished);
  });
}
