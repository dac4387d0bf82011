import { readFileSync } from 'node:fs';
import { Gauge, type Registry } from 'prom-client';

/** What was built and what it runs on: the version users report and operators alert on. */
export interface BuildInfo {
  /** vcsync's version, from package.json. */
  readonly version: string;
  /** The Node.js version running it, e.g. `v22.23.3`. */
  readonly nodeVersion: string;
}

/**
 * Reads the build information. package.json sits two levels above this module both in `src/`
 * (tests) and in `dist/` (the built daemon and the image), so one relative path serves both.
 */
export function readBuildInfo(): BuildInfo {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new Error('package.json has no version');
  return Object.freeze({ version: manifest.version, nodeVersion: process.version });
}

/**
 * Registers `vcsync_build_info{version, node_version} 1`, the Prometheus convention for exposing
 * build facts as labels of a constant gauge (two values per process: bounded).
 */
export function registerBuildInfoMetric(registry: Registry, info: BuildInfo): void {
  const gauge = new Gauge({
    name: 'vcsync_build_info',
    help: 'Always 1; the labels tell which vcsync version runs on which Node.js version',
    labelNames: ['version', 'node_version'] as const,
    registers: [registry],
  });
  gauge.set({ version: info.version, node_version: info.nodeVersion }, 1);
}
