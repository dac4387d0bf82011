import type { ServerResponse } from 'node:http';
import type { Logger } from '../observe/logger.js';
import { ApiError, type StatusObject } from '../apimachinery/index.js';
import type { FieldSelector } from './field-selector.js';
import type { LabelSelector } from './label-selector.js';
import { resourceVersionFailure } from './object-writer.js';
import type { ResourceType } from './resource-type.js';
import type { Storage, StorageEvent, StorageWatch, StorageWatchListener, StoredObject } from './storage.js';
import { watchEventLine, type WatchEncoding, type WatchEventCache, type WatchEventType } from './watch-event-cache.js';
import type { WatchWriteTurns } from './watch-write-turns.js';

export type { WatchEventType } from './watch-event-cache.js';

/**
 * Changes a watch holds while its client has not yet read the initial state. More, and the client
 * is too slow to follow: the watch ends (it relists), as the real server's watch cache drops a
 * watcher whose buffer is full.
 */
export const MAX_QUEUED_WATCH_EVENTS = 10_000;

/** What a watch reports; the server counts it in its metrics. */
export interface WatchStreamEvents {
  /** One event line was written to this watch's response. */
  sent(): void;
  /** The watch was closed because its client read too slowly. */
  slowClosed(): void;
}

/** The annotation that marks the bookmark ending the initial events of `sendInitialEvents=true`. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** Everything one HTTP watch needs. */
export interface WatchStreamInit {
  storage: Storage;
  type: ResourceType;
  /** Undefined for all namespaces. */
  namespace: string | undefined;
  labelSelector: LabelSelector;
  fieldSelector: FieldSelector;
  /** The objects the watcher may see (an authorizer's ownership rule), like a further selector. Default: all. */
  visible?: ((object: StoredObject) => boolean) | undefined;
  /** The request's `resourceVersion` ('' when unset). */
  resourceVersion: string;
  /** `sendInitialEvents`, undefined when absent. */
  sendInitialEvents: boolean | undefined;
  allowBookmarks: boolean;
  /** `timeoutSeconds` in ms; undefined for no timeout. */
  timeoutMs: number | undefined;
  bookmarkIntervalMs: number;
  /** A response whose unsent bytes exceed this is ended (the client relists). */
  sendBufferBytes: number;
  response: ServerResponse;
  /** How objects are encoded for this client. */
  encoding: WatchEncoding;
  /** The event lines shared between the server's watches. */
  lines: WatchEventCache;
  /** Where watches with a backlog take turns to write, so that other requests are served between bursts. Default: no turns. */
  turns?: WatchWriteTurns | undefined;
  /** Told of sent events and slow-client closes. Default: nothing. */
  events?: WatchStreamEvents | undefined;
  logger: Logger;
  /** Called once when the stream has ended, whatever the reason. */
  onEnd: () => void;
}

/** By namespace/name: the last state that matched the selectors, or false for one that did not. */
type Matched = Map<string, StoredObject | false>;

