import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { Socket } from 'node:net';
import os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { parseConfig } from '../../src/config/index.js';
import { afterEach } from 'vitest';
import { isAlreadyExists } from '../../src/apimachinery/index.js';
import type { KubeObject, WatchEvent } from '../../src/kube/kube-object.js';
import type { Lease } from '../../src/kube/leader-elector.js';
import type { RestClient } from '../../src/kube/rest-client.js';
import { PatchSandbox } from '../../src/patches/index.js';
import { createHostPreview } from '../../src/syncer/host-preview.js';
import { SYNCABLE_RESOURCES } from '../../src/syncer/resources.js';
import { ANNOTATION_OBJECT_NAME, ANNOTATION_OBJECT_NAMESPACE, LABEL_MANAGED_BY } from '../../src/translate/keys.js';
import { stopProcess } from './devcluster-process.js';
import type { SeededRandom } from './seeded-random.js';
import { endpointsFixture, type Payload, type SyncedResourceFixture } from './synced-resource-fixtures.js';
import { VCSYNC_NODE_ARGS } from './vcsync-cli.js';
import { registryConfigSchema } from '../../src/syncer/resources.js';

/** Leader-election timing of a replica, in ms (the `--leader-elect-*-ms` flags). */
export interface LeaseTimings {
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

/** Short timings, so that a takeover happens within a test: lease 3 s, renew deadline 2 s, retry 0.5 s. */
export const SHORT_LEASE: LeaseTimings = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 };

/** One `vcsync start` replica in its own process (so that SIGKILL is a real crash). */
export interface Replica {
  readonly child: ChildProcessWithoutNullStreams;
  /** Its Lease holder identity (`<hostname>-<pid>`, as run-syncer names it). */
  readonly identity: string;
  /** Base URL of its metrics and health endpoint. */
  readonly metricsUrl: string;
  /** Base URL of its management API (plain HTTP), when it serves one. */
  readonly managementUrl: string | undefined;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
}

/** Options of {@link startReplica}. */
export interface StartReplicaOptions {
  configPath: string;
  virtualKubeconfigPath: string;
  hostKubeconfigPath: string;
  hostNamespace: string;
  timings: LeaseTimings;
  /** Serve the management API on an ephemeral port (plain HTTP), the bootstrap admin key in this file. Default off. */
  managementAdminKeyPath?: string;
  /** Further `vcsync start` flags. */
  args?: readonly string[];
}

/**
 * Spawns `vcsync start --name vc1` from dist/ with leader election on `timings`, test-sized rate
 * limits (host QPS 2000) and info logs, and resolves once its metrics endpoint (and, when asked
 * for, its management API) listens, at the URLs its log lines name; rejects if it exits first or
 * takes longer than 30 s.
 */
export function startReplica(options: StartReplicaOptions): Promise<Replica> {
  const { timings } = options;
  const args = [
    'start',
    '--name', 'vc1',
    '--config', options.configPath,
    '--virtual-kubeconfig', options.virtualKubeconfigPath,
    '--host-kubeconfig', options.hostKubeconfigPath,
    '--host-namespace', options.hostNamespace,
    '--listen-metrics', '127.0.0.1:0',
    '--host-qps', '2000',
    '--host-burst', '2000',
    '--workers', '16',
    '--leader-elect-lease-duration-ms', String(timings.leaseDurationMs),
    '--leader-elect-renew-deadline-ms', String(timings.renewDeadlineMs),
    '--leader-elect-retry-period-ms', String(timings.retryPeriodMs),
    '--log-level', 'info',
    ...(options.managementAdminKeyPath !== undefined ? ['--listen-management', '127.0.0.1:0', '--management-insecure-http', '--management-admin-key-file', options.managementAdminKeyPath] : []),
    ...(options.args ?? []),
  ];
  const child = spawn(process.execPath, [...VCSYNC_NODE_ARGS, ...args], { env: { ...process.env } });
  let errors = '';
  let pending = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`vcsync start did not listen within 30 s: ${errors}`));
    }, 30_000);
    let metricsUrl: string | undefined;
    let managementUrl: string | undefined;
    const onData = (chunk: Buffer): void => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        metricsUrl ??= urlOf(line, 'vcsync started', 'metrics');
        managementUrl ??= urlOf(line, 'Management API listening', 'url');
      }
      if (metricsUrl === undefined || (options.managementAdminKeyPath !== undefined && managementUrl === undefined)) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.stdout.resume(); // its logs are not read further
      resolve({ child, identity: `${os.hostname()}-${child.pid ?? 0}`, metricsUrl, managementUrl, stderr: () => errors });
    };
    child.stdout.on('data', onData);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`vcsync start exited (${code ?? signal}) before listening: ${errors}`));
    });
  });
}

