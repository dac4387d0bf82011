import type { StoredObject } from './storage.js';

/** A watch event type on the wire. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** The serialised line of one watch event: `{"type":…,"object":…}\n`. */
export function watchEventLine(type: WatchEventType, object: unknown): Buffer {
  return Buffer.from(`${JSON.stringify({ type, object })}\n`);
}

/** How one watch encodes objects. */
export interface WatchEncoding {
  /** The representation's name (`json`, `partial`, `table`): the cache key and the metric label. */
  representation: string;
  /**
   * Whether the encoding depends on the object alone, so that watchers may share it. A Table
   * carries ages computed at sending: not shared.
   */
  shared: boolean;
  /** Turns a stored object into what the client asked for (JSON object, Table, partial metadata). */
  encode: (object: StoredObject) => unknown;
}

/**
 * Watch event lines shared by every watcher, as a watch cache serialises each event once per
 * encoding (k8s.io/apiserver's cachingObject): keyed by the stored object (storages hand every watcher the same
 * immutable object), the event type and the representation. A line lives as long as its object
 * is held by the storage; a watcher writes the same bytes to its socket, so 500 watchers of
 * 10,000 objects hold one copy of them, not 500.
 */
export class WatchEventCache {
  /** By object, then representation, then event type (no key string built per line written). */
  readonly #lines = new WeakMap<StoredObject, Map<string, Map<WatchEventType, Buffer>>>();
  readonly #onEncoded: (representation: string) => void;

  /** `onEncoded` is told of every line actually serialised (a metric). */
  constructor(onEncoded: (representation: string) => void = () => undefined) {
    this.#onEncoded = onEncoded;
  }

  /**
   * The line of `type` for `object` in `encoding`: serialised on first use and shared afterwards,
   * or, for an encoding that is not `shared`, serialised for this watcher alone.
   */
  line(type: WatchEventType, object: StoredObject, encoding: WatchEncoding): Buffer {
    if (!encoding.shared) {
      this.#onEncoded(encoding.representation);
      return watchEventLine(type, encoding.encode(object));
    }
    let byRepresentation = this.#lines.get(object);
    if (byRepresentation === undefined) {
      byRepresentation = new Map();
      this.#lines.set(object, byRepresentation);
    }
    let lines = byRepresentation.get(encoding.representation);
    if (lines === undefined) {
      lines = new Map();
      byRepresentation.set(encoding.representation, lines);
    }
    const cached = lines.get(type);
    if (cached !== undefined) return cached;
    const line = watchEventLine(type, encoding.encode(object));
    this.#onEncoded(encoding.representation);
    lines.set(type, line);
    return line;
  }
}
