import { Counter, type Registry } from 'prom-client';

/** What became of one changed config file. */
export type ConfigReloadResult = 'applied' | 'rejected';

const RESULTS: readonly ConfigReloadResult[] = ['applied', 'rejected'];

/**
 * The config reload metric, registered once per process on the injected registry. Both series
 * exist (at zero) from start, so an alert on rejected changes works before the first one.
 */
export class ConfigMetrics {
  readonly #reloads: Counter<'result'>;

  constructor(registry: Registry) {
    this.#reloads = new Counter({
      name: 'vcsync_config_reloads_total',
      help: 'Changes of the config file, by result: applied, or rejected (the last valid configuration stays in force).',
      labelNames: ['result'],
      registers: [registry],
    });
    for (const result of RESULTS) this.#reloads.labels(result).inc(0);
  }

  /** Counts one changed config file by what became of it. */
  reloaded(result: ConfigReloadResult): void {
    this.#reloads.labels(result).inc();
  }
}