/** The URL under `field` of a JSON log line whose message is `message`, else undefined. */
function urlOf(line: string, message: string, field: string): string | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const record = JSON.parse(line) as Record<string, unknown>;
    const url = record[field];
    return record.msg === message && typeof url === 'string' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Kills every replica still running (SIGKILL) and waits until each has exited. */
export async function stopReplicas(replicas: readonly Replica[]): Promise<void> {
  await Promise.all(replicas.map((replica) => stopProcess(replica.child)));
}

/**
 * Registers, in the calling `describe`, an `afterEach` that runs what the test handed to the
 * answered `defer` (stopping replicas, proxies, watches, clusters), the last deferred first.
 */
export function useTeardown(): (stop: () => unknown) => void {
  const stops: Array<() => unknown> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });
  return (stop) => {
    stops.push(stop);
  };
}

/** A watch whose events are recorded with the test's clock (`Date.now()` on arrival). */
export interface RecordingWatch<T extends KubeObject> {
  readonly events: ReadonlyArray<{ atMs: number; event: WatchEvent<T> }>;
  stop(): void;
}

/**
 * Watches `path` (from its current state: synthetic ADDED events first) and records every event
 * with the time it arrived. A watch the server ends is opened again from the last resourceVersion.
 */
export function recordWatch<T extends KubeObject>(client: RestClient, path: string, labelSelector?: string): RecordingWatch<T> {
  const events: Array<{ atMs: number; event: WatchEvent<T> }> = [];
  const abort = new AbortController();
  let resourceVersion: string | undefined;
  void (async () => {
    while (!abort.signal.aborted) {
      try {
        const stream = await client.watch<T>(path, {
          signal: abort.signal,
          ...(labelSelector !== undefined ? { labelSelector } : {}),
          ...(resourceVersion !== undefined ? { resourceVersion } : {}),
        });
        for await (const event of stream) {
          events.push({ atMs: Date.now(), event });
          if (event.type !== 'ERROR') resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
        }
      } catch {
        if (abort.signal.aborted) return;
        await new Promise((resolve) => setTimeout(resolve, 50)); // a pause before reopening the watch, not a wait for anything
      }
    }
  })();
  return { events, stop: () => abort.abort() };
}

/** The host side of an HA test as the test sees it: the Lease and the host copies, recorded. */
export interface HostRecording {
  leases: RecordingWatch<Lease>;
  hostCopies: RecordingWatch<KubeObject>;
  /** The Lease holder of the last Lease event (`''` before any). */
  holder(): string;
  stop(): void;
}

/** Records the Leases and the host copies (of `fixture`'s resource, default Endpoints) of `vc1` in `hostNamespace` (see {@link recordWatch}). */
export function recordHost(hostClient: RestClient, hostNamespace: string, fixture: SyncedResourceFixture = endpointsFixture): HostRecording {
  const leases = recordWatch<Lease>(hostClient, `/apis/coordination.k8s.io/v1/namespaces/${hostNamespace}/leases`);
  const hostCopies = recordWatch<KubeObject>(hostClient, fixture.collectionPath(hostNamespace), `${LABEL_MANAGED_BY}=vc1`);
  return {
    leases,
    hostCopies,
    holder: () => (leases.events.at(-1)?.event.object as Lease | undefined)?.spec?.holderIdentity ?? '',
    stop: () => {
      leases.stop();
      hostCopies.stop();
    },
  };
}

