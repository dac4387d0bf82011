import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { silentLogger } from '../../../src/observe/logger.js';
import { tempDir } from '../../support/endpoints-fixtures.js';
import { metricSample } from '../../support/metrics.js';
import { exposedSeriesNames, promqlMetricNames } from '../../support/promql-metric-names.js';
import { startTwoClusters, type TwoClusters } from '../../support/sync-harness.js';
import { startSyncerDaemon, type SyncerDaemon } from '../../support/syncer-daemon.js';
import { waitFor } from '../../support/wait-for.js';

const MONITORING = path.resolve(import.meta.dirname, '../../../config/monitoring');
const RULES_FILE = path.join(MONITORING, 'vcsync-alerts.yaml');
const DASHBOARD_FILE = path.join(MONITORING, 'vcsync-dashboard.json');

interface AlertRule {
  alert?: unknown;
  expr?: unknown;
  for?: unknown;
  labels?: { severity?: unknown };
  annotations?: { summary?: unknown; description?: unknown };
}

interface Panel {
  type?: string;
  title?: string;
  targets?: { expr?: unknown }[];
  panels?: Panel[];
}

const loadRules = async (): Promise<AlertRule[]> => {
  const document = parse(await readFile(RULES_FILE, 'utf8'), { uniqueKeys: true }) as { groups?: { name?: unknown; rules?: AlertRule[] }[] };
  expect(Array.isArray(document.groups)).toBe(true);
  return (document.groups ?? []).flatMap((group) => {
    expect(typeof group.name).toBe('string');
    return group.rules ?? [];
  });
};

const loadDashboard = async (): Promise<{ panels: Panel[]; templating: { list: { query?: unknown }[] } }> =>
  JSON.parse(await readFile(DASHBOARD_FILE, 'utf8')) as { panels: Panel[]; templating: { list: { query?: unknown }[] } };

/** Every query panel of the dashboard, rows' nested panels included. */
const queryPanels = (panels: readonly Panel[]): Panel[] => panels.flatMap((panel) => (panel.type === 'row' ? queryPanels(panel.panels ?? []) : [panel]));

/** The metric names the dashboard queries: every panel target, and the template variables' `label_values(metric, label)`. */
const dashboardMetricNames = async (): Promise<Map<string, string>> => {
  const dashboard = await loadDashboard();
  const named = new Map<string, string>();
  for (const panel of queryPanels(dashboard.panels)) {
    for (const target of panel.targets ?? []) for (const name of promqlMetricNames(String(target.expr))) named.set(name, `panel "${panel.title ?? ''}"`);
  }
  for (const variable of dashboard.templating.list) {
    const query = variable.query as { query?: string } | string | undefined;
    const text = typeof query === 'string' ? query : query?.query;
    const labelValues = text === undefined ? undefined : /^label_values\((.+),\s*[a-zA-Z_]+\)$/.exec(text);
    if (labelValues?.[1] !== undefined) for (const name of promqlMetricNames(labelValues[1])) named.set(name, `variable query ${text}`);
  }
  return named;
};

describe('promqlMetricNames (the checker the monitoring tests rely on)', () => {
  it.each([
    ['vcsync_health_check{group="sync", check="informers"} == 0', ['vcsync_health_check']],
    ['sum by (instance, controller) (rate(vcsync_sync_operations_total{result=~"error|x"}[10m])) > 0', ['vcsync_sync_operations_total']],
    ['sum(rate(a_total[5m])) by (le) / ignoring (x) group_left (y) b offset 5m > 1e3', ['a_total', 'b']],
    ['histogram_quantile(0.99, sum by (le) (rate(c_bucket{i=~"$instance"}[$__rate_interval])))', ['c_bucket']],
    ['(time() - d > 600) and (d > 0) unless on (instance, job) (max by (instance, job) (e) == 0)', ['d', 'e']],
    ['absent(vcsync_build_info)', ['vcsync_build_info']],
    ['f{label="}{ [ ("} and g', ['f', 'g']],
  ])('%s → %j', (expression, names) => {
    expect(promqlMetricNames(expression)).toEqual(names);
  });
});

