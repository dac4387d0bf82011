import { Counter, Gauge, type Registry } from 'prom-client';
import { CountingHistogram } from '../observe/counting-histogram.js';
import { type PendingCount, PendingCounts } from '../observe/pending-counts.js';

/** What a work queue reports at scrape time about the items being processed right now. */
export interface InFlightWork {
  /** Sum over in-flight items of the seconds each has been processing. */
  unfinishedSeconds: number;
  /** Seconds the longest-running in-flight item has been processing (0 when idle). */
  longestSeconds: number;
}

/** The metrics one work queue updates; bound to its `name` label. */
export interface WorkQueueMetrics {
  /** Records the current depth (items queued, not counting in-flight). */
  setDepth(depth: number): void;
  /** Counts one add that actually queued (or re-marked) an item. */
  added(): void;
  /** Counts one rate-limited re-add. */
  retried(): void;
  /** Records how long an item waited in the queue before a worker took it. */
  observeQueueSeconds(seconds: number): void;
  /** Records how long a worker held an item (get → done). */
  observeWorkSeconds(seconds: number): void;
  /** Registers the callback read at scrape time for the in-flight gauges (replacing any earlier one). */
  setInFlightProvider(provider: () => InFlightWork): void;
}

/** The metrics one informer's reflector and handlers update; bound to its `informer` label. */
export interface WatchMetrics {
  /** Counts one watch restart (clean end, error, or watchdog). */
  restarted(): void;
  /** Counts one full list (the first one included). */
  relisted(): void;
  /** Counts one watch event of `type` and stamps the last-event time. */
  event(type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR', nowMs: number): void;
  /** Counts one event handler that threw. */
  handlerFailed(): void;
}

/** The metrics one REST client updates; bound to its `cluster` label. */
export interface RestClientMetrics {
  /** Counts one finished request; `code` is the HTTP status, or `error` when none arrived. */
  request(verb: string, code: number | 'error'): void;
  /** Records how long the request waited for the client-side rate limiter. */
  observeRateLimiterWait(seconds: number): void;
}

const WATCH_EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] as const;

/** Exponential seconds buckets from 10 ns to 10 s (client-go's work queue buckets). */
const QUEUE_BUCKETS = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i);

/**
 * All metrics of `src/kube/`, registered on the injected Registry when constructed (so they are
 * exported, at zero, from the start). Build one per Registry — a second one on the same Registry
 * throws because the names are taken — and hand it to every queue, informer and client. Labels
 * are bounded: queue, informer and cluster names come from configuration, verbs and codes are
 * finite sets, event types are the five watch types.
 */
export class KubeMetrics {
  readonly #depth: Gauge<'name'>;
  readonly #adds: Counter<'name'>;
  readonly #retries: Counter<'name'>;
  readonly #queueDuration: CountingHistogram<'name'>;
  readonly #workDuration: CountingHistogram<'name'>;
  /** Adds, retries and watch events are counted per call in plain numbers and added to their counters when scraped. */
  readonly #pendingAdds = new PendingCounts<'name'>();
  readonly #pendingRetries = new PendingCounts<'name'>();
  readonly #pendingEvents = new PendingCounts<'informer' | 'type'>();
  /** Queue depths and last-event times are kept as plain numbers and set on their gauges when scraped. */
  readonly #depths = new Map<string, { value: number }>();
  readonly #lastEvents = new Map<string, { seconds: number }>();
  readonly #unfinished: Gauge<'name'>;
  readonly #longest: Gauge<'name'>;
  readonly #inFlight = new Map<string, () => InFlightWork>();
  readonly #queues = new Map<string, WorkQueueMetrics>();
  readonly #watchRestarts: Counter<'informer'>;
  readonly #watchRelists: Counter<'informer'>;
  readonly #watchEvents: Counter<'informer' | 'type'>;
  readonly #watchLastEvent: Gauge<'informer'>;
  readonly #handlerErrors: Counter<'informer'>;
  readonly #pendingRequests = new PendingCounts<'cluster' | 'verb' | 'code'>();
  readonly #rateLimiterWait: CountingHistogram<'cluster'>;
  readonly #isLeader: Gauge<'lease'>;
  readonly #leaderTransitions: Counter<'lease'>;
  readonly #eventFailures: Counter<'component'>;