function keyOf(object: StoredObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

/** `object` carrying the resourceVersion of the change that made it leave the selectors. */
function atVersionOf(object: StoredObject, change: StoredObject): StoredObject {
  return { ...object, metadata: { ...object.metadata, resourceVersion: change.metadata.resourceVersion } };
}

/**
 * One HTTP watch (`?watch=true`): registers a storage watch, streams newline-terminated JSON events
 * on a chunked 200 response, and ends on `timeoutSeconds`, client disconnect, storage close, or
 * when the client reads too slowly (its unsent bytes pass `sendBufferBytes`, or more than
 * {@link MAX_QUEUED_WATCH_EVENTS} changes wait behind the initial state).
 *
 * Memory stays bounded by the socket, not by the number of objects or watchers: event lines come
 * from the shared {@link WatchEventCache} (one serialisation per object, event type and
 * representation), and the initial state is written only as fast as the client reads it (the
 * next object waits for the response's `drain`); changes arriving meanwhile wait as references.
 *
 * Start points follow the real server: resourceVersion unset or "0" (or `sendInitialEvents=true`)
 * sends the current state as ADDED events first (ended by an annotated BOOKMARK when
 * `sendInitialEvents=true` and bookmarks are allowed); a resourceVersion N sends only changes
 * after N, or, when N is older than what the storage retains, a 200 response whose one event is
 * an ERROR with a 410 Expired Status (the real server's in-stream answer). With selectors, an
 * object that stops matching is sent as DELETED carrying its last matching state (at the change's
 * resourceVersion), and one that starts matching as ADDED. The earlier state comes from the
 * storage's `previous`; a storage that does not give it leaves the watch to remember what it saw,
 * and while replaying retained events of a resumed watch, where that is unknown, a non-matching
 * change is sent as DELETED (clients ignore deletes of objects they do not hold).
 */
export class WatchStream {
  readonly #init: WatchStreamInit;
  /** Whether selectors or `visible` filter the objects. */
  readonly #filtered: boolean;
  /**
   * What this watch last saw of each object: only when it filters and the storage's events may
   * lack `previous`. 10,000 objects cost about 1 MiB per watcher, so a storage that gives
   * `previous` spares it.
   */
  readonly #matched: Matched | undefined;
  #handle: StorageWatch | undefined;
  #timers: NodeJS.Timeout[] = [];
  #ended = false;
  #streaming = false;
  #queued: StorageEvent[] = [];
  /** Whether the watch resumes from a client's resourceVersion (its replays' earlier state is unknown). */
  #resumed = false;
  /** Whether the socket is corked until the current burst of events is written. */
  #corked = false;
  /** Ends the wait for `drain` of the initial state (an ended watch waits for nothing). */
  #stopWaiting: (() => void) | undefined;

  /** Does no I/O; {@link start} registers the watch and writes the response. */
  constructor(init: WatchStreamInit) {
    this.#init = init;
    this.#filtered = init.labelSelector.requirements.length > 0 || init.fieldSelector.requirements.length > 0 || init.visible !== undefined;
    this.#matched = this.#filtered && init.storage.eventsCarryPrevious !== true ? new Map() : undefined;
  }

  /**
   * Registers the storage watch and starts streaming. Rejects with an {@link ApiError} (410 for a
   * resourceVersion that is too old, 400 for a malformed one) before anything is written; the
   * stream has then ended.
   */
  async start(): Promise<void> {
    const { storage, type, namespace, resourceVersion, sendInitialEvents } = this.#init;
    const response = this.#init.response;
    response.on('close', () => this.end());
    const initial = sendInitialEvents ?? (resourceVersion === '' || resourceVersion === '0');
    const listOptions = namespace !== undefined ? { namespace } : {};
    let from: string;
    let snapshot: StoredObject[] = [];
    try {
      if (initial) {
        const listed = await storage.list(type.id, listOptions);
        snapshot = listed.items;
        from = listed.resourceVersion;
      } else if (resourceVersion === '' || resourceVersion === '0') {
        const listed = await storage.list(type.id, listOptions);
        from = listed.resourceVersion;
        for (const object of listed.items) this.#matched?.set(keyOf(object), this.#matches(object) && object);
      } else {
        from = resourceVersion;
        this.#resumed = true;
        if (this.#matched !== undefined) {
          for (const object of (await storage.list(type.id, listOptions)).items) this.#matched.set(keyOf(object), this.#matches(object) && object);
        }
      }
      const listener: StorageWatchListener = {
        onEvent: (event) => {
          if (this.#streaming) this.#handleEvent(event);
          else if (this.#queued.length < MAX_QUEUED_WATCH_EVENTS) this.#queued.push(event);
          else this.#closeSlow(MAX_QUEUED_WATCH_EVENTS);
        },
        onClosed: (end) => {
          if (end === 'storage-closed') this.end();
          else this.#fail(new ApiError('InternalError', 'the watch failed in the server; start a new watch'));
        },
      };
      this.#handle = await storage.watch({ resource: type.id, ...(namespace !== undefined ? { namespace } : {}) }, from, listener);
    } catch (error: unknown) {
      const failure = resourceVersionFailure(error);
      if (failure instanceof ApiError && failure.reason === 'Expired' && !this.#ended) {
        // As the real server: the watch starts, and its one event says the version is gone.
        this.#writeHead();
        this.#fail(failure);
        return;
      }
      if (!this.#ended) {
        this.#ended = true;
        this.#init.onEnd();
      }
      throw failure;
    }
    if (this.#ended) {
      // The client went away while the watch was being registered.
      this.#handle.close();
      return;
    }
    this.#writeHead();
    await this.#sendInitialState(snapshot);
    if (this.#ended) return;
    // The real server marks the end of the initial events only for a client that takes bookmarks.
    if (sendInitialEvents === true && this.#init.allowBookmarks) this.#sendBookmark(from, true);
    this.#streaming = true;
    const queued = this.#queued;
    this.#queued = [];
    for (const event of queued) this.#handleEvent(event);
    if (this.#init.allowBookmarks) {
      this.#timers.push(setInterval(() => this.#sendBookmark(this.#handle?.progressResourceVersion() ?? from, false), this.#init.bookmarkIntervalMs));
    }
    if (this.#init.timeoutMs !== undefined) this.#timers.push(setTimeout(() => this.end(), this.#init.timeoutMs));
  }

  /**
   * The initial state as ADDED events, written in bursts, each in a turn of the server's writing
   * (see {@link WatchWriteTurns}): a burst writes until the response buffers past its high-water
   * mark, and the next waits until the client has read it.
   */
  async #sendInitialState(snapshot: readonly StoredObject[]): Promise<void> {
    let next = 0;
    const burst = (): void => {
      while (next < snapshot.length && !this.#ended) {
        const object = snapshot[next] as StoredObject;
        next += 1;
        const matches = this.#matches(object);
        this.#matched?.set(keyOf(object), matches && object);
        if (matches && !this.#sendObject('ADDED', object)) return;
      }
    };
    const flushedBurst = (): void => this.#flushedBurst(burst);
    const turns = this.#init.turns;
    for (;;) {
      if (turns === undefined) flushedBurst();
      else await turns.run(flushedBurst);
      if (next >= snapshot.length || this.#ended) return;
      await this.#drained();
    }
  }

  /** Resolves when the response has flushed what it buffers, has closed, or the watch has ended. */
  #drained(): Promise<void> {
    const response = this.#init.response;
    if (this.#ended || response.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        response.off('drain', done);
        response.off('close', done);
        this.#stopWaiting = undefined;
        resolve();
      };
      response.on('drain', done);
      response.on('close', done);
      this.#stopWaiting = done;
    });
  }

  #writeHead(): void {
    const response = this.#init.response;
    response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    response.flushHeaders();
    response.socket?.setNoDelay(true);
  }

  /** Ends the stream cleanly (idempotent): closes the storage watch, stops timers, ends the response. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#stopWaiting?.();
    this.#handle?.close();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers = [];
    const response = this.#init.response;
    if (!response.writableEnded && !response.destroyed) response.end();
    this.#init.onEnd();
  }

  #matches(object: StoredObject): boolean {
    const labels = object.metadata['labels'];
    const visible = this.#init.visible?.(object) ?? true;
    return visible && this.#init.fieldSelector.matches(object) && this.#init.labelSelector.matches(labels as Record<string, string> | undefined);
  }

  #handleEvent(event: StorageEvent): void {
    if (this.#ended) return;
    if (!this.#filtered) {
      this.#sendObject(event.type, event.object);
      return;
    }
    const matched = this.#matched;
    const key = keyOf(event.object);
    const now = this.#matches(event.object);
    if (event.type === 'ADDED' || event.previous !== undefined) {
      this.#handleKnownChange(event, now);
      return;
    }
    // The storage did not say what the object was before: what this watch saw decides (unknown
    // when it remembers nothing, as for a replayed change).
    const replaying = this.#resumed && event.replayed;
    const seen = replaying ? undefined : matched?.get(key);
    const before = seen === undefined ? undefined : seen !== false;
    if (event.type === 'DELETED') {
      matched?.delete(key);
      if (before === true || (before === undefined && (now || replaying || matched === undefined))) this.#sendObject('DELETED', event.object);
      return;
    }
    matched?.set(key, now && event.object);
    if (now) this.#sendObject(before === false ? 'ADDED' : 'MODIFIED', event.object);
    else if (seen !== false) this.#sendObject('DELETED', seen === undefined ? event.object : atVersionOf(seen, event.object));
  }

  /**
   * A change whose earlier state is known (none for ADDED): as the real server's watch cache, the
   * earlier and the new state against the selectors decide between ADDED, MODIFIED, DELETED and
   * nothing. A change that leaves the selectors is DELETED with the last state that matched.
   */
  #handleKnownChange(event: StorageEvent, now: boolean): void {
    const key = keyOf(event.object);
    const previous = event.previous;
    const before = previous !== undefined && this.#matches(previous);
    const after = event.type !== 'DELETED' && now;
    if (event.type === 'DELETED') this.#matched?.delete(key);
    else this.#matched?.set(key, after && event.object);
    if (after) this.#sendObject(before ? 'MODIFIED' : 'ADDED', event.object);
    else if (before) this.#sendObject('DELETED', event.type === 'DELETED' ? event.object : atVersionOf(previous, event.object));
  }

  #sendBookmark(resourceVersion: string, initialEnd: boolean): void {
    const metadata: Record<string, unknown> = { resourceVersion };
    if (initialEnd) metadata['annotations'] = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
    this.#send('BOOKMARK', { kind: this.#init.type.kind, apiVersion: this.#init.type.apiVersion, metadata });
  }

  #fail(error: ApiError): void {
    const status: StatusObject = error.toStatus();
    this.#send('ERROR', status);
    this.end();
  }

  /** Sends a stored object's event with the shared line; false when the client should be let to read first. */
  #sendObject(type: WatchEventType, object: StoredObject): boolean {
    return this.#write(this.#init.lines.line(type, object, this.#init.encoding));
  }

  #send(type: WatchEventType, object: unknown): void {
    this.#write(watchEventLine(type, object));
  }

  /** Writes one event line; false when the response buffers past its high-water mark (or has ended). */
  #write(line: Buffer): boolean {
    const response = this.#init.response;
    if (this.#ended || response.destroyed) return false;
    this.#corkUntilMicrotask(response);
    const flowing = response.write(line);
    this.#init.events?.sent();
    if (response.writableLength > this.#init.sendBufferBytes) {
      this.#closeSlow(response.writableLength);
      return false;
    }
    return flowing;
  }

  /**
   * Ends the watch of a client that does not read fast enough (`backlog`: its unsent bytes, or
   * its waiting changes). Dropping the connection frees what it buffers at once; the client's
   * reflector relists and watches again, as after the real server's watch cache drops it.
   */
  #closeSlow(backlog: number): void {
    if (this.#ended) return;
    this.#init.logger.warn({ resource: this.#init.type.id, backlog }, 'Watch client reads too slowly; ending its watch');
    this.#ended = true;
    this.#queued = [];
    this.#handle?.close();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers = [];
    this.#init.response.destroy();
    this.#init.events?.slowClosed();
    this.#init.onEnd();
  }

  /**
   * Runs `burst` with the socket corked and flushes it when the burst is over: its lines leave in
   * one write, and the cost of that write (TLS encryption, the system call) falls in the turn that
   * wrote them, within its budget, instead of in a microtask after the turn.
   */
  #flushedBurst(burst: () => void): void {
    const socket = this.#init.response.socket;
    if (this.#corked || socket === null) {
      burst();
      return;
    }
    this.#corked = true;
    socket.cork();
    try {
      burst();
    } finally {
      this.#corked = false;
      socket.uncork();
    }
  }

  /**
   * Events written in one synchronous burst leave in one packet, as soon as the burst is over.
   * Node would flush a chunked write on the next tick, which comes only after every pending
   * microtask: the writer's own answer would then reach the network before the watch event.
   */
  #corkUntilMicrotask(response: ServerResponse): void {
    const socket = response.socket;
    if (this.#corked || socket === null) return;
    this.#corked = true;
    socket.cork();
    queueMicrotask(() => {
      this.#corked = false;
      socket.uncork();
    });
  }
}