/** How the host namespace differs from what the virtual side requires. */
export interface HostDifferences {
  /** Virtual objects whose host copy is missing or not the expected translation. */
  lost: string[];
  /** For the first of `lost`: what differs (`missing`, or the parts: name, labels, annotations, body) with both values. */
  firstLost?: string;
  /** Host copies of this vcluster whose virtual source does not exist (or must not be synced). */
  orphaned: string[];
  /** Virtual objects with more than one host copy. */
  duplicated: string[];
  /** Host copies compared. */
  hostCopies: number;
  /** Virtual objects that should be on the host. */
  expected: number;
}

/**
 * Compares the host namespace with the translation of every virtual object of `fixture`'s resource
 * (default Endpoints) in `namespaces` (each has a selector-less Service, so each must be synced),
 * as `vcsync preview` computes it with the resource's default config: name, labels, annotations
 * (including the virtual uid) and the synced body (subsets; a slice's endpoints and ports).
 */
export async function compareHost(
  virtualClient: RestClient,
  hostClient: RestClient,
  hostNamespace: string,
  namespaces: readonly string[],
  fixture: SyncedResourceFixture = endpointsFixture,
): Promise<HostDifferences> {
  const parsed = parseConfig(fixture.configYaml(), 'vcluster.yaml', registryConfigSchema());
  if (!parsed.ok) throw new Error('the default sync config is invalid');
  const sandbox = new PatchSandbox();
  try {
    const built = createHostPreview(SYNCABLE_RESOURCES, { vclusterName: 'vc1', hostNamespace, config: parsed.config, sandbox });
    if (!built.ok) throw new Error('the default sync config has patch errors');
    const expected = new Map<string, KubeObject>();
    for (const namespace of namespaces) {
      const items = await fixture.list(virtualClient, namespace);
      for (const item of items) {
        const outcome = await built.preview.preview({ ...item, apiVersion: fixture.apiVersion, kind: fixture.kind });
        if (outcome.kind !== 'host') throw new Error(`cannot translate ${namespace}/${item.metadata?.name ?? ''}: ${outcome.kind === 'failed' ? outcome.message : 'skipped'}`);
        expected.set(`${namespace}/${item.metadata?.name ?? ''}`, outcome.object);
      }
    }
    const host = await fixture.list(hostClient, hostNamespace, `${LABEL_MANAGED_BY}=vc1`);
    const copies = new Map<string, KubeObject[]>();
    const orphaned: string[] = [];
    for (const copy of host) {
      const annotations = copy.metadata?.annotations ?? {};
      const source = `${annotations[ANNOTATION_OBJECT_NAMESPACE] ?? ''}/${annotations[ANNOTATION_OBJECT_NAME] ?? ''}`;
      if (!expected.has(source)) {
        orphaned.push(copy.metadata?.name ?? '');
        continue;
      }
      copies.set(source, [...(copies.get(source) ?? []), copy]);
    }
    const lost: string[] = [];
    const duplicated: string[] = [];
    let firstLost: string | undefined;
    for (const [key, want] of expected) {
      const found = copies.get(key) ?? [];
      if (found.length > 1) duplicated.push(key);
      const copy = found[0];
      const parts: Array<[string, unknown, unknown]> =
        copy === undefined
          ? []
          : [
              ['name', copy.metadata?.name, want.metadata?.name],
              ['labels', sorted(copy.metadata?.labels), sorted(want.metadata?.labels)],
              ['annotations', sorted(copy.metadata?.annotations), sorted(want.metadata?.annotations)],
              ['body', fixture.bodyOf(copy) ?? [], fixture.bodyOf(want) ?? []],
            ];
      // Deep equality, not JSON text: servers order an object's keys differently (a real server writes a slice port's protocol before its port).
      const differing = parts.filter(([, found, wanted]) => !isDeepStrictEqual(found, wanted));
      if (copy === undefined || differing.length > 0) {
        lost.push(key);
        firstLost ??=
          copy === undefined
            ? `${key}: host copy missing`
            : `${key}: ${differing.map(([part, found, wanted]) => `${part} ${JSON.stringify(found)} on the host, ${JSON.stringify(wanted)} expected`).join('; ')}`;
      }
    }
    return { lost, orphaned, duplicated, hostCopies: host.length, expected: expected.size, ...(firstLost !== undefined ? { firstLost } : {}) };
  } finally {
    sandbox.dispose();
  }
}

