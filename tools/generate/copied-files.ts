import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { GeneratedFile } from './registry-files.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Files kept as exact copies of another file of the repository, because a Helm chart reads only
 * files inside its own directory: the chart's PrometheusRule is built from the alerts of
 * config/monitoring/ (the original, which Prometheus users load directly).
 */
const COPIES: readonly { path: string; from: string }[] = [{ path: 'charts/vcsync/files/vcsync-alerts.yaml', from: 'config/monitoring/vcsync-alerts.yaml' }];

/** Every copy as a generated file: its content is its original's, whatever it holds now. */
export function copiedFiles(): GeneratedFile[] {
  return COPIES.map(({ path, from }) => ({ path, render: () => readFileSync(`${repoRoot}${from}`, 'utf8') }));
}
