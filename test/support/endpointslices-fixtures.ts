import { Registry } from 'prom-client';
import { parseConfig } from '../../src/config/index.js';
import { EventRecorder } from '../../src/kube/event-recorder.js';
import { isNotFound } from '../../src/apimachinery/index.js';
import { KubeMetrics } from '../../src/kube/metrics.js';
import type { RestClient } from '../../src/kube/rest-client.js';
import { silentLogger, type Logger } from '../../src/observe/logger.js';
import { PatchSandbox } from '../../src/patches/index.js';
import type { EndpointSlice, SliceEndpoint, SlicePort } from '../../src/syncer/endpointslices/endpointslice-types.js';
import { endpointSlicesConfigSection } from '../../src/syncer/endpointslices/config-section.js';
import { endpointSlicesDefinition } from '../../src/syncer/endpointslices/endpointslices-definition.js';
import { registryConfigSchema } from '../../src/syncer/resources.js';
import { buildSectionSyncState, type SyncState } from '../../src/syncer/sync-state.js';
import type { VclusterConfig } from '../../src/config/schema.js';
import { LABEL_SERVICE_NAME } from '../../src/syncer/endpointslices/slice-keys.js';
import { ReferenceImporter } from '../../src/syncer/reference-importer.js';
import type { EventSink } from '../../src/syncer/to-host-controller.js';
import { getOrUndefined, runToHostSyncer, type HarnessSyncer, type RunningSyncer, type SyncClusters } from './sync-harness.js';

/** Collection path of EndpointSlices in `namespace`. */
export function slicesPath(namespace: string): string {
  return `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`;
}

/** Path of EndpointSlice `name` in `namespace`. */
export function slicePath(namespace: string, name: string): string {
  return `${slicesPath(namespace)}/${name}`;
}

/** One ready endpoint at `ip`. */
export function readyEndpoint(ip: string, extra: Partial<SliceEndpoint> = {}): SliceEndpoint {
  return { addresses: [ip], conditions: { ready: true }, ...extra };
}

/** Options of {@link createSlice}. */
export interface CreateSliceOptions {
  namespace?: string;
  /** The Service the slice belongs to (its `kubernetes.io/service-name` label); `null` leaves the label out. Default: the slice's name. */
  service?: string | null;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  addressType?: string;
  endpoints?: SliceEndpoint[];
  ports?: SlicePort[];
}

/** Creates a virtual EndpointSlice `name` (IPv4, one ready endpoint 10.0.0.1, port 8080 by default). */
export function createSlice(client: RestClient, name: string, options: CreateSliceOptions = {}): Promise<EndpointSlice> {
  const namespace = options.namespace ?? 'default';
  const service = options.service === undefined ? name : options.service;
  const labels = { ...(service !== null ? { [LABEL_SERVICE_NAME]: service } : {}), ...options.labels };
  return client.create<EndpointSlice>(slicesPath(namespace), {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name,
      namespace,
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ...(options.annotations !== undefined ? { annotations: options.annotations } : {}),
    },
    addressType: options.addressType ?? 'IPv4',
    endpoints: options.endpoints ?? [readyEndpoint('10.0.0.1')],
    ports: options.ports ?? [{ name: 'http', port: 8080, protocol: 'TCP' }],
  });
}

/** The host copy of virtual slice `namespace/name` named `hostName` (or undefined). */
export function getHostSlice(client: RestClient, hostNamespace: string, hostName: string): Promise<EndpointSlice | undefined> {
  return getOrUndefined<EndpointSlice>(client, slicePath(hostNamespace, hostName));
}

/** Every EndpointSlice in `namespace`. */
export async function listSlices(client: RestClient, namespace: string): Promise<EndpointSlice[]> {
  return (await client.list<EndpointSlice>(slicesPath(namespace))).items;
}

/**
 * Deletes the EndpointSlices tests made in `namespaces` of a (real, shared) virtual cluster, so the
 * next test of the file starts without them; the API server's own `default/kubernetes` stays.
 */