/**
 * A probe for `waitFor`: answers the comparison once {@link compareHost} finds no difference,
 * and throws one describing what still differs otherwise (which a timeout then reports).
 */
export function hostConverged(
  virtualClient: RestClient,
  hostClient: RestClient,
  hostNamespace: string,
  namespaces: readonly string[],
  fixture: SyncedResourceFixture = endpointsFixture,
): () => Promise<HostDifferences> {
  return async () => {
    const differences = await compareHost(virtualClient, hostClient, hostNamespace, namespaces, fixture);
    const { lost, orphaned, duplicated, firstLost } = differences;
    if (lost.length + orphaned.length + duplicated.length === 0) return differences;
    throw new Error(`${lost.length} lost, ${orphaned.length} orphaned (${orphaned.slice(0, 5).join(', ')}), ${duplicated.length} duplicated; ${firstLost ?? ''}`);
  };
}

/** How long the host of an HA test may take to converge after the last disturbance: a takeover, a cut, a restart. */
export const CONVERGENCE_TIMEOUT = { timeoutMs: 90_000, intervalMs: 500 } as const;

function sorted(map: Record<string, string> | undefined): Array<[string, string]> {
  return Object.entries(map ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Runs `tasks` with at most `limit` at once; rejects with the first failure. */
export async function runLimited(tasks: ReadonlyArray<() => Promise<void>>, limit: number): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < tasks.length) {
      const task = tasks[next] as () => Promise<void>;
      next += 1;
      await task();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, lane));
}

/** One request a {@link RecordingProxy} relayed, timed with the test's clock. */
export interface RelayedRequest {
  method: string;
  /** Path without the query. */
  path: string;
  /** When the request arrived at the proxy (`Date.now()`). */
  atMs: number;
  /** The upstream's HTTP status, once its answer arrived. */
  status?: number;
}

/** A pass-through HTTP proxy that logs every request it relays; see {@link startRecordingProxy}. */
export interface RecordingProxy {
  readonly url: string;
  readonly requests: readonly RelayedRequest[];
  close(): Promise<void>;
}

/**
 * Starts a plain-HTTP proxy on an ephemeral loopback port that relays everything to `upstream`
 * (an `http://` URL) and logs each request with its arrival time: what one replica sent to the
 * host, as the host's side of the wire sees it.
 */
