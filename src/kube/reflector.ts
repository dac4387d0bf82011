import { Registry } from 'prom-client';
import { ApiError, isResourceExpired, type Status } from '../apimachinery/index.js';
import { collectionPath, type ResourceType } from './api-path.js';
import { Backoff } from './backoff.js';
import { realClock, sleep, type Clock, type TimerHandle } from './clock.js';
import type { KubeList, KubeObject } from './kube-object.js';
import { KubeMetrics, type WatchMetrics } from './metrics.js';
import type { ListOptions, WatchOptions } from './rest-client.js';
import type { WatchStream } from './watch-stream.js';
import { silentLogger, type Logger } from '../observe/logger.js';

/** The two calls a reflector needs; {@link RestClient} provides them. */
export interface ListerWatcher {
  list<T extends KubeObject>(path: string, options?: ListOptions): Promise<KubeList<T>>;
  watch<T extends KubeObject>(path: string, options?: WatchOptions): Promise<WatchStream<T>>;
}

/**
 * Where a reflector delivers what it learns. Calls are strictly ordered: the reflector waits for a
 * `replace` that returns a promise before it watches, so nothing is delivered while it runs.
 */
export interface ReflectorSink<T extends KubeObject> {
  /**
   * A full list at `resourceVersion` replaces everything known before. May return a promise (to
   * spread a large list over several turns of the event loop); the reflector awaits it.
   */
  replace(items: T[], resourceVersion: string): void | Promise<void>;
  /** One change seen on the watch. */
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): void;
  /** The server confirmed progress up to `resourceVersion` without a change. */
  bookmark(resourceVersion: string): void;
}

/**
 * What an informer keeps of each object it receives, after client-go's SetTransform: applied to
 * every object from the list (page by page, so whole objects of one page at most are alive at a
 * time) and from the watch, before it is delivered to the sink, cached and handed to handlers.
 * Must be pure and return a new object (the input is the parsed response, not shared).
 */
export type ObjectTransform<T extends KubeObject = KubeObject> = (object: T) => T;

/**
 * An {@link ObjectTransform} of any object type, with a name: shared informers key on it, so two
 * users that keep different parts of the same objects never share one cache.
 */
export interface NamedTransform {
  /** A fixed word, e.g. `without-managed-fields`. */
  readonly name: string;
  apply<T extends KubeObject>(object: T): T;
  /**
   * `apply` never keeps `metadata.managedFields`, and the kind has no other field of that name: the
   * informer's list pages may be parsed without them (`ReflectorOptions.listWithoutManagedFields`).
   */
  readonly dropsManagedFields?: boolean;
}

/** Options of {@link Reflector}. */
export interface ReflectorOptions<T extends KubeObject = KubeObject> {
  /** Informer name for logs and the `informer` metrics label (a fixed word). Required. */
  name: string;
  /** The API client. Required. */
  client: ListerWatcher;
  /** The resource type to list and watch. Required. */
  resource: ResourceType;
  /** Namespace to watch; unset or `''` = all namespaces. */
  namespace?: string;
  /** Label selector, e.g. `app=web,tier!=db`. Default none. */
  labelSelector?: string;
  /** Field selector, e.g. `metadata.name=web`. Default none. */
  fieldSelector?: string;
  /** Applied to every listed and watched object before the sink sees it. Default none: objects are delivered whole. */
  transform?: ObjectTransform<T>;
  /** Items per list page (`limit`). Default 500. */
  pageSize?: number;
  /**
   * List pages are parsed without `metadata.managedFields` (`ListOptions.withoutManagedFields`):
   * for a `transform` that drops them anyway. Watch events still carry them. Default false.
   */
  listWithoutManagedFields?: boolean;
  /** Lower bound of the random `timeoutSeconds` asked of each watch. Default 300. */
  minWatchTimeoutSeconds?: number;
  /** Upper bound (exclusive) of the random `timeoutSeconds`. Default 600. */
  maxWatchTimeoutSeconds?: number;
  /** A watch that delivers nothing, not even a bookmark, for this long is restarted, in ms. Default 150 000. */
  watchSilenceLimitMs?: number;
  /** First delay after an error, in ms. Default 800. */
  initialBackoffMs?: number;
  /** Largest delay after repeated errors, in ms. Default 30 000. */
  maxBackoffMs?: number;
  /** Random stretch of each backoff delay, as a fraction. Default 0.5. */
  backoffJitter?: number;
  /** Randomness in [0, 1) for timeouts and jitter. Default `Math.random`. */
  random?: () => number;
  /** Time source for backoff and the watchdog. Default the real clock. */
  clock?: Clock;
  /** Logger. Default silent. */
  logger?: Logger;
  /** Metrics sink. Default a private registry. */
  metrics?: KubeMetrics;
}

