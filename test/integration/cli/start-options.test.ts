import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEndpoints, createService, getHostEndpoints, tempDir } from '../../support/endpoints-fixtures.js';
import { getOrUndefined, startTwoClusters, type TwoClusters } from '../../support/sync-harness.js';
import { assertBuilt, REPO_ROOT, runVcsync, VCSYNC_MAIN } from '../../support/vcsync-cli.js';
import { stopProcess } from '../../support/devcluster-process.js';
import { waitFor } from '../../support/wait-for.js';

/** The one line a usage error prints (commander may add a "Did you mean" hint line). */
const firstLine = (text: string): string => text.split('\n')[0] ?? '';

describe('vcsync start: every option is validated before any I/O', () => {
  beforeAll(() => assertBuilt(['src/cli', 'src/observe']));

  // A kubeconfig path that does not exist: reaching any I/O would fail differently (exit 1).
  const base = ['start', '--virtual-kubeconfig', '/nonexistent/virtual.kubeconfig', '--host-kubeconfig', '/nonexistent/host.kubeconfig', '--config', '/nonexistent/vcluster.yaml'];

  it.each([
    [['--name', 'vc', '--log-level', 'verbose'], {}, "option '--log-level <level>' argument 'verbose' is invalid. expected one of fatal, error, warn, info, debug, trace, silent"],
    [['--name', 'VC_1'], {}, "option '--name <name>' argument 'VC_1' is invalid. expected a DNS-1123 label"],
    [['--name', 'vc', '--host-namespace', 'Bad_NS'], {}, "option '--host-namespace <namespace>' argument 'Bad_NS' is invalid"],
    [['--name', 'vc', '--listen-metrics', 'localhost'], {}, "option '--listen-metrics <host:port>' argument 'localhost' is invalid. expected HOST:PORT, :PORT or PORT"],
    [['--name', 'vc', '--workers', '0'], {}, "option '--workers <n>' argument '0' is invalid. expected a positive integer"],
    [['--name', 'vc'], { VCSYNC_NO_LEADER_ELECT: 'no' }, "option '--no-leader-elect' value from env 'VCSYNC_NO_LEADER_ELECT' is invalid: expected true, false, 1 or 0, got \"no\""],
    [['--name', 'vc'], { VCSYNC_LOG_LEVEL: 'loud' }, "option '--log-level <level>' value 'loud' from env 'VCSYNC_LOG_LEVEL' is invalid"],
    [[], {}, "required option '--name <name>' not specified (or set VCSYNC_NAME)"],
    [['--name', 'vc', '--listen-management', 'localhost'], {}, "option '--listen-management <host:port>' argument 'localhost' is invalid. expected HOST:PORT, :PORT or PORT"],
    [['--name', 'vc', '--listen-management', ':9443', '--management-admin-key-file', '/tmp/k'], {}, '--listen-management needs --management-tls-cert and --management-tls-key'],
    [['--name', 'vc', '--listen-management', ':9443', '--management-insecure-http'], {}, '--listen-management needs --management-admin-key-file <file>'],
    [['--name', 'vc', '--management-insecure-http'], {}, 'the --management-* options need --listen-management <host:port> (VCSYNC_LISTEN_MANAGEMENT)'],
    [['--name', 'vc', '--leader-elect-retry-period-ms', '0'], {}, "option '--leader-elect-retry-period-ms <n>' argument '0' is invalid. expected a positive integer"],
    [['--name', 'vc', '--leader-elect-lease-duration-ms', '3000'], {}, '--leader-elect-renew-deadline-ms (10000) must be smaller than --leader-elect-lease-duration-ms (3000)'],
    [['--name', 'vc'], { VCSYNC_LEADER_ELECT_RETRY_PERIOD_MS: '10000' }, '--leader-elect-retry-period-ms (10000) must be smaller than --leader-elect-renew-deadline-ms (10000)'],
    [['--name', 'vc'], { VCSYNC_NO_HEAP_RECLAIM: 'off' }, "option '--no-heap-reclaim' value from env 'VCSYNC_NO_HEAP_RECLAIM' is invalid: expected true, false, 1 or 0, got \"off\""],
    [['--name', 'vc', '--listen-management', ':9443', '--management-insecure-http', '--management-admin-key-file', '/tmp/k', '--management-virtual-qps', '0'], {}, "option '--management-virtual-qps <n>' argument '0' is invalid. expected a positive number"],
    [['--name', 'vc', '--management-virtual-burst', '5'], {}, 'the --management-* options need --listen-management <host:port> (VCSYNC_LISTEN_MANAGEMENT)'],
    [['--name', 'vc'], { VCSYNC_MANAGEMENT_INSECURE_HTTP: 'maybe' }, "option '--management-insecure-http' value from env 'VCSYNC_MANAGEMENT_INSECURE_HTTP' is invalid"],
  ])('%j %j exits 2 with one line naming the option', async (args, env, message) => {
    const result = await runVcsync([...base, ...args], { env: { VCSYNC_NAME: undefined, ...env } });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(firstLine(result.stderr)).toContain(message);
  });

  it('reports an unknown option as unknown, before a missing required one', async () => {
    const result = await runVcsync(['start', '--nmae', 'vc'], { env: { VCSYNC_NAME: undefined, VCSYNC_VIRTUAL_KUBECONFIG: undefined } });
    expect(result.code).toBe(2);
    expect(firstLine(result.stderr)).toBe("vcsync start: unknown option '--nmae'");
    expect(result.stderr).toContain('Did you mean --name?');
  });

  it('prints its version (the package version) with --version', async () => {
    const result = await runVcsync(['--version']);
    expect(result.code).toBe(0);
    const { version } = (await import(join(REPO_ROOT, 'package.json'), { with: { type: 'json' } })).default as { version: string };
    expect(result.stdout.trim()).toBe(version);
  });

  it('runs from Node\'s startup snapshot (no --no-node-snapshot), its patch sandbox workers included', async () => {
    // Only the sandbox's worker processes load isolated-vm, and they are forked with the flag; a
    // preview with an expression patch runs one.
    const dir = await tempDir();
    try {
      const config = join(dir.dir, 'vcluster.yaml');
      await writeFile(config, ['sync:', '  toHost:', '    endpoints:', '      patches:', '        - path: metadata.annotations["team"]', '          expression: \'"team-" + value\''].join('\n'));
      const objects = join(dir.dir, 'objects.yaml');
      await writeFile(objects, 'apiVersion: v1\nkind: Service\nmetadata: {name: db, namespace: shop}\n---\napiVersion: v1\nkind: Endpoints\nmetadata: {name: db, namespace: shop, annotations: {team: a}}\n');
      const result = await runVcsync(['preview', '--config', config, '-f', objects, '--name', 'vc', '-o', 'jsonpath={.items[0].metadata.annotations.team}'], { nodeArgs: [VCSYNC_MAIN], env: { NODE_OPTIONS: '' } });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout.trim()).toBe('team-a');
    } finally {
      await dir.remove();
    }
  });
});