export async function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const target = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true });
  const requests: RelayedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((request, response) => {
    const entry: RelayedRequest = { method: request.method ?? 'GET', path: new URL(request.url ?? '/', 'http://proxy').pathname, atMs: Date.now() };
    requests.push(entry);
    const outgoing = http.request({ agent, hostname: target.hostname, port: target.port, method: request.method, path: request.url, headers: { ...request.headers, host: target.host } });
    outgoing.on('response', (answer) => {
      entry.status = answer.statusCode;
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    outgoing.on('error', () => request.socket.destroy());
    request.pipe(outgoing);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the recording proxy has no TCP port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      await closed;
    },
  };
}

/** The namespace and name of workload object `index`: `ep-<index>`, spread over `namespaces`. */
export function workloadObject(index: number, namespaces: readonly string[]): { namespace: string; name: string } {
  return { namespace: namespaces[index % namespaces.length] as string, name: `ep-${index}` };
}

/** Creates the namespaces and, for objects `0 … objects-1`, a selector-less Service each: every object of the workload must be synced. */
export async function prepareWorkload(client: RestClient, namespaces: readonly string[], objects: number): Promise<void> {
  for (const namespace of namespaces) {
    try {
      await client.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }
  await runLimited(
    Array.from({ length: objects }, (_, index) => async () => {
      const { namespace, name } = workloadObject(index, namespaces);
      await client.create(`/api/v1/namespaces/${namespace}/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { ports: [{ port: 80 }] } });
    }),
    32,
  );
}

/** One change of a workload: each object's changes run in order (create, updates, maybe delete). */
type WorkloadChange = { kind: 'create' | 'update'; generation: number } | { kind: 'delete' };

/** Options of {@link runSyncWorkload}. */
export interface SyncWorkloadOptions {
  client: RestClient;
  /** The resource whose virtual objects change. Default Endpoints. */
  fixture?: SyncedResourceFixture;
  namespaces: readonly string[];
  /** Objects created, one per Service `ep-0 …` (which must exist: {@link prepareWorkload}). */
  objects: number;
  /** Updates, spread over the objects at random. */
  updates: number;
  /** Distinct objects deleted after their updates. */
  deletes: number;
  random: SeededRandom;
  /** Objects changed at once. Default 32. */
  concurrency?: number;
}

/** A running workload: `done` settles when every change was applied; `applied()` counts them so far. */
export interface RunningWorkload {
  readonly total: number;
  applied(): number;
  readonly done: Promise<void>;
}

/**
 * Applies `objects + updates + deletes` seeded changes to virtual objects of the fixture's resource,
 * many objects at once, each object's changes in order; every update changes the payload (a new IP
 * and port).
 */
export function runSyncWorkload(options: SyncWorkloadOptions): RunningWorkload {
  const { client, namespaces, objects, random } = options;
  const fixture = options.fixture ?? endpointsFixture;
  const changes: WorkloadChange[][] = Array.from({ length: objects }, () => [{ kind: 'create', generation: 0 }]);
  const deleted = new Set<number>();
  while (deleted.size < options.deletes) deleted.add(random.int(objects));
  for (let update = 0; update < options.updates; update += 1) {
    const list = changes[random.int(objects)] as WorkloadChange[];
    list.push({ kind: 'update', generation: list.length });
  }
  for (const index of deleted) (changes[index] as WorkloadChange[]).push({ kind: 'delete' });
  const payloadOf = (index: number, generation: number): Payload => ({
    ips: [`10.${generation % 250}.${Math.floor(index / 250) % 250}.${index % 250}`],
    port: 8000 + generation,
  });
  let applied = 0;
  const done = runLimited(
    changes.map((list, index) => async () => {
      const { namespace, name } = workloadObject(index, namespaces);
      const path = fixture.virtualPath(namespace, name);
      let current: KubeObject | undefined;
      for (const change of list) {
        if (change.kind === 'create') {
          current = await fixture.createVirtual(client, name, { namespace, payload: payloadOf(index, 0) });
        } else if (change.kind === 'update') {
          current = await client.update<KubeObject>(path, { ...(current as KubeObject), ...fixture.payloadPatch(payloadOf(index, change.generation)) });
        } else {
          await client.delete(path);
        }
        applied += 1;
      }
    }),
    options.concurrency ?? 32,
  );
  done.catch(() => undefined); // the caller awaits it; a failure must not go unhandled meanwhile
  return { total: changes.flat().length, applied: () => applied, done };
}

/**
 * Writes the config (the sync of `fixture`'s resource, default Endpoints, on without patches) and
 * the two kubeconfigs replicas read into `dir`; answers their paths.
 */
export async function writeReplicaFiles(
  dir: string,
  kubeconfigs: { virtual: string; host: string },
  fixture: SyncedResourceFixture = endpointsFixture,
): Promise<{ configPath: string; virtualKubeconfigPath: string; hostKubeconfigPath: string }> {
  const paths = { configPath: join(dir, 'vcluster.yaml'), virtualKubeconfigPath: join(dir, 'virtual.kubeconfig'), hostKubeconfigPath: join(dir, 'host.kubeconfig') };
  await Promise.all([writeFile(paths.configPath, fixture.configYaml()), writeFile(paths.virtualKubeconfigPath, kubeconfigs.virtual), writeFile(paths.hostKubeconfigPath, kubeconfigs.host)]);
  return paths;
}
