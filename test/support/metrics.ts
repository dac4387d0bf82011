import type { Registry } from 'prom-client';

/** One sample of a metric in `registry` whose labels include `labels` (NaN when absent). */
export async function metricValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const sample = metric?.values.find((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want));
  return sample?.value ?? Number.NaN;
}

/**
 * One sample of a metric in a Prometheus text exposition (what `/metrics` serves) whose labels
 * include `labels`, in any order (NaN when absent): for daemons tests reach only over HTTP.
 */
export function metricSample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const have = new Map([...(match[2] ?? '').matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) return Number(match[3]);
  }
  return Number.NaN;
}