describe('vcsync start: VCSYNC_NO_LEADER_ELECT is parsed, not just noticed', () => {
  let clusters: TwoClusters;
  let dir: { dir: string; remove: () => Promise<void> };
  let child: ChildProcess | undefined;

  beforeAll(() => assertBuilt(['src/cli']));
  beforeEach(async () => {
    clusters = await startTwoClusters();
    dir = await tempDir('vcsync-start-options-');
    await writeFile(join(dir.dir, 'vcluster.yaml'), 'sync:\n  toHost:\n    endpoints:\n      enabled: true\n');
    await writeFile(join(dir.dir, 'virtual.kubeconfig'), clusters.virtual.kubeConfigYaml());
    await writeFile(join(dir.dir, 'host.kubeconfig'), clusters.host.kubeConfigYaml());
  });
  afterEach(async () => {
    if (child !== undefined) await stopProcess(child);
    child = undefined;
    await clusters.close();
    await dir.remove();
  });

  const startDaemon = (noLeaderElect: string): void => {
    child = spawn(VCSYNC_MAIN, ['start', '--name', 'vc1', '--host-namespace', clusters.hostNamespace, '--listen-metrics', '127.0.0.1:0'], {
      env: {
        ...process.env,
        VCSYNC_CONFIG: join(dir.dir, 'vcluster.yaml'),
        VCSYNC_VIRTUAL_KUBECONFIG: join(dir.dir, 'virtual.kubeconfig'),
        VCSYNC_HOST_KUBECONFIG: join(dir.dir, 'host.kubeconfig'),
        VCSYNC_NO_LEADER_ELECT: noLeaderElect,
        VCSYNC_LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
  };
  const leasePath = (): string => `/apis/coordination.k8s.io/v1/namespaces/${clusters.hostNamespace}/leases/vcsync-vc1`;
  const syncOne = async (): Promise<void> => {
    await createService(clusters.virtualClient, 'web');
    await createEndpoints(clusters.virtualClient, 'web');
    await waitFor('the host copy', () => getHostEndpoints(clusters.hostClient, clusters.hostNamespace, 'web'), { timeoutMs: 45_000 });
  };

  it('=false keeps leader election on: the daemon takes its Lease before it syncs', async () => {
    startDaemon('false');
    await syncOne();
    const lease = await getOrUndefined<{ spec?: { holderIdentity?: string } }>(clusters.hostClient, leasePath());
    expect(lease?.spec?.holderIdentity).toMatch(/.+/);
  });

  it('=1 turns it off: the daemon syncs and never creates a Lease', async () => {
    startDaemon('1');
    await syncOne();
    expect(await getOrUndefined(clusters.hostClient, leasePath())).toBeUndefined();
  });
});
