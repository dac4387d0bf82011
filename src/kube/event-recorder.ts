import os from 'node:os';
import { LRUCache } from 'lru-cache';
import { Registry } from 'prom-client';
import { isNotFound } from '../apimachinery/index.js';
import { CoreResources, collectionPath, objectPath } from './api-path.js';
import { realClock, type Clock } from './clock.js';
import type { KubeObject } from './kube-object.js';
import { KubeMetrics } from './metrics.js';
import type { CallOptions, PatchType } from './rest-client.js';
import { silentLogger, type Logger } from '../observe/logger.js';

/** A core/v1 Event as the recorder writes it. */
export interface CoreEvent extends KubeObject {
  involvedObject: {
    apiVersion?: string;
    kind?: string;
    namespace?: string;
    name?: string;
    uid?: string;
    resourceVersion?: string;
  };
  reason: string;
  message: string;
  type: EventType;
  source: { component: string; host?: string };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  reportingComponent?: string;
  reportingInstance?: string;
}

/** The two Event types Kubernetes knows. */
export type EventType = 'Normal' | 'Warning';

/** The calls the recorder makes; {@link RestClient} provides them. */
export interface EventClient {
  create<T>(path: string, body: T, options?: CallOptions): Promise<T>;
  patch<T>(path: string, type: PatchType, patch: unknown, options?: CallOptions): Promise<T>;
}

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions {
  /** Client of the cluster the events go to (usually the cluster of the involved object). Required. */
  client: EventClient;
  /** `source.component` of every Event, e.g. `vcsync-syncer` (a fixed word; also the metrics label). Required. */
  component: string;
  /** `source.host`. Default the machine's host name. */
  host?: string;
  /** Identical events within this long of the last one are counted on it instead of creating another, in ms. Default 600 000. */
  aggregationWindowMs?: number;
  /** How many distinct events are remembered for aggregation (least recently used dropped). Default 4096. */
  maxTrackedEvents?: number;
  /** Time source for timestamps and the window. Default the real clock. */
  clock?: Clock;
  /** Logger. Default silent. */
  logger?: Logger;
  /** Metrics sink. Default a private registry. */
  metrics?: KubeMetrics;
}

type Resolved = Readonly<Required<EventRecorderOptions>>;

function withDefaults(options: EventRecorderOptions): Resolved {
  return Object.freeze({
    ...options,
    host: options.host ?? os.hostname(),
    aggregationWindowMs: options.aggregationWindowMs ?? 600_000,
    maxTrackedEvents: options.maxTrackedEvents ?? 4096,
    clock: options.clock ?? realClock,
    logger: (options.logger ?? silentLogger()).child({ component: options.component }),
    metrics: options.metrics ?? new KubeMetrics(new Registry()),
  });
}

interface Tracked {
  namespace: string;
  name: string;
  count: number;
  lastSeenMs: number;
}

const MAX_MESSAGE_LENGTH = 1024;

/**
 * Records core/v1 Events about objects, like client-go's recorder with its correlator: an event
 * identical to one recorded within `aggregationWindowMs` (same object, type, reason, message)
 * bumps that Event's `count` and `lastTimestamp` with a merge PATCH instead of creating another.
 *
 * {@link EventRecorder.record} never throws and never blocks the caller: writes run in the
 * background, serialised per distinct event, and failures are logged and counted
 * (`vcsync_event_recorder_failures_total`). {@link EventRecorder.flush} waits for pending writes.
 */
export class EventRecorder {
  readonly #options: Resolved;
  readonly #tracked: LRUCache<string, Tracked>;
  /** Per distinct event, the tail of its chain of writes. */
  readonly #chains = new Map<string, Promise<void>>();
  #sequence = 0;

  constructor(options: EventRecorderOptions) {
    this.#options = withDefaults(options);
    this.#tracked = new LRUCache({ max: this.#options.maxTrackedEvents });
    this.#options.metrics.initEventRecorder(this.#options.component);
  }

  /** Records an event about `object` (which should carry apiVersion, kind, name, uid). Never throws. */
  record(object: KubeObject, type: EventType, reason: string, message: string): void {
    const involvedObject = {
      apiVersion: object.apiVersion,
      kind: object.kind,
      namespace: object.metadata?.namespace,
      name: object.metadata?.name,
      uid: object.metadata?.uid,
      resourceVersion: object.metadata?.resourceVersion,
    };
    const text = message.length > MAX_MESSAGE_LENGTH ? `${message.slice(0, MAX_MESSAGE_LENGTH - 3)}...` : message;
    const key = JSON.stringify([involvedObject.kind, involvedObject.namespace, involvedObject.name, involvedObject.uid, type, reason, text]);
    const happenedAtMs = this.#options.clock.now();
    const previous = this.#chains.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => this.#write(key, happenedAtMs, { involvedObject, type, reason, message: text }))
      .catch((err: unknown) => {
        this.#options.metrics.eventRecordFailed(this.#options.component);
        this.#options.logger.warn({ err, reason, object: `${involvedObject.namespace ?? ''}/${involvedObject.name ?? ''}` }, 'Could not record an event');
      })
      .finally(() => {
        if (this.#chains.get(key) === next) this.#chains.delete(key);
      });
    this.#chains.set(key, next);
  }

  /** Resolves once every event recorded so far has been written (or has failed and been logged). */
  async flush(): Promise<void> {
    while (this.#chains.size > 0) await Promise.all([...this.#chains.values()]);
  }

  async #write(key: string, now: number, event: Pick<CoreEvent, 'involvedObject' | 'type' | 'reason' | 'message'>): Promise<void> {
    const { client, aggregationWindowMs, component, host } = this.#options;
    const timestamp = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const tracked = this.#tracked.get(key);
    if (tracked !== undefined && now - tracked.lastSeenMs <= aggregationWindowMs) {
      try {
        await client.patch<CoreEvent>(objectPath(CoreResources.events, tracked.namespace, tracked.name), 'merge', {
          count: tracked.count + 1,
          lastTimestamp: timestamp,
        });
        tracked.count += 1;
        tracked.lastSeenMs = now;
        return;
      } catch (err) {
        // The Event was deleted (TTL or by hand): fall through and create a fresh one.
        if (!isNotFound(err)) throw err;
        this.#tracked.delete(key);
      }
    }
    const namespace = event.involvedObject.namespace !== undefined && event.involvedObject.namespace !== '' ? event.involvedObject.namespace : 'default';
    // Object names may use all 253 characters Event names allow: keep room for the unique suffix.
    const base = (event.involvedObject.name ?? 'unknown').slice(0, 230).replace(/[.-]+$/, '');
    const name = `${base}.${(now * 1000 + (this.#sequence++ % 1000)).toString(16)}`;
    const body: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      ...event,
      source: { component, host },
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
      reportingComponent: component,
      reportingInstance: host,
    };
    await client.create<CoreEvent>(collectionPath(CoreResources.events, namespace), body);
    this.#tracked.set(key, { namespace, name, count: 1, lastSeenMs: now });
  }
}
