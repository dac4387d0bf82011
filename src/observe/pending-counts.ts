import type { Counter } from 'prom-client';

/** The plain count of one label set of a counter, not yet added to it. */
export interface PendingCount {
  pending: number;
}

/**
 * Counts of a prom-client Counter's label sets kept as plain numbers on a hot path, added to the
 * Counter when it is collected (every scrape and every `get()` collects first): an event costs an
 * addition instead of prom-client's label validation and hashing (about 1-3 µs per call in a busy
 * syncer). The Counter reads exactly what was counted; call {@link PendingCounts.flush} from its
 * `collect`.
 */
export class PendingCounts<L extends string> {
  readonly #entries = new Map<string, { labels: Readonly<Record<L, string>>; count: PendingCount }>();

  /**
   * The count of `labels` (one per label set: asking again gives the same one); increment its
   * `pending`. Ask where the label set is set up (a controller, an informer) and keep the answer:
   * finding it sorts and serializes the labels, the cost this class exists to keep off hot paths.
   */
  entry(labels: Readonly<Record<L, string>>): PendingCount {
    const key = JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = { labels: Object.freeze({ ...labels }), count: { pending: 0 } };
      this.#entries.set(key, entry);
    }
    return entry.count;
  }

  /** Adds every pending count to `counter` and zeroes it. */
  flush(counter: Counter<L>): void {
    for (const { labels, count } of this.#entries.values()) {
      if (count.pending === 0) continue;
      counter.inc(labels, count.pending);
      count.pending = 0;
    }
  }
}