describe('config/monitoring: alert rules and the Grafana dashboard', () => {
  it('every alert rule has a unique name, expr, for, a severity and a summary and description', async () => {
    const rules = await loadRules();
    expect(rules.length).toBeGreaterThan(0);
    const names = rules.map((rule) => rule.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of rules) {
      const where = `alert ${String(rule.alert)}`;
      expect(typeof rule.alert, where).toBe('string');
      expect(typeof rule.expr === 'string' && rule.expr.trim() !== '', where).toBe(true);
      expect(String(rule.for), where).toMatch(/^\d+[smh]$/);
      expect(['critical', 'warning', 'info'], where).toContain(rule.labels?.severity);
      expect(typeof rule.annotations?.summary === 'string' && rule.annotations.summary !== '', where).toBe(true);
      expect(typeof rule.annotations?.description === 'string' && rule.annotations.description !== '', where).toBe(true);
      expect(promqlMetricNames(String(rule.expr)).length, where).toBeGreaterThan(0);
    }
  });

  it('alerts cover what an operator must act on: lost watches, sync errors, patch errors, leadership flapping, refused keys', async () => {
    const named = new Set((await loadRules()).flatMap((rule) => promqlMetricNames(String(rule.expr))));
    for (const metric of [
      'vcsync_health_check',
      'vcsync_watch_last_event_timestamp_seconds',
      'vcsync_sync_operations_total',
      'vcsync_patch_errors_total',
      'vcsync_leader_election_transitions_total',
      'vcsync_management_authentication_failures_total',
      'vcsync_config_reloads_total',
    ]) {
      expect(named, metric).toContain(metric);
    }
  });

  it('every dashboard panel has a query, and panel ids are unique', async () => {
    const dashboard = await loadDashboard();
    const panels = queryPanels(dashboard.panels);
    expect(panels.length).toBeGreaterThan(0);
    for (const panel of panels) expect(panel.targets?.length ?? 0, `panel ${panel.title ?? ''}`).toBeGreaterThan(0);
    const ids = dashboard.panels.map((panel) => (panel as { id?: number }).id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  describe('against the /metrics of a running daemon (syncer, leader election, management API)', () => {
    let clusters: TwoClusters;
    let dir: { dir: string; remove: () => Promise<void> };
    let daemon: SyncerDaemon | undefined;
    let exposition: string;
    let exposed: Set<string>;

    beforeAll(async () => {
      clusters = await startTwoClusters();
      dir = await tempDir('vcsync-monitoring-');
      const configPath = path.join(dir.dir, 'vcluster.yaml');
      await writeFile(configPath, 'sync:\n  toHost:\n    endpoints:\n      enabled: true\n');
      daemon = await startSyncerDaemon(clusters, configPath, {
        leaderElect: true,
        leaderElection: { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 100, maxRetryBackoffMs: 400 },
        management: { host: '127.0.0.1', port: 0, insecureHttp: true, bootstrapKeyPath: path.join(dir.dir, 'admin.key') },
        logger: silentLogger(),
      });
      const metricsUrl = daemon.metricsUrl;
      const scrape = async (): Promise<string> => (await fetch(`${metricsUrl}/metrics`)).text();
      // Leading, synced and serving the management API: every component has registered its metrics.
      await waitFor('the daemon to lead and sync', async () => {
        const text = await scrape();
        return metricSample(text, 'vcsync_leader_election_is_leader', {}) === 1 && (await fetch(`${metricsUrl}/syncz`)).status === 200 && text.includes('vcsync_management_authentication_failures_total');
      });
      exposition = await scrape();
      exposed = exposedSeriesNames(exposition);
    });

    afterAll(async () => {
      await daemon?.stop();
      await clusters.close();
      await dir.remove();
    });

    it('every metric an alert rule names is served', async () => {
      const missing = (await loadRules()).flatMap((rule) => promqlMetricNames(String(rule.expr)).filter((name) => !exposed.has(name)).map((name) => `${String(rule.alert)}: ${name}`));
      expect(missing).toEqual([]);
    });

    it('every metric a dashboard panel or variable queries is served', async () => {
      const named = await dashboardMetricNames();
      expect(named.size).toBeGreaterThan(0);
      const missing = [...named].filter(([name]) => !exposed.has(name)).map(([name, where]) => `${where}: ${name}`);
      expect(missing).toEqual([]);
    });

    it('every vcsync metric family served appears on the dashboard', async () => {
      const named = await dashboardMetricNames();
      const families = [...exposition.matchAll(/^# TYPE (vcsync_\S+) \S+$/gm)].map((match) => match[1] ?? '');
      const shown = (family: string): boolean => ['', '_bucket', '_sum', '_count'].some((suffix) => named.has(`${family}${suffix}`));
      expect(families.filter((family) => !shown(family))).toEqual([]);
    });
  });
});
