import type { ServerResponse } from 'node:http';
import type { Logger } from '../observe/logger.js';
import { ApiError, badRequest, expired, type StatusObject } from '../apiserver/api-error.js';
import type { FieldSelector } from './field-selector.js';
import type { LabelSelector } from '../apiserver/label-selector.js';
import type { ResourceType } from './resource-registry.js';
import type { ClosableWatchListener } from './storage/open-store.js';
import { StoreError, type Store, type StoreEvent, type StoredObject, type WatchHandle } from './storage/types.js';

/** A watch event type on the wire. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** The annotation that marks the bookmark ending the initial events of `sendInitialEvents=true`. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** Everything one HTTP watch needs. */
export interface WatchStreamInit {
  store: Store;
  type: ResourceType;
  /** Undefined for all namespaces. */
  namespace: string | undefined;
  labelSelector: LabelSelector;
  fieldSelector: FieldSelector;
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

type Matched = Map<string, boolean>;

function keyOf(object: StoredObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name}`;
}

/**
 * One HTTP watch (`?watch=true`): registers a store watch, streams newline-terminated JSON events
 * on a chunked 200 response, and ends on `timeoutSeconds`, client disconnect, store close, or when
 * the client reads too slowly (its unsent bytes pass `sendBufferBytes`).
 *
 * Start points follow the real server: resourceVersion unset or "0" (or `sendInitialEvents=true`)
 * sends the current state as ADDED events first (ended by an annotated BOOKMARK when
 * `sendInitialEvents=true`); a resourceVersion N sends only changes after N, or answers HTTP 410
 * before streaming when N is older than the store's window. With selectors, an object that stops
 * matching is sent as DELETED and one that starts matching as ADDED. While replaying retained
 * events of a resumed watch the earlier state is unknown, so a non-matching change is sent as
 * DELETED (clients ignore deletes of objects they do not hold).
 */
export class WatchStream {
  readonly #init: WatchStreamInit;
  readonly #matched: Matched | undefined;
  #handle: WatchHandle | undefined;
  #timers: NodeJS.Timeout[] = [];
  #ended = false;
  #streaming = false;
  #queued: StoreEvent[] = [];
  /** Events with a revision up to this one are replays of a resumed watch. */
  #replayUntil = 0;
  #lastRevision = 0;

  /** Does no I/O; {@link start} registers the watch and writes the response. */
  constructor(init: WatchStreamInit) {
    this.#init = init;
    this.#matched = init.labelSelector.requirements.length > 0 || init.fieldSelector.requirements.length > 0 ? new Map() : undefined;
  }

  /**
   * Registers the store watch and starts streaming. Throws an {@link ApiError} (410 for a
   * resourceVersion that is too old, 400 for a malformed one) before anything is written.
   */
  start(): void {
    const { store, type, namespace, resourceVersion, sendInitialEvents } = this.#init;
    const initial = sendInitialEvents ?? (resourceVersion === '' || resourceVersion === '0');
    let after: number;
    let snapshot: StoredObject[] = [];
    if (initial) {
      const listed = store.list(type.id, namespace);
      snapshot = listed.items;
      after = listed.revision;
    } else if (resourceVersion === '' || resourceVersion === '0') {
      const listed = store.list(type.id, namespace);
      after = listed.revision;
      for (const object of listed.items) this.#matched?.set(keyOf(object), this.#matches(object));
    } else {
      after = Number(resourceVersion);
      if (!/^\d+$/.test(resourceVersion) || !Number.isSafeInteger(after)) throw badRequest(`invalid resource version: ${resourceVersion}`);
      this.#replayUntil = store.currentRevision();
      if (this.#matched !== undefined) {
        for (const object of store.list(type.id, namespace).items) this.#matched.set(keyOf(object), this.#matches(object));
      }
    }
    this.#lastRevision = after;
    const listener: ClosableWatchListener = {
      onEvent: (event) => {
        if (this.#streaming) this.#handleEvent(event);
        else this.#queued.push(event);
      },
      onClosed: (end) => {
        if (end.reason === 'store-closed') this.end();
        else this.#fail(new ApiError('InternalError', 'the watch failed in the server; start a new watch'));
      },
    };
    try {
      this.#handle = store.watch({ resource: type.id, ...(namespace !== undefined ? { namespace } : {}) }, after, listener);
    } catch (error: unknown) {
      if (error instanceof StoreError && error.code === 'Expired') throw expired(`too old resource version: ${after} (${store.oldestWatchableRevision()})`);
      throw error;
    }
    const response = this.#init.response;
    response.on('close', () => this.end());
    response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
    response.flushHeaders();
    response.socket?.setNoDelay(true);
    for (const object of snapshot) {
      const matches = this.#matches(object);
      this.#matched?.set(keyOf(object), matches);
      if (matches) this.#send('ADDED', this.#init.encode(object));
    }
    if (sendInitialEvents === true) this.#sendBookmark(after, true);
    this.#streaming = true;
    const queued = this.#queued;
    this.#queued = [];
    for (const event of queued) this.#handleEvent(event);
    if (this.#init.allowBookmarks) {
      this.#timers.push(setInterval(() => this.#sendBookmark(Math.max(this.#lastRevision, this.#init.store.currentRevision()), false), this.#init.bookmarkIntervalMs));
    }
    if (this.#init.timeoutMs !== undefined) this.#timers.push(setTimeout(() => this.end(), this.#init.timeoutMs));
  }

  /** Ends the stream cleanly (idempotent): closes the store watch, stops timers, ends the response. */
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
    return this.#init.fieldSelector.matches(object) && this.#init.labelSelector.matches(labels as Record<string, string> | undefined);
  }

  #handleEvent(event: StoreEvent): void {
    if (this.#ended) return;
    this.#lastRevision = event.revision;
    const matched = this.#matched;
    if (matched === undefined) {
      this.#send(event.type, this.#init.encode(event.object));
      return;
    }
    const key = keyOf(event.object);
    const now = this.#matches(event.object);
    const replaying = event.revision <= this.#replayUntil;
    const before = replaying ? undefined : matched.get(key);
    if (event.type === 'DELETED') {
      matched.delete(key);
      if (before === true || (before === undefined && (now || replaying))) this.#send('DELETED', this.#init.encode(event.object));
      return;
    }
    matched.set(key, now);
    if (event.type === 'ADDED') {
      if (now) this.#send('ADDED', this.#init.encode(event.object));
      return;
    }
    if (now) this.#send(before === false ? 'ADDED' : 'MODIFIED', this.#init.encode(event.object));
    else if (before !== false) this.#send('DELETED', this.#init.encode(event.object));
  }

  #sendBookmark(revision: number, initialEnd: boolean): void {
    const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
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
}