  constructor(registry: Registry) {
    const registers = [registry];
    const depths = this.#depths;
    const pendingAdds = this.#pendingAdds;
    const pendingRetries = this.#pendingRetries;
    const pendingEvents = this.#pendingEvents;
    const pendingRequests = this.#pendingRequests;
    const lastEvents = this.#lastEvents;
    this.#depth = new Gauge({
      name: 'vcsync_workqueue_depth',
      help: 'Current depth of the work queue.',
      labelNames: ['name'],
      registers,
      collect(): void {
        for (const [name, depth] of depths) this.set({ name }, depth.value);
      },
    });
    this.#adds = new Counter({
      name: 'vcsync_workqueue_adds_total',
      help: 'Adds handled by the work queue.',
      labelNames: ['name'],
      registers,
      collect(): void {
        pendingAdds.flush(this);
      },
    });
    this.#retries = new Counter({
      name: 'vcsync_workqueue_retries_total',
      help: 'Rate-limited re-adds handled by the work queue.',
      labelNames: ['name'],
      registers,
      collect(): void {
        pendingRetries.flush(this);
      },
    });
    this.#queueDuration = new CountingHistogram({
      name: 'vcsync_workqueue_queue_duration_seconds',
      help: 'How long an item stays in the work queue before being requested.',
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.#workDuration = new CountingHistogram({
      name: 'vcsync_workqueue_work_duration_seconds',
      help: 'How long processing an item from the work queue takes.',
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    const inFlight = this.#inFlight;
    this.#unfinished = new Gauge({
      name: 'vcsync_workqueue_unfinished_work_seconds',
      help: 'Seconds of work in progress not yet observed by work_duration; large values suggest stuck workers.',
      labelNames: ['name'],
      registers,
      collect(): void {
        for (const [name, provider] of inFlight) this.set({ name }, provider().unfinishedSeconds);
      },
    });
    this.#longest = new Gauge({
      name: 'vcsync_workqueue_longest_running_processor_seconds',
      help: 'Seconds the longest-running work queue processor has been running.',
      labelNames: ['name'],
      registers,
      collect(): void {
        for (const [name, provider] of inFlight) this.set({ name }, provider().longestSeconds);
      },
    });
    this.#watchRestarts = new Counter({ name: 'vcsync_watch_restarts_total', help: 'Watch restarts (clean end, error or silence).', labelNames: ['informer'], registers });
    this.#watchRelists = new Counter({ name: 'vcsync_watch_relists_total', help: 'Full lists made by the reflector, the first included.', labelNames: ['informer'], registers });
    this.#watchEvents = new Counter({
      name: 'vcsync_watch_events_total',
      help: 'Watch events received, by type.',
      labelNames: ['informer', 'type'],
      registers,
      collect(): void {
        pendingEvents.flush(this);
      },
    });
    this.#watchLastEvent = new Gauge({
      name: 'vcsync_watch_last_event_timestamp_seconds',
      help: 'Unix time of the last watch event (bookmarks included) received by the informer.',
      labelNames: ['informer'],
      registers,
      collect(): void {
        for (const [informer, last] of lastEvents) this.set({ informer }, last.seconds);
      },
    });
    this.#handlerErrors = new Counter({ name: 'vcsync_informer_handler_errors_total', help: 'Informer event handlers that threw.', labelNames: ['informer'], registers });
    // Registered on `registers`; its counts come from the pending counts when it is collected.
    new Counter({
      name: 'vcsync_rest_client_requests_total',
      help: 'Requests made to a Kubernetes API server, by verb and HTTP code (`error` when no answer arrived).',
      labelNames: ['cluster', 'verb', 'code'],
      registers,
      collect(): void {
        pendingRequests.flush(this);
      },
    });
    this.#rateLimiterWait = new CountingHistogram({
      name: 'vcsync_rest_client_rate_limiter_wait_seconds',
      help: 'Time requests waited for the client-side rate limiter.',
      labelNames: ['cluster'],
      buckets: [0.001, 0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.#isLeader = new Gauge({ name: 'vcsync_leader_election_is_leader', help: '1 while this process holds the lease, else 0.', labelNames: ['lease'], registers });
    this.#leaderTransitions = new Counter({ name: 'vcsync_leader_election_transitions_total', help: 'Times this process started or stopped leading.', labelNames: ['lease'], registers });
    this.#eventFailures = new Counter({ name: 'vcsync_event_recorder_failures_total', help: 'Kubernetes Events that could not be recorded.', labelNames: ['component'], registers });
  }

  /**
   * The metrics of the work queue `name`; its series start at zero. Asking again for the same
   * name returns the same object (the layers of one queue share it).
   */
  workQueue(name: string): WorkQueueMetrics {
    const existing = this.#queues.get(name);
    if (existing !== undefined) return existing;
    const labels = { name };
    const depth = { value: 0 };
    this.#depths.set(name, depth);
    this.#depth.set(labels, 0);
    this.#adds.inc(labels, 0);
    this.#retries.inc(labels, 0);
    // Every item passes each of these several times: the label lookups are done once, here.
    const adds = this.#pendingAdds.entry(labels);
    const retries = this.#pendingRetries.entry(labels);
    const queueSeconds = this.#queueDuration.series(labels);
    const workSeconds = this.#workDuration.series(labels);
    this.#unfinished.set(labels, 0);
    this.#longest.set(labels, 0);
    const bound: WorkQueueMetrics = {
      setDepth: (value) => {
        depth.value = value;
      },
      added: () => {
        adds.pending += 1;
      },
      retried: () => {
        retries.pending += 1;
      },
      observeQueueSeconds: (seconds) => queueSeconds.observe(seconds),
      observeWorkSeconds: (seconds) => workSeconds.observe(seconds),
      setInFlightProvider: (provider) => {
        this.#inFlight.set(name, provider);
      },
    };
    this.#queues.set(name, bound);
    return bound;
  }

  /** The metrics of the informer `informer`; its series start at zero. */
  watch(informer: string): WatchMetrics {
    const labels = { informer };
    this.#watchRestarts.inc(labels, 0);
    this.#watchRelists.inc(labels, 0);
    for (const type of WATCH_EVENT_TYPES) this.#watchEvents.inc({ informer, type }, 0);
    const events = new Map(WATCH_EVENT_TYPES.map((type) => [type, this.#pendingEvents.entry({ informer, type })]));
    let last = this.#lastEvents.get(informer);
    if (last === undefined) {
      last = { seconds: 0 };
      this.#lastEvents.set(informer, last);
    }
    const lastEvent = last;
    this.#watchLastEvent.set(labels, lastEvent.seconds);
    this.#handlerErrors.inc(labels, 0);
    return {
      restarted: () => this.#watchRestarts.inc(labels),
      relisted: () => this.#watchRelists.inc(labels),
      event: (type, nowMs) => {
        const count = events.get(type);
        if (count !== undefined) count.pending += 1;
        lastEvent.seconds = nowMs / 1000;
      },
      handlerFailed: () => this.#handlerErrors.inc(labels),
    };
  }

  /** The metrics of the REST client of cluster `cluster`. */
  restClient(cluster: string): RestClientMetrics {
    // Counted on every request: the series are looked up once per label set and kept here.
    const rateLimiterWait = this.#rateLimiterWait.series({ cluster });
    const requests = new Map<string, PendingCount>();
    const pendingRequests = this.#pendingRequests;
    return {
      request: (verb, code) => {
        const key = `${verb} ${code}`;
        let count = requests.get(key);
        if (count === undefined) {
          count = pendingRequests.entry({ cluster, verb, code: String(code) });
          requests.set(key, count);
        }
        count.pending += 1;
      },
      observeRateLimiterWait: (seconds) => rateLimiterWait.observe(seconds),
    };
  }

  /** Sets whether this process leads `lease` (and counts changes). */
  setLeader(lease: string, leading: boolean): void {
    this.#isLeader.set({ lease }, leading ? 1 : 0);
    this.#leaderTransitions.inc({ lease });
  }

  /** Makes the leader-election series of `lease` present at zero. */
  initLeaderElection(lease: string): void {
    this.#isLeader.set({ lease }, 0);
    this.#leaderTransitions.inc({ lease }, 0);
  }

  /** Counts one Event that `component` failed to record. */
  eventRecordFailed(component: string): void {
    this.#eventFailures.inc({ component });
  }

  /** Makes the event-recorder failure series of `component` present at zero. */
  initEventRecorder(component: string): void {
    this.#eventFailures.inc({ component }, 0);
  }
}
