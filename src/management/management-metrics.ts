import { Counter, type Registry } from 'prom-client';
import { type ApiServerMetrics, PrometheusApiServerMetrics } from '../apiserver/index.js';

/** Every cause a refused access key is counted under: each series exists from start. */
const CAUSES = ['no_key', 'malformed', 'unknown_key', 'disabled', 'expired', 'no_owner'] as const;

/** Why a management request's access key was refused (a bounded label value). */
export type AuthenticationFailureCause = (typeof CAUSES)[number];

/**
 * The management API's metrics, registered once per process on the injected registry. Every
 * series exists (at zero) from start, so an alert on refused keys works before the first one.
 */
export class ManagementMetrics {
  readonly #authenticationFailures: Counter<'cause'>;
  /** The server core's watch and connection metrics (`vcsync_apiserver_*`). */
  readonly apiServer: ApiServerMetrics;

  constructor(registry: Registry) {
    this.apiServer = new PrometheusApiServerMetrics(registry);
    this.#authenticationFailures = new Counter({
      name: 'vcsync_management_authentication_failures_total',
      help: `Management requests refused with 401 because of their access key, by cause: ${CAUSES.join(', ')}.`,
      labelNames: ['cause'],
      registers: [registry],
    });
    for (const cause of CAUSES) this.#authenticationFailures.labels(cause).inc(0);
  }

  /** Counts one management request refused for `cause`. */
  authenticationFailed(cause: AuthenticationFailureCause): void {
    this.#authenticationFailures.labels(cause).inc();
  }
}
