import type { Metric, Registry } from 'prom-client';

/** One sample as a Registry reads it from a metric's `get()`. */
export interface HistogramSample {
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
  readonly metricName: string;
}

/** What `get()` gives the Registry (prom-client's shape for a histogram). */
export interface HistogramSnapshot {
  readonly name: string;
  readonly help: string;
  readonly type: 'histogram';
  readonly aggregator: 'sum';
  readonly values: HistogramSample[];
}

/** Options of {@link CountingHistogram}. */
export interface CountingHistogramOptions<L extends string> {
  /** Metric name, e.g. `vcsync_workqueue_work_duration_seconds`. */
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  /** Upper bounds of the buckets, ascending (`+Inf` is implied). */
  readonly buckets: readonly number[];
  /** Registries it is registered on (each throws when the name is taken). */
  readonly registers: readonly Registry[];
}

/** The observer of one label set of a {@link CountingHistogram}. */
export interface HistogramSeries {
  /** Counts `value` in its bucket and adds it to the sum. Throws TypeError for a value that is not finite. */
  observe(value: number): void;
}

interface Series extends HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  /** Observations per bucket (not cumulative); those above the last bound are only in `count`. */
  readonly counts: number[];
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram for hot paths: each label set is a {@link HistogramSeries} the caller
 * keeps, and an observation is a bucket search and two additions on plain numbers. prom-client's
 * Histogram validates and hashes the labels on every observation (1-3 µs each in a busy syncer,
 * several per synced object); this one does that once per label set. It exposes the same series
 * as prom-client's (`_bucket` with cumulative `le` counts and `+Inf`, `_sum`, `_count`) through the
 * Registry's interface for metrics (`get`, `reset`), so scrapes and JSON read it like any other.
 */
export class CountingHistogram<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram' as const;
  readonly aggregator = 'sum' as const;
  readonly labelNames: readonly L[];
  readonly #buckets: readonly number[];
  readonly #series = new Map<string, Series>();

  constructor(options: CountingHistogramOptions<L>) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    this.#buckets = Object.freeze([...options.buckets]);
    for (let i = 1; i < this.#buckets.length; i += 1) {
      if ((this.#buckets[i] as number) <= (this.#buckets[i - 1] as number)) throw new Error(`${this.name}: buckets must be in ascending order`);
    }
    // The Registry accepts any object with a name, get() and reset(); prom-client types only its own classes.
    for (const registry of options.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** The series of `labels` (every label name given), created at zero on first use: keep it, ask once. */
  series(labels: Readonly<Record<L, string>>): HistogramSeries {
    const key = this.labelNames.map((name) => labels[name]).join('\u0000');
    const existing = this.#series.get(key);
    if (existing !== undefined) return existing;
    for (const name of this.labelNames) {
      if (typeof labels[name] !== 'string') throw new Error(`${this.name}: label ${name} missing`);
    }
    const buckets = this.#buckets;
    const series: Series = {
      labels: Object.freeze({ ...labels }),
      counts: buckets.map(() => 0),
      sum: 0,
      count: 0,
      observe(value: number): void {
        if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
        for (let i = 0; i < buckets.length; i += 1) {
          if (value <= (buckets[i] as number)) {
            (series.counts[i] as number) += 1;
            break;
          }
        }
        series.sum += value;
        series.count += 1;
      },
    };
    this.#series.set(key, series);
    return series;
  }

  /** The series as prom-client's Histogram reports them: cumulative buckets, `+Inf`, sum and count per label set. */
  async get(): Promise<HistogramSnapshot> {
    const values: HistogramSample[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const series of this.#series.values()) {
      let cumulative = 0;
      this.#buckets.forEach((bound, i) => {
        cumulative += series.counts[i] as number;
        values.push({ labels: { le: bound, ...series.labels }, value: cumulative, metricName: bucketName });
      });
      values.push({ labels: { le: '+Inf', ...series.labels }, value: series.count, metricName: bucketName });
      values.push({ labels: { ...series.labels }, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...series.labels }, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Zeroes every series (they stay exported). */
  reset(): void {
    for (const series of this.#series.values()) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}
