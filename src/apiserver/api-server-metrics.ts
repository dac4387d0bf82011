import { Counter, Gauge, type Registry } from 'prom-client';
import type { ConnectionCloseReason, ConnectionGuardEvents } from '../observe/connection-guard.js';
import type { WatchLimitName } from './watch-admission.js';

const CONNECTION_CLOSE_REASONS: readonly ConnectionCloseReason[] = ['headers_timeout', 'idle_timeout', 'evicted_idle', 'refused_full'];
const WATCH_LIMITS: readonly WatchLimitName[] = ['per_user', 'global'];
/** The representations whose watch events are encoded once and shared ('table' is per watcher: it carries ages). */
const REPRESENTATIONS = ['json', 'partial', 'table'] as const;

/**
 * What the API-server core counts about its watches and connections. A server
 * without metrics passes none; the daemon's management API counts on the process registry.
 */
export interface ApiServerMetrics extends ConnectionGuardEvents {
  /** One watch event line was serialised (once per object, event type and representation). */
  watchEventEncoded(representation: string): void;
  /** One watch event line was written to one watcher (shared bytes or not). */
  watchEventSent(): void;
  /** The open watches changed by `delta`. */
  watchesChanged(delta: number): void;
  /** A watch was refused with 429 by `limit`. */
  watchRefused(limit: WatchLimitName): void;
  /** A watch was closed because its client read too slowly. */
  slowWatchClosed(): void;
}

/** {@link ApiServerMetrics} on prom-client: every series exists (at zero) from start. */
export class PrometheusApiServerMetrics implements ApiServerMetrics {
  readonly #encodings: Counter<'representation'>;
  readonly #sent: Counter;
  readonly #open: Gauge;
  readonly #refused: Counter<'limit'>;
  readonly #slow: Counter;
  readonly #connectionsClosed: Counter<'reason'>;

  /** Registers the metrics on `registry` (once per registry). */
  constructor(registry: Registry) {
    const registers = [registry];
    this.#encodings = new Counter({
      name: 'vcsync_apiserver_watch_event_encodings_total',
      help: 'Watch event lines serialised, by representation: json and partial are encoded once per object and event type and shared by every watcher; table per watcher.',
      labelNames: ['representation'],
      registers,
    });
    for (const representation of REPRESENTATIONS) this.#encodings.labels(representation).inc(0);
    this.#sent = new Counter({ name: 'vcsync_apiserver_watch_events_sent_total', help: 'Watch event lines written to watchers.', registers });
    this.#open = new Gauge({ name: 'vcsync_apiserver_watches', help: 'Open watches.', registers });
    this.#refused = new Counter({
      name: 'vcsync_apiserver_watches_refused_total',
      help: `Watches refused with 429 Too Many Requests, by the limit reached: ${WATCH_LIMITS.join(', ')}.`,
      labelNames: ['limit'],
      registers,
    });
    for (const limit of WATCH_LIMITS) this.#refused.labels(limit).inc(0);
    this.#slow = new Counter({ name: 'vcsync_apiserver_slow_watches_closed_total', help: 'Watches closed because their client read too slowly (it relists and watches again).', registers });
    this.#connectionsClosed = new Counter({
      name: 'vcsync_apiserver_connections_closed_total',
      help: `Connections the server closed to keep within its limits, by reason: ${CONNECTION_CLOSE_REASONS.join(', ')}.`,
      labelNames: ['reason'],
      registers,
    });
    for (const reason of CONNECTION_CLOSE_REASONS) this.#connectionsClosed.labels(reason).inc(0);
  }

  watchEventEncoded(representation: string): void {
    this.#encodings.labels(representation).inc();
  }

  watchEventSent(): void {
    this.#sent.inc();
  }

  watchesChanged(delta: number): void {
    this.#open.inc(delta);
  }

  watchRefused(limit: WatchLimitName): void {
    this.#refused.labels(limit).inc();
  }

  slowWatchClosed(): void {
    this.#slow.inc();
  }

  closed(reason: ConnectionCloseReason): void {
    this.#connectionsClosed.labels(reason).inc();
  }
}
