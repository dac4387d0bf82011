/** The outcome of one health check: passing, or not with a reason an operator can act on. */
export type CheckResult = { ready: true } | { ready: false; reason: string };

/** A named health check; it must be cheap (it runs on every probe and every scrape). */
export interface ReadinessCheck {
  readonly name: string;
  check(): CheckResult;
}

/**
 * The two groups of checks (ADR 0007):
 * - `readiness`: this process can serve (config loaded, listeners up, not shutting down). It gates
 *   `/readyz`, and so, for a sidecar, whether the whole virtual-cluster pod receives traffic.
 * - `sync`: the syncer is doing its job (caches synced, watches connected, Lease held or standing
 *   by). Served on `/syncz` and listed in `/readyz?verbose`, never part of readiness: a virtual or
 *   host API outage must not take the virtual cluster's pod out of its Service.
 * - `liveness`: the process is not wedged. Gates `/livez` and `/healthz` (a failing one gets the
 *   container restarted), so only checks a restart would cure belong here; with none, a process
 *   whose event loop answers is alive.
 */
export type CheckGroup = 'readiness' | 'sync' | 'liveness';

/** One check's result in a report. */
export interface CheckReport {
  name: string;
  ready: boolean;
  reason?: string;
}

/** The result of running one group of checks. */
export interface ReadinessReport {
  /** True when every check of the group passes (also when the group has none). */
  ready: boolean;
  checks: CheckReport[];
}

/**
 * The health checks of a process, in three groups (see {@link CheckGroup}): the one registry
 * `/readyz`, `/syncz` and `/livez` read. Components register a check when they are built.
 */
export class HealthChecks {
  readonly #checks: Record<CheckGroup, ReadinessCheck[]> = { readiness: [], sync: [], liveness: [] };

  /** Adds a readiness check (see {@link CheckGroup}). Names are unique across all groups. */
  add(check: ReadinessCheck): void {
    this.#add('readiness', check);
  }

  /** Adds a sync-health check (see {@link CheckGroup}). Names are unique across all groups. */
  addSync(check: ReadinessCheck): void {
    this.#add('sync', check);
  }

  /** Adds a liveness check (see {@link CheckGroup}). Names are unique across all groups. */
  addLiveness(check: ReadinessCheck): void {
    this.#add('liveness', check);
  }

  /** Runs the readiness checks; a check that throws counts as failing with the error as reason. */
  report(): ReadinessReport {
    return this.reportGroup('readiness');
  }

  /** Runs the checks of `group`; a check that throws counts as failing with the error as reason. */
  reportGroup(group: CheckGroup): ReadinessReport {
    const checks = this.#checks[group].map((c): CheckReport => {
      try {
        const result = c.check();
        return result.ready ? { name: c.name, ready: true } : { name: c.name, ready: false, reason: result.reason };
      } catch (error) {
        return { name: c.name, ready: false, reason: error instanceof Error ? error.message : String(error) };
      }
    });
    return { ready: checks.every((c) => c.ready), checks };
  }

  #add(group: CheckGroup, check: ReadinessCheck): void {
    if (Object.values(this.#checks).some((list) => list.some((existing) => existing.name === check.name))) {
      throw new Error(`health check "${check.name}" is registered twice`);
    }
    this.#checks[group].push(check);
  }
}
