import type { Logger } from '../../observe/logger.js';
import { namespaceOf } from './object-table.js';
import type { StoreEvent, WatchFilter, WatchHandle, WatchListener } from './types.js';

/** Why the store, rather than the watcher, ended a watch. */
export interface WatchEnd {
  /** `store-closed`: `Store.close()` ran; `listener-failed`: the listener's `onEvent` threw. */
  reason: 'store-closed' | 'listener-failed';
  /** What the listener threw, for `listener-failed`. */
  error?: unknown;
}

/**
 * A {@link WatchListener} that also wants to hear when the store ends its watch, so that an HTTP
 * watch stream can finish instead of hanging. `onClosed` is optional and is never called after the
 * watcher's own `WatchHandle.close()`.
 */
export interface ClosableWatchListener extends WatchListener {
  onClosed?(end: WatchEnd): void;
}

interface Watch {
  readonly filter: WatchFilter;
  readonly listener: ClosableWatchListener;
  /** Revision of the last event delivered (or the watch's starting point); later ones only. */
  lastRevision: number;
  closed: boolean;
}

/**
 * Fans committed events out to watches, synchronously and in revision order.
 *
 * Guarantees: a watch never sees an event twice or out of order, even when events are published,
 * or watches registered, from inside a listener (nested publishes are queued and delivered after
 * the current event has reached every watch). A listener that throws is logged and its watch
 * closed; other watches are unaffected.
 */
export class WatchHub {
  readonly #logger: Logger;
  readonly #watches = new Set<Watch>();
  #queue: StoreEvent[] = [];
  #delivering = false;

  /** @param logger where failing listeners are reported. */
  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Number of open watches. */
  get size(): number {
    return this.#watches.size;
  }

  /**
   * Registers a watch that receives `replay` (the retained events after `afterRevision`, oldest
   * first) and then every published event with a later revision that matches `filter`.
   */
  add(filter: WatchFilter, afterRevision: number, listener: ClosableWatchListener, replay: Iterable<StoreEvent>): WatchHandle {
    const watch: Watch = { filter, listener, lastRevision: afterRevision, closed: false };
    this.#watches.add(watch);
    const handle: WatchHandle = {
      close: () => {
        watch.closed = true;
        this.#watches.delete(watch);
      },
    };
    if (this.#delivering) {
      // Called from a listener: the outer delivery loop drains the queue afterwards, and events
      // replayed here are skipped there because of `lastRevision`.
      this.#replay(watch, replay);
      return handle;
    }
    this.#delivering = true;
    try {
      this.#replay(watch, replay);
      this.#drain();
    } finally {
      this.#delivering = false;
    }
    return handle;
  }

  /** Delivers committed events (in increasing revision order) to every matching watch. */
  publish(events: readonly StoreEvent[]): void {
    for (const event of events) {
      this.#queue.push(event);
    }
    if (this.#delivering) {
      return;
    }
    this.#delivering = true;
    try {
      this.#drain();
    } finally {
      this.#delivering = false;
    }
  }

  /** Ends every watch, telling listeners that implement `onClosed`. */
  closeAll(): void {
    for (const watch of [...this.#watches]) {
      this.#end(watch, { reason: 'store-closed' });
    }
  }

  #replay(watch: Watch, replay: Iterable<StoreEvent>): void {
    for (const event of replay) {
      if (watch.closed) {
        return;
      }
      this.#deliver(watch, event);
    }
  }

  #drain(): void {
    try {
      // The queue may grow while we deliver (listeners that write); an index avoids O(n) shifts.
      for (let index = 0; index < this.#queue.length; index++) {
        const event = this.#queue[index];
        if (event === undefined) {
          continue;
        }
        // A Set iterates over members added during iteration and skips deleted ones: a watch
        // registered by a listener sees this event through its replay or not at all.
        for (const watch of this.#watches) {
          this.#deliver(watch, event);
        }
      }
    } finally {
      this.#queue = [];
    }
  }

  #deliver(watch: Watch, event: StoreEvent): void {
    if (watch.closed || event.revision <= watch.lastRevision || !matches(watch.filter, event)) {
      return;
    }
    watch.lastRevision = event.revision;
    try {
      watch.listener.onEvent(event);
    } catch (error: unknown) {
      this.#logger.error(
        { err: error, resource: watch.filter.resource, revision: event.revision },
        'Watch listener threw; closing its watch',
      );
      this.#end(watch, { reason: 'listener-failed', error });
    }
  }

  #end(watch: Watch, end: WatchEnd): void {
    if (watch.closed) {
      return;
    }
    watch.closed = true;
    this.#watches.delete(watch);
    try {
      watch.listener.onClosed?.(end);
    } catch (error: unknown) {
      this.#logger.error({ err: error, resource: watch.filter.resource }, 'Watch onClosed callback threw');
    }
  }
}

function matches(filter: WatchFilter, event: StoreEvent): boolean {
  return (
    event.resource === filter.resource &&
    (filter.namespace === undefined || namespaceOf(event.object) === filter.namespace)
  );
}