type Resolved<T extends KubeObject> = Readonly<Required<Omit<ReflectorOptions<T>, 'namespace' | 'labelSelector' | 'fieldSelector' | 'transform' | 'listWithoutManagedFields'>>> &
  Readonly<Pick<ReflectorOptions<T>, 'namespace' | 'labelSelector' | 'fieldSelector' | 'transform' | 'listWithoutManagedFields'>>;

function withDefaults<T extends KubeObject>(options: ReflectorOptions<T>): Resolved<T> {
  return Object.freeze({
    ...options,
    pageSize: options.pageSize ?? 500,
    minWatchTimeoutSeconds: options.minWatchTimeoutSeconds ?? 300,
    maxWatchTimeoutSeconds: options.maxWatchTimeoutSeconds ?? 600,
    watchSilenceLimitMs: options.watchSilenceLimitMs ?? 150_000,
    initialBackoffMs: options.initialBackoffMs ?? 800,
    maxBackoffMs: options.maxBackoffMs ?? 30_000,
    backoffJitter: options.backoffJitter ?? 0.5,
    random: options.random ?? Math.random,
    clock: options.clock ?? realClock,
    logger: (options.logger ?? silentLogger()).child({ informer: options.name }),
    metrics: options.metrics ?? new KubeMetrics(new Registry()),
  });
}

/**
 * How one watch ended without throwing: the server closed it, the watchdog closed it, or the
 * server closed it at once without sending anything (treated like an error: back off).
 */
type WatchEnd = 'closed' | 'silent' | 'closedEmpty';

/**
 * A watch closed cleanly within this long without any event counts as {@link WatchEnd} `closedEmpty`;
 * a watch that stayed open at least this long reached a working server, so an error ending it
 * starts the backoff over and breaks a run of expired relists.
 */
const EMPTY_WATCH_MS = 1000;

/**
 * Keeps a {@link ReflectorSink} in step with one collection on the API server, client-go style:
 * list (paged with `limit`/`continue`), then watch from the list's resourceVersion with
 * bookmarks and a random `timeoutSeconds`. Changes are delivered in the server's order.
 *
 * - A watch the server ends cleanly restarts from the last resourceVersion seen, without a list.
 * - 410 Gone / Expired (as HTTP status or in-stream ERROR) triggers a relist.
 * - Any other error (transport, 5xx, bad stream) backs off (800 ms doubling to 30 s, jittered)
 *   and restarts the watch from the last resourceVersion seen (a failed list is retried). The
 *   backoff starts over after any event and after a watch that stayed open for a second or more:
 *   it slows down a server that fails at once, not one whose long watches get cut now and then.
 * - A 410 on the watch right after a relist backs off; any other 410 relists at once.
 * - A watch silent for longer than `watchSilenceLimitMs` is closed and restarted.
 * resourceVersions are opaque strings, passed back verbatim and never compared by size.
 */
export class Reflector<T extends KubeObject> {
  readonly #options: Resolved<T>;
  readonly #sink: ReflectorSink<T>;
  readonly #metrics: WatchMetrics;
  readonly #backoff: Backoff;
  #lastResourceVersion = '';
  #running = false;
  #connected = false;
  /** When the current watch opened (clock ms); undefined while listing or before the server answered. */
  #watchOpenedAt: number | undefined;

