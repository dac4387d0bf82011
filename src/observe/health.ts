/** The outcome of one readiness check: ready, or not with a reason an operator can act on. */
export type CheckResult = { ready: true } | { ready: false; reason: string };

/** A named readiness check; it must be cheap (it runs on every /readyz request). */
export interface ReadinessCheck {
  readonly name: string;
  check(): CheckResult;
}

/** The report /readyz serves. */
export interface ReadinessReport {
  ready: boolean;
  checks: { name: string; ready: boolean; reason?: string }[];
}

/**
 * The set of readiness checks of a process. Components register a check when they are built;
 * `/readyz` is ready only when every check is. Liveness (`/healthz`) needs no checks: a process
 * that can answer is alive.
 */
export class HealthChecks {
  readonly #checks: ReadinessCheck[] = [];

  /** Adds a check. Names must be unique; they appear in the report. */
  add(check: ReadinessCheck): void {
    if (this.#checks.some((existing) => existing.name === check.name)) {
      throw new Error(`readiness check "${check.name}" is registered twice`);
    }
    this.#checks.push(check);
  }

  /** Runs every check; a check that throws counts as not ready with the error as reason. */
  report(): ReadinessReport {
    const checks = this.#checks.map((c) => {
      try {
        const result = c.check();
        return result.ready ? { name: c.name, ready: true } : { name: c.name, ready: false, reason: result.reason };
      } catch (error) {
        return { name: c.name, ready: false, reason: error instanceof Error ? error.message : String(error) };
      }
    });
    return { ready: checks.every((c) => c.ready), checks };
  }
}