export async function deleteTestSlices(client: RestClient, namespaces: readonly string[] = ['default']): Promise<void> {
  for (const namespace of namespaces) {
    const slices = (await listSlices(client, namespace)).filter((s) => !(namespace === 'default' && s.metadata?.name === 'kubernetes'));
    for (const slice of slices) {
      try {
        await client.delete(slicePath(namespace, slice.metadata?.name ?? ''));
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
  }
}

/** Options of {@link startEndpointSlicesSyncer}. */
export interface StartSlicesSyncerOptions {
  /** Default `vc1`. */
  vclusterName?: string;
  /** The vcluster.yaml text. Default: EndpointSlices sync on, no patches. */
  configYaml?: string;
  /** `'recorder'` records SyncError events on the virtual cluster (readable through the API). Default: dropped. */
  events?: 'recorder' | EventSink;
  /** Default silent. */
  logger?: Logger;
  /** Import the objects `reference` patches point at (as the daemon does). Default: references are only rewritten. */
  importReferences?: boolean;
}

/** A running EndpointSlices syncer; `stop()` aborts it and waits until it has drained. Idempotent. */
export interface RunningSlicesSyncer {
  readonly syncer: HarnessSyncer<EndpointSlice>;
  readonly registry: Registry;
  /** Swaps in the state of another vcluster.yaml text, as a reload of the config file does. */
  reload(configYaml: string): void;
  stop(): Promise<void>;
}

/** EndpointSlices sync on, no patches. */
export const DEFAULT_SLICES_CONFIG = 'sync:\n  toHost:\n    endpointSlices:\n      enabled: true\n';

/**
 * Builds the EndpointSlices syncer between `clusters` as the daemon does (config → sync state →
 * the resource's syncer on shared informers), runs it, and resolves once its caches have listed.
 */
export async function startEndpointSlicesSyncer(clusters: SyncClusters, options: StartSlicesSyncerOptions = {}): Promise<RunningSlicesSyncer> {
  const vclusterName = options.vclusterName ?? 'vc1';
  const schema = registryConfigSchema();
  const parsed = parseConfig(options.configYaml ?? DEFAULT_SLICES_CONFIG, 'vcluster.yaml', schema);
  if (!parsed.ok) throw new Error(`test config is invalid: ${JSON.stringify(parsed.errors)}`);
  const sandbox = new PatchSandbox();
  const buildState = (config: VclusterConfig): SyncState => {
    const built = buildSectionSyncState({ vclusterName, hostNamespace: clusters.hostNamespace, config, sandbox }, endpointSlicesConfigSection);
    if (!built.ok) throw new Error(`test patches are invalid: ${built.errors.map((error) => error.message).join('; ')}`);
    return built.state;
  };
  const registry = new Registry();
  const kubeMetrics = new KubeMetrics(registry);
  const logger = options.logger ?? silentLogger();
  const recorder =
    options.events === 'recorder' ? new EventRecorder({ client: clusters.virtualClient, component: 'vcsync', metrics: kubeMetrics }) : undefined;
  const events: EventSink =
    recorder !== undefined
      ? { warning: (object, reason, message) => recorder.record(object, 'Warning', reason, message) }
      : typeof options.events === 'object'
        ? options.events
        : { warning: () => undefined };
  let running: RunningSyncer<EndpointSlice>;
  try {
    running = await runToHostSyncer(clusters, endpointSlicesDefinition, {
      state: buildState(parsed.config),
      vclusterName,
      hostWatchNamespace: parsed.config.sync.toHost.namespaces.enabled ? '' : clusters.hostNamespace,
      events,
      name: 'endpointslices',
      registry,
      kubeMetrics,
      logger,
      ...(options.importReferences === true
        ? { importer: new ReferenceImporter({ virtualClient: clusters.virtualClient, hostClient: clusters.hostClient, logger }) }
        : {}),
    });
  } catch (error) {
    sandbox.dispose();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      try {
        await running.stop();
        await recorder?.flush();
      } finally {
        sandbox.dispose();
      }
    })();
    return stopping;
  };
  const reload = (configYaml: string): void => {
    const next = parseConfig(configYaml, 'vcluster.yaml', schema);
    if (!next.ok) throw new Error(`test config is invalid: ${JSON.stringify(next.errors)}`);
    running.syncer.updateState(buildState(next.config));
  };
  return { syncer: running.syncer, registry, reload, stop };
}