  constructor(options: ReflectorOptions<T>, sink: ReflectorSink<T>) {
    this.#options = withDefaults(options);
    this.#sink = sink;
    this.#metrics = this.#options.metrics.watch(this.#options.name);
    this.#backoff = new Backoff({
      initialMs: this.#options.initialBackoffMs,
      maxMs: this.#options.maxBackoffMs,
      jitter: this.#options.backoffJitter,
      random: this.#options.random,
    });
  }

  /**
   * Whether the last list or watch request reached the API server: true from a successful list or
   * an opened watch until the next failure (while backing off it is false).
   */
  get connected(): boolean {
    return this.#connected;
  }

  /** The resourceVersion of the last list, event or bookmark delivered (`''` before the first list). */
  get lastResourceVersion(): string {
    return this.#lastResourceVersion;
  }

  /**
   * Lists and watches until `signal` aborts; resolves once the open watch is closed. Never
   * rejects for API or transport errors (they are retried); rejects only if called twice.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error(`reflector ${this.#options.name} is already running`);
    this.#running = true;
    try {
      await this.#loop(signal);
    } finally {
      this.#running = false;
    }
  }

  async #loop(signal: AbortSignal): Promise<void> {
    const log = this.#options.logger;
    let needList = true;
    let expiredInARow = 0;
    while (!signal.aborted) {
      this.#watchOpenedAt = undefined;
      try {
        if (needList) {
          await this.#list(signal);
          needList = false;
        }
        const end = await this.#watch(signal);
        if (signal.aborted) break;
        expiredInARow = 0;
        this.#metrics.restarted();
        if (end === 'silent') {
          log.warn({ silenceLimitMs: this.#options.watchSilenceLimitMs }, 'Watch was silent too long; restarting it');
        } else if (end === 'closedEmpty') {
          log.warn({ resourceVersion: this.#lastResourceVersion }, 'Watch closed at once without events; backing off');
          await sleep(this.#options.clock, this.#backoff.next(), signal);
        } else {
          log.debug({ resourceVersion: this.#lastResourceVersion }, 'Watch ended; restarting from the last resourceVersion');
        }
      } catch (err) {
        if (signal.aborted) break;
        this.#connected = false;
        this.#metrics.restarted();
        // A quiet watch delivers no event that would reset the backoff: without this, every cut of
        // a watch that worked for minutes doubled the delay, up to 30 s of blindness per failure.
        if (this.#watchOpenedAt !== undefined && this.#options.clock.now() - this.#watchOpenedAt >= EMPTY_WATCH_MS) {
          this.#backoff.reset();
          expiredInARow = 0;
        }
        if (isResourceExpired(err)) {
          needList = true;
          expiredInARow += 1;
          log.info({ resourceVersion: this.#lastResourceVersion }, 'Watch resourceVersion expired; relisting');
          // A relist that expires again at once would loop hot: back off from the second time on.
          if (expiredInARow < 2) continue;
        } else {
          // Only a relist expiring again at once is a loop; another failure in between ends the run.
          expiredInARow = 0;
          log.warn({ err, resourceVersion: this.#lastResourceVersion, listing: needList }, 'List or watch failed; backing off');
        }
        await sleep(this.#options.clock, this.#backoff.next(), signal);
      }
    }
  }

  async #list(signal: AbortSignal): Promise<void> {
    const path = collectionPath(this.#options.resource, this.#options.namespace);
    const items: T[] = [];
    let token: string | undefined;
    let resourceVersion = '';
    do {
      const page = await this.#options.client.list<T>(path, {
        signal,
        labelSelector: this.#options.labelSelector,
        fieldSelector: this.#options.fieldSelector,
        limit: this.#options.pageSize,
        continue: token,
        ...(this.#options.listWithoutManagedFields === true ? { withoutManagedFields: true } : {}),
      });
      const transform = this.#options.transform;
      for (const item of page.items) items.push(transform === undefined ? item : transform(item));
      if (resourceVersion === '') resourceVersion = page.metadata?.resourceVersion ?? '';
      token = page.metadata?.continue;
    } while (token !== undefined && token !== '' && !signal.aborted);
    signal.throwIfAborted();
    this.#connected = true;
    this.#metrics.relisted();
    this.#lastResourceVersion = resourceVersion;
    await this.#sink.replace(items, resourceVersion);
    this.#options.logger.debug({ items: items.length, resourceVersion }, 'Listed');
  }

  async #watch(signal: AbortSignal): Promise<WatchEnd> {
    const { minWatchTimeoutSeconds: min, maxWatchTimeoutSeconds: max } = this.#options;
    const timeoutSeconds = Math.max(1, min + Math.floor(this.#options.random() * Math.max(0, max - min)));
    const clock = this.#options.clock;
    const startedAt = clock.now();
    const stream = await this.#options.client.watch<T>(collectionPath(this.#options.resource, this.#options.namespace), {
      signal,
      resourceVersion: this.#lastResourceVersion === '' ? undefined : this.#lastResourceVersion,
      timeoutSeconds,
      allowWatchBookmarks: true,
      labelSelector: this.#options.labelSelector,
      fieldSelector: this.#options.fieldSelector,
    });
    this.#connected = true;
    this.#watchOpenedAt = clock.now();
    let silent = false;
    let events = 0;
    let watchdog: TimerHandle | undefined;
    // One timer per silence window, not one per event: when it fires early (events came), it waits
    // for the rest of the window after the last event. The watch still closes once silent that long.
    let lastEventAt = clock.now();
    const limitMs = this.#options.watchSilenceLimitMs;
    const checkSilence = (): void => {
      const quietMs = clock.now() - lastEventAt;
      if (quietMs >= limitMs) {
        watchdog = undefined;
        silent = true;
        stream.close();
        return;
      }
      watchdog = clock.setTimer(checkSilence, limitMs - quietMs);
    };
    const onAbort = (): void => stream.close();
    if (signal.aborted) {
      stream.close();
      return 'closed';
    }
    signal.addEventListener('abort', onAbort, { once: true });
    watchdog = clock.setTimer(checkSilence, limitMs);
    try {
      for await (const event of stream) {
        lastEventAt = clock.now();
        events += 1;
        this.#metrics.event(event.type, lastEventAt);
        if (event.type === 'ERROR') throw watchErrorToApiError(event.object);
        this.#backoff.reset();
        const resourceVersion = event.object.metadata?.resourceVersion;
        if (event.type === 'BOOKMARK') {
          if (resourceVersion !== undefined && resourceVersion !== '') {
            this.#lastResourceVersion = resourceVersion;
            this.#sink.bookmark(resourceVersion);
          }
          continue;
        }
        if (event.object.metadata?.name === undefined) {
          this.#options.logger.warn({ type: event.type }, 'Watch event without metadata.name ignored');
          continue;
        }
        if (resourceVersion !== undefined && resourceVersion !== '') this.#lastResourceVersion = resourceVersion;
        this.#sink.apply(event.type, this.#options.transform === undefined ? event.object : this.#options.transform(event.object));
      }
    } catch (err) {
      if (silent || signal.aborted) return silent ? 'silent' : 'closed';
      throw err;
    } finally {
      if (watchdog !== undefined) clock.clearTimer(watchdog);
      signal.removeEventListener('abort', onAbort);
      stream.close();
    }
    if (silent) return 'silent';
    if (events === 0 && clock.now() - startedAt < EMPTY_WATCH_MS) return 'closedEmpty';
    this.#backoff.reset();
    return 'closed';
  }
}

function watchErrorToApiError(status: Status): ApiError {
  return new ApiError({ httpStatus: status.code ?? 500, status, verb: 'WATCH', path: 'stream' });
}
