import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTlsAssets } from '#vcsync/apiserver/security/tls-assets.js';
import { buildKubeConfig, kubeConfigYaml } from '#vcsync/devcluster/kube-config.js';
import { loadClusterConfig } from '#vcsync/kube/kube-config.js';
import type { KubeObject } from '#vcsync/kube/kube-object.js';
import { RestClient } from '#vcsync/kube/rest-client.js';
import { FAULT_KINDS, startFaultProxy, type FaultKind, type FaultProxy, type FaultRule } from '../fault-proxy.js';
import { freePorts } from '../free-ports.js';
import { startRealControlPlane } from '../real-control-plane.js';
import { SeededRandom } from '../seeded-random.js';
import { DurableDevcluster, VcsyncProcess } from './chaos-processes.js';
import { ChaosWorkload, HOST_OWNER_LABEL, type OperationKind } from './chaos-workload.js';
import { callManagementApi, OWNED_ACCESS_KEYS_PATH } from './management-calls.js';
import { expectedHostObjects, hostDifferences, type SyncedFields } from './host-expectations.js';

/** Options of {@link runChaos}. */
export interface ChaosOptions {
  /** Seeds the workload and both proxies' fault decisions. */
  seed: number;
  /** Operations of the workload. */
  operations: number;
  /** Fraction of requests faulted on each side (vcsync → virtual, vcsync → host), e.g. 0.05. */
  faultRate: number;
  /** API-server restarts (SIGTERM, same port and data dir), alternating host and virtual. */
  apiServerRestarts: number;
  /** vcsync restarts, alternating SIGTERM and SIGKILL. */
  vcsyncRestarts: number;
  /** Names per virtual namespace (two namespaces). Default 40. */
  namesPerNamespace?: number;
  /** How long to wait for convergence after faults stop, ms. Default 60 000. */
  convergenceTimeoutMs?: number;
  /**
   * The host API server: a devcluster process (`--data-dir`, restarted on its port), or the real
   * etcd + kube-apiserver of the kube-assets (VCSYNC_KUBE_ASSETS; kube-apiserver restarted, etcd
   * kept). Default devcluster. The virtual side is always a devcluster.
   */
  host?: 'devcluster' | 'real';
  /** Keep every process's output here (vcsync at debug level): `vcsync.log`, `virtual.log`, `host.log`. Default none. */
  logDir?: string;
  /** Progress lines (one per restart and phase). Default none. */
  log?: (line: string) => void;
}

/** What a chaos run did and found. */
export interface ChaosReport {
  seed: number;
  operations: { total: number; byKind: Record<OperationKind, number> };
  faults: { virtual: Record<FaultKind | 'partition', number>; host: Record<FaultKind | 'partition', number>; total: number };
  restarts: { apiServer: number; vcsyncTerm: number; vcsyncKill: number };
  /** From the moment faults stopped (workload done, every restart over) until the host matched, s. */
  convergenceSeconds: number | undefined;
  /** Every way the end state differs from what the operations require (host copies, virtual objects, keys, token reviews). */
  differences: string[];
  /** Endpoints the host must hold at the end. */
  expectedHostObjects: number;
  /** Host copies labelled on the host during the run (their label must flow back or stay). */
  hostLabelsSet: number;
  /** The workload's merge patches answered 409 (the server's retries lost to concurrent writes) and sent again. */
  patchConflicts: number;
  durationSeconds: number;
}

const VCLUSTER = 'vc1';
const HOST_NAMESPACE = 'vcluster-vc1';
const NAMESPACES = ['default', 'team'] as const;
const CONFIG = 'sync:\n  toHost:\n    endpoints:\n      enabled: true\n';
const MANAGEMENT_BASE = '/kubernetes/management';

/**
 * The fault rules of one side at `rate`: the non-watch faults share the rate; watches, a few
 * requests that last minutes, are faulted at 5 × the rate each kind (a cut, 410 or stall ends the
 * watch, so the next one is another draw).
 */
