import { Gauge, type Registry } from 'prom-client';
import type { CheckGroup, HealthChecks } from './health.js';

const GROUPS: readonly CheckGroup[] = ['readiness', 'sync', 'liveness'];

/**
 * Registers `vcsync_health_check{check,group}` on `registry`: 1 while the check passes, 0 while
 * it fails, evaluated at scrape time (like kube-apiserver's `kubernetes_healthcheck`). Sync-health
 * checks are not part of readiness (ADR 0007), so this gauge is where alerts see them. Label
 * values are bounded: check names are fixed words chosen in code.
 */
export function registerHealthMetrics(registry: Registry, health: HealthChecks): void {
  new Gauge({
    name: 'vcsync_health_check',
    help: '1 while the health check passes, 0 while it fails; group readiness gates /readyz, group sync is served on /syncz, group liveness gates /livez.',
    labelNames: ['check', 'group'],
    registers: [registry],
    collect() {
      this.reset();
      for (const group of GROUPS) {
        for (const check of health.reportGroup(group).checks) this.set({ check: check.name, group }, check.ready ? 1 : 0);
      }
    },
  });
}
