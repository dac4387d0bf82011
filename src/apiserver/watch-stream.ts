import type { ServerResponse } from 'node:http';
import type { Logger } from '../observe/logger.js';
import { ApiError, type StatusObject } from './api-error.js';
import type { FieldSelector } from './field-selector.js';
import type { LabelSelector } from './label-selector.js';
import { resourceVersionFailure } from './object-writer.js';
import type { ResourceType } from './resource-type.js';
import type { Storage, StorageEvent, StorageWatch, StorageWatchListener, StoredObject } from './storage.js';

/** A watch event type on the wire. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

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
  /** Turns an object into what the client asked for (JSON object, Table, partial metadata). */
  encode: (object: StoredObject) => unknown;
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
 * when the client reads too slowly (its unsent bytes pass `sendBufferBytes`).
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

  /** Does no I/O; {@link start} registers the watch and writes the response. */
  constructor(init: WatchStreamInit) {
    this.#init = init;
    this.#matched = init.labelSelector.requirements.length > 0 || init.fieldSelector.requirements.length > 0 || init.visible !== undefined ? new Map() : undefined;
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
          else this.#queued.push(event);
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
    for (const object of snapshot) {
      const matches = this.#matches(object);
      this.#matched?.set(keyOf(object), matches && object);
      if (matches) this.#send('ADDED', this.#init.encode(object));
    }
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
    const matched = this.#matched;
    if (matched === undefined) {
      this.#send(event.type, this.#init.encode(event.object));
      return;
    }
    const key = keyOf(event.object);
    const now = this.#matches(event.object);
    if (event.type === 'ADDED' || event.previous !== undefined) {
      this.#handleKnownChange(event, now);
      return;
    }
    // The storage did not say what the object was before: what this watch saw decides.
    const replaying = this.#resumed && event.replayed;
    const seen = replaying ? undefined : matched.get(key);
    const before = seen === undefined ? undefined : seen !== false;
    if (event.type === 'DELETED') {
      matched.delete(key);
      if (before === true || (before === undefined && (now || replaying))) this.#send('DELETED', this.#init.encode(event.object));
      return;
    }
    matched.set(key, now && event.object);
    if (now) this.#send(before === false ? 'ADDED' : 'MODIFIED', this.#init.encode(event.object));
    else if (seen !== false) this.#send('DELETED', this.#init.encode(seen === undefined ? event.object : atVersionOf(seen, event.object)));
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
    if (after) this.#send(before ? 'MODIFIED' : 'ADDED', this.#init.encode(event.object));
    else if (before) this.#send('DELETED', this.#init.encode(event.type === 'DELETED' ? event.object : atVersionOf(previous, event.object)));
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

  #send(type: WatchEventType, object: unknown): void {
    const response = this.#init.response;
    if (this.#ended || response.destroyed) return;
    this.#corkUntilMicrotask(response);
    response.write(`${JSON.stringify({ type, object })}\n`);
    if (response.writableLength > this.#init.sendBufferBytes) {
      this.#init.logger.warn({ resource: this.#init.type.id, bufferedBytes: response.writableLength }, 'Watch client reads too slowly; ending its watch');
      this.#ended = true;
      this.#handle?.close();
      for (const timer of this.#timers) clearTimeout(timer);
      // Dropping the connection frees the buffered bytes at once; the client relists and re-watches.
      response.destroy();
      this.#init.onEnd();
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