export function chaosRules(rate: number): FaultRule[] {
  const requests: FaultKind[] = ['close', 'drop-response', 'delay', 'throttle', 'error-500', 'error-503', 'stall'];
  const watchRate = Math.min(1, rate * 5);
  return [
    { fault: 'cut-watch', probability: watchRate, match: { watch: true }, cutAfterMs: 3_000 },
    { fault: 'gone', probability: watchRate, match: { watch: true } },
    { fault: 'stall', probability: watchRate, match: { watch: true }, stallMs: 3_000 },
    ...requests.map((fault): FaultRule => ({ fault, probability: rate / requests.length, match: { watch: false }, delayMs: 300, retryAfterSeconds: 1, stallMs: 1_500 })),
  ];
}

function clientOf(url: string, name: string): RestClient {
  return new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: buildKubeConfig({ name, server: url }) }, { name }), qps: Infinity });
}

/** An API server of the run: restartable, with an admin client (direct, no faults). */
interface ChaosApiServer {
  readonly name: string;
  readonly url: string;
  /** What the fault proxy presents to an HTTPS server. */
  readonly upstreamTls?: { ca: string; cert: string; key: string };
  client(): RestClient;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function devclusterServer(name: string, dir: string, logFile: string | undefined): Promise<ChaosApiServer> {
  const server = new DurableDevcluster(name, join(dir, `${name}-data`), logFile);
  await server.start();
  return { name, get url() { return server.url; }, client: () => clientOf(server.url, `chaos-${name}`), restart: () => server.restart('SIGTERM'), stop: () => server.stop() };
}

async function realServer(): Promise<ChaosApiServer> {
  const plane = await startRealControlPlane();
  return {
    name: 'host (kube-apiserver)',
    url: plane.url,
    upstreamTls: { ca: plane.tls.caCertPem, cert: plane.tls.adminCertPem, key: plane.tls.adminKeyPem },
    client: () => new RestClient({ cluster: loadClusterConfig({ kind: 'object', config: plane.kubeconfig }, { name: 'chaos-real-host' }), qps: Infinity }),
    restart: () => plane.restartApiserver(),
    stop: () => plane.close(),
  };
}

/** The operation indexes (in 1..operations-1) at which `count` events happen, evenly spread, shifted by `offset` of a gap. */
function spread(count: number, operations: number, offset: number): number[] {
  const gap = operations / (count + 1);
  return Array.from({ length: count }, (_, index) => Math.max(1, Math.floor(gap * (index + 1) + gap * offset)));
}

/**
 * One chaos run: a virtual and a host devcluster (`--data-dir`, restartable), a fault
 * proxy in front of each, a spawned `vcsync start` (leader election off, management API on)
 * talking to the proxies; a seeded workload of `operations` (Endpoints and Services on the
 * virtual side, access keys and token reviews on the management API) with API-server and vcsync
 * restarts spread over it; then faults stop, and the host must match the translation of the
 * virtual side (`vcsync preview`: the syncer's own translation and patches) and the key store the
 * operations applied, within the convergence deadline. Needs the build (dist/). Stops everything
 * it started, whatever happens.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const log = options.log ?? ((): void => undefined);
  const dir = await mkdtemp(join(tmpdir(), 'vcsync-chaos-'));
  const logFile = (name: string): string | undefined => (options.logDir !== undefined ? join(options.logDir, `${name}.log`) : undefined);
  const servers: ChaosApiServer[] = [];
  const proxies: FaultProxy[] = [];
  const clients: RestClient[] = [];
  let vcsync: VcsyncProcess | undefined;
  let vcsyncStarting: Promise<void> | undefined;
  let keepData = true;
  try {
    const startups = await Promise.allSettled([devclusterServer('virtual', dir, logFile('virtual')), options.host === 'real' ? realServer() : devclusterServer('host', dir, logFile('host'))]);
    for (const outcome of startups) if (outcome.status === 'fulfilled') servers.push(outcome.value);
    const failed = startups.find((outcome) => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    const [virtual, host] = servers as [ChaosApiServer, ChaosApiServer];
    const virtualClient = virtual.client();
    const hostClient = host.client();
    clients.push(virtualClient, hostClient);
    await hostClient.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: HOST_NAMESPACE } });
    await virtualClient.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } });

    const virtualProxy = await startFaultProxy({ upstream: virtual.url, random: new SeededRandom(options.seed ^ 0x5eed01) });
    const hostProxy = await startFaultProxy({ upstream: host.url, random: new SeededRandom(options.seed ^ 0x5eed02), ...(host.upstreamTls !== undefined ? { upstreamTls: host.upstreamTls } : {}) });
    proxies.push(virtualProxy, hostProxy);
    const files = {
      config: join(dir, 'vcluster.yaml'),
      virtual: join(dir, 'virtual.kubeconfig'),
      host: join(dir, 'host.kubeconfig'),
      adminKey: join(dir, 'admin.key'),
    };
    await writeFile(files.config, CONFIG);
    await writeFile(files.virtual, kubeConfigYaml(buildKubeConfig({ name: 'virtual', server: virtualProxy.url })));
    await writeFile(files.host, kubeConfigYaml(buildKubeConfig({ name: 'host', server: hostProxy.url })));
    const tls = await ensureTlsAssets(join(dir, 'tls'), { serverName: 'vcsync-management' });
    const [managementPort] = await freePorts(1);
    const target = { baseUrl: `https://127.0.0.1:${managementPort}${MANAGEMENT_BASE}`, caPem: tls.caCertPem };
    let adminKey = '';

    const startVcsync = async (): Promise<void> => {
      const child = new VcsyncProcess('vcsync', [
        'start',
        '--config', files.config,
        '--name', VCLUSTER,
        '--host-namespace', HOST_NAMESPACE,
        '--virtual-kubeconfig', files.virtual,
        '--host-kubeconfig', files.host,
        '--listen-metrics', '127.0.0.1:0',
        '--listen-management', `127.0.0.1:${managementPort}`,
        '--management-tls-cert', tls.serverCertPath,
        '--management-tls-key', tls.serverKeyPath,
        '--management-admin-key-file', files.adminKey,
        '--no-leader-elect',
        '--host-qps', '200',
        '--host-burst', '400',
      ], { logFile: logFile('vcsync') });
      vcsync = child;
      const deadline = Date.now() + 90_000;
      for (;;) {
        if (child.exited) throw new Error(`vcsync exited while starting: ${child.output()}`);
        // Any HTTP answer (401 without a key) means it listens.
        const answered = await callManagementApi(target, 'GET', '/version').then(
          () => true,
          () => false,
        );
        if (answered) break;
        if (Date.now() > deadline) throw new Error(`vcsync's management API did not answer within 90 s: ${child.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      if (adminKey === '') adminKey = (await readFile(files.adminKey, 'utf8')).trim();
    };
    await startVcsync();
    log(`chaos seed ${options.seed}: ${options.operations} operations, faults ${options.faultRate * 100}% on both sides, ${options.apiServerRestarts} API-server and ${options.vcsyncRestarts} vcsync restarts`);

    const workload = new ChaosWorkload({
      random: new SeededRandom(options.seed),
      virtual: virtualClient,
      management: {
        call: async (method, path, callOptions) => {
          // While vcsync restarts, calls wait for it (a refused connection would only be retried).
          await vcsyncStarting;
          return callManagementApi(target, method, path, callOptions);
        },
        adminKey: () => adminKey,
      },
      host: { client: hostClient, namespace: HOST_NAMESPACE },
      namespaces: NAMESPACES,
      namesPerNamespace: options.namesPerNamespace ?? 40,
      retryForMs: 120_000,
    });
    virtualProxy.setRules(chaosRules(options.faultRate));
    hostProxy.setRules(chaosRules(options.faultRate));

    const apiRestartsAt = spread(options.apiServerRestarts, options.operations, 0);
    const vcsyncRestartsAt = spread(options.vcsyncRestarts, options.operations, 0.5);
    const restarts = { apiServer: 0, vcsyncTerm: 0, vcsyncKill: 0 };
    for (let index = 0; index < options.operations; index += 1) {
      for (let due = apiRestartsAt.filter((at) => at === index).length; due > 0; due -= 1) {
        const side = restarts.apiServer % 2 === 0 ? host : virtual;
        log(`operation ${index}: restarting the ${side.name} API server`);
        await side.restart();
        restarts.apiServer += 1;
      }
      for (let due = vcsyncRestartsAt.filter((at) => at === index).length; due > 0; due -= 1) {
        const signal = (restarts.vcsyncTerm + restarts.vcsyncKill) % 2 === 0 ? 'SIGTERM' : 'SIGKILL';
        log(`operation ${index}: restarting vcsync (${signal})`);
        await vcsync?.stop(signal);
        if (signal === 'SIGTERM') restarts.vcsyncTerm += 1;
        else restarts.vcsyncKill += 1;
        // The virtual side keeps changing while vcsync starts again.
        vcsyncStarting = startVcsync();
      }
      await workload.step();
    }
    await vcsyncStarting;

    for (const proxy of proxies) {
      proxy.setRules([]);
      proxy.heal();
    }
    const faultsStopped = Date.now();
    log(`workload done; faults stopped; waiting for convergence`);
    const readHost = async (): Promise<Map<string, SyncedFields>> => {
      const list = await hostClient.list<KubeObject>(`/api/v1/namespaces/${HOST_NAMESPACE}/endpoints`);
      return new Map(list.items.map((item) => [item.metadata?.name ?? '', item as SyncedFields]));
    };
    const convergenceDeadline = faultsStopped + (options.convergenceTimeoutMs ?? 60_000);
    let hostDiff: string[] = [];
    let expected = new Map<string, SyncedFields>();
    let convergenceSeconds: number | undefined;
    for (;;) {
      // Read again each time: host labels may still be flowing back into the virtual objects.
      expected = await expectedHostObjects({ virtual: virtualClient, namespaces: NAMESPACES, configPath: files.config, vclusterName: VCLUSTER, hostNamespace: HOST_NAMESPACE, dir });
      const actual = await readHost();
      hostDiff = [...hostDifferences(expected, actual, [HOST_OWNER_LABEL]), ...lostHostLabels(workload, actual)];
      if (hostDiff.length === 0) {
        convergenceSeconds = (Date.now() - faultsStopped) / 1000;
        break;
      }
      if (Date.now() > convergenceDeadline) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    log(convergenceSeconds !== undefined ? `converged in ${convergenceSeconds.toFixed(2)} s` : `not converged: ${hostDiff.length} differences`);

    const differences = [
      ...hostDiff,
      ...(await virtualDifferences(virtualClient, workload)),
      ...(await keyDifferences(workload, (path) => callManagementApi(target, 'GET', path, { key: adminKey }))),
      ...workload.reviewMismatches,
    ];
    keepData = differences.length > 0;
    const counts = { virtual: virtualProxy.counts(), host: hostProxy.counts() };
    const total = FAULT_KINDS.reduce((sum, kind) => sum + counts.virtual[kind] + counts.host[kind], 0);
    return {
      seed: options.seed,
      operations: { total: options.operations, byKind: { ...workload.counts } },
      faults: { ...counts, total },
      restarts,
      convergenceSeconds,
      differences,
      expectedHostObjects: expected.size,
      hostLabelsSet: workload.hostLabelsSet,
      patchConflicts: workload.patchConflicts,
      durationSeconds: (Date.now() - started) / 1000,
    };
  } finally {
    await vcsyncStarting?.catch(() => undefined);
    // Read by the caller's error, if any: a vcsync that died says why.
    await vcsync?.stop('SIGTERM');
    for (const client of clients) client.close();
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await Promise.all(servers.map((server) => server.stop()));
    // With a log dir, a run that found differences keeps its data dirs for a look.
    if (options.logDir !== undefined && keepData) log(`data dirs kept in ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Host copies that someone labelled with {@link HOST_OWNER_LABEL} and that lost it: whether the
 * label flowed back into the virtual object or stayed a host-only label, nobody removed it.
 */
function lostHostLabels(workload: ChaosWorkload, actual: ReadonlyMap<string, SyncedFields>): string[] {
  const lost: string[] = [];
  for (const entry of workload.virtualEntries.values()) {
    if (!entry.hostLabelled) continue;
    const copy = [...actual.values()].find(
      (item) => item.metadata?.annotations?.['vcluster.loft.sh/object-name'] === entry.name && item.metadata.annotations['vcluster.loft.sh/object-namespace'] === entry.namespace,
    );
    if (copy?.metadata?.labels?.[HOST_OWNER_LABEL] === undefined) lost.push(`host copy of ${entry.namespace}/${entry.name}: the ${HOST_OWNER_LABEL} label set on the host is gone`);
  }
  return lost;
}

/** Where the virtual side differs from what the workload's operations left (an acknowledged write lost across a restart, say). */
async function virtualDifferences(client: RestClient, workload: ChaosWorkload): Promise<string[]> {
  const differences: string[] = [];
  for (const namespace of NAMESPACES) {
    const [endpoints, services] = await Promise.all([
      client.list<KubeObject & { subsets?: Array<{ addresses?: Array<{ ip: string }> }> }>(`/api/v1/namespaces/${namespace}/endpoints`),
      client.list<KubeObject & { spec?: { selector?: Record<string, string> } }>(`/api/v1/namespaces/${namespace}/services`),
    ]);
    const endpointsByName = new Map(endpoints.items.map((item) => [item.metadata?.name, item]));
    const servicesByName = new Map(services.items.map((item) => [item.metadata?.name, item]));
    for (const entry of workload.virtualEntries.values()) {
      if (entry.namespace !== namespace) continue;
      const where = `virtual ${namespace}/${entry.name}`;
      const service = servicesByName.get(entry.name);
      const serviceState = service === undefined ? 'none' : service.spec?.selector !== undefined && Object.keys(service.spec.selector).length > 0 ? 'selector' : 'plain';
      if (serviceState !== entry.service) differences.push(`${where}: Service is ${serviceState}, the operations left it ${entry.service}`);
      const found = endpointsByName.get(entry.name);
      const ip = found?.subsets?.[0]?.addresses?.[0]?.ip;
      const label = found?.metadata?.labels?.['chaos'];
      if (entry.endpoints === undefined && found !== undefined) differences.push(`${where}: Endpoints exist, the operations deleted them`);
      if (entry.endpoints !== undefined && (ip !== entry.endpoints.ip || label !== entry.endpoints.label)) {
        differences.push(`${where}: Endpoints ${found === undefined ? 'missing' : `${ip} ${label}`}, the operations left ${entry.endpoints.ip} ${entry.endpoints.label}`);
      }
    }
  }
  return differences;
}

/** Where the key store differs from the operations: keys listed, their disabled flags, and token reviews of every key whose value is known. */
async function keyDifferences(workload: ChaosWorkload, get: (path: string) => Promise<{ status: number; body: unknown }>): Promise<string[]> {
  const differences: string[] = [];
  const listed = await get(OWNED_ACCESS_KEYS_PATH);
  if (listed.status !== 200) return [`listing the keys answered ${listed.status}: ${JSON.stringify(listed.body)}`];
  const items = (listed.body as { items: Array<{ metadata: { name: string }; spec: { disabled?: boolean } }> }).items;
  const stored = new Map(items.filter((item) => item.metadata.name.startsWith('chaos-key-')).map((item) => [item.metadata.name, item.spec.disabled === true]));
  for (const [name, key] of workload.keys) {
    const disabled = stored.get(name);
    if (key.state === 'deleted' && disabled !== undefined) differences.push(`key ${name}: stored, the operations deleted it`);
    if (key.state !== 'deleted' && disabled === undefined) differences.push(`key ${name}: missing, the operations left it ${key.state}`);
    if (key.state !== 'deleted' && disabled !== undefined && disabled !== (key.state === 'disabled')) differences.push(`key ${name}: disabled is ${disabled}, the operations left it ${key.state}`);
    if (key.value !== undefined) {
      const authenticated = await workload.reviewToken(key.value, `review the key ${name}`);
      if (authenticated !== (key.state === 'enabled')) differences.push(`key ${name} (${key.state}): the token review answered authenticated: ${authenticated}`);
    }
  }
  for (const name of stored.keys()) if (!workload.keys.has(name)) differences.push(`key ${name}: stored, no operation created it`);
  return differences;
}
