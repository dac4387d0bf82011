import type { ObjectRef, StorageEvent } from '../apiserver/index.js';

/** One change as a {@link ChangeLog} keeps it. */
export interface LoggedChange {
  ref: ObjectRef;
  event: StorageEvent;
}

/**
 * The order of the opaque resourceVersions a watch has reported, and the last changes, so that a
 * watch can resume from any resourceVersion still remembered. resourceVersions are never parsed or
 * compared: each is remembered at its place in the sequence of changes (several, from bookmarks
 * and lists, may share one place). Bounded: `window` changes, `2 × window` resourceVersions.
 */
export class ChangeLog {
  readonly #window: number;
  readonly #changes: Array<LoggedChange & { seq: number }> = [];
  /** resourceVersion → how many changes had happened when it was current, in insertion order. */
  readonly #places = new Map<string, number>();
  #seq = 0;
  /** Changes up to this place are forgotten. */
  #floor = 0;
  #latest = '';

  /** `window`: how many changes are kept (at least 1). */
  constructor(window: number) {
    this.#window = Math.max(1, window);
  }

  /** The newest resourceVersion reached (`''` before the first). */
  get latest(): string {
    return this.#latest;
  }

  /** Whether `resourceVersion` is one this log can resume from. */
  has(resourceVersion: string): boolean {
    return this.#places.has(resourceVersion);
  }

  /**
   * Appends one change; `kept` false counts it without keeping it (the first list's objects: no
   * watch can resume from before them).
   */
  append(change: LoggedChange, kept = true): void {
    this.#seq += 1;
    if (kept) this.#changes.push({ ...change, seq: this.#seq });
    while (this.#changes.length > this.#window) {
      const dropped = this.#changes.shift();
      if (dropped !== undefined) this.#floor = dropped.seq;
    }
    for (const [resourceVersion, place] of this.#places) {
      if (place >= this.#floor) break;
      this.#places.delete(resourceVersion);
    }
  }

  /** Records that every change so far makes up the state at `resourceVersion`. */
  reached(resourceVersion: string): void {
    if (resourceVersion === '') return;
    // Re-inserted so the map stays in place order (the eviction in append relies on it).
    this.#places.delete(resourceVersion);
    this.#places.set(resourceVersion, this.#seq);
    this.#latest = resourceVersion;
    // Bookmarks add resourceVersions without changes: bound them too. A forgotten one only makes a
    // watch resumed from it relist.
    for (const [oldest] of this.#places) {
      if (this.#places.size <= this.#window * 2) break;
      this.#places.delete(oldest);
    }
  }

  /** The changes after `resourceVersion`, oldest first; undefined when it is not (or no longer) known. */
  since(resourceVersion: string): LoggedChange[] | undefined {
    const place = this.#places.get(resourceVersion);
    if (place === undefined || place < this.#floor) return undefined;
    return this.#changes.filter((change) => change.seq > place);
  }
}
