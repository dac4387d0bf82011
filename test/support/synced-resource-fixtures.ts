import type { KubeObject } from '../../src/kube/kube-object.js';
import type { RestClient } from '../../src/kube/rest-client.js';
import type { EndpointSubset, Endpoints } from '../../src/syncer/endpoints/endpoints-types.js';
import { endpointsPath, hostName } from './endpoints-fixtures.js';
import { getOrUndefined, type SyncBackends } from './sync-harness.js';

/**
 * What a test puts into a synced object, whatever the resource: ready addresses on one TCP port,
 * each optionally backed by a Pod of the object's namespace (a `targetRef` of kind Pod).
 */
export interface Payload {
  /** Ready addresses, in order. */
  ips: readonly string[];
  port: number;
  /** The Pod behind each address (same order), by name; absent: no targetRefs. */
  pods?: readonly string[];
}

/** One ready address (`ip`) on `port` (default 8080), no Pod behind it. */
export function payload(ip: string, port = 8080): Payload {
  return { ips: [ip], port };
}

/** A Pod an address points at, as read back from an object: `namespace/name`. */
export type PodRef = `${string}/${string}`;

/** Options of {@link SyncedResourceFixture.createVirtual}. */
export interface CreateVirtualOptions {
  /** Default `default`. */
  namespace?: string;
  /** The object's name. Default: the fixture's name for Service `service`'s object ({@link SyncedResourceFixture.objectName}). */
  name?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** Default `payload('10.0.0.1')`. */
  payload?: Payload;
}

/**
 * How the syncer suites drive one synced resource. Tests name an object by its Service (`web`):
 * Endpoints carry their Service's name, an EndpointSlice is found by its
 * `kubernetes.io/service-name` label and has a name of its own, which the fixture derives.
 */
export interface SyncedResourceFixture {
  /** For test titles: `Endpoints`, `EndpointSlices`. */
  readonly resource: string;
  /** Its name in the registry of syncable resources (metrics' `controller` label, queue, logs). */
  readonly syncerName: string;
  /** `kind` of its objects (events' involvedObject, error messages). */
  readonly kind: string;
  /** `apiVersion` of its objects. */
  readonly apiVersion: string;
  /** Its section under `sync.toHost` in vcluster.yaml. */
  readonly configSection: string;
  /** The name of its virtual informer (the `informer` label of the watch metrics). */
  readonly virtualInformer: string;
  /**
   * Whether kube-apiserver deletes the object together with its Service (it does for Endpoints of
   * the Service's name, not for slices). The devcluster does not do this.
   */
  readonly deletedWithService: boolean;
  /** The name of its informer of host copies. */
  readonly hostInformer: string;
  /** The top-level fields of its synced body (what a host cache without bodies leaves out). */
  readonly bodyFields: readonly string[];
  /** A patch expression that answers the first address of the host copy (`context.hostObject`). */
  readonly hostFirstAddressExpression: string;
  /**
   * What the syncer does with a host object of the copy's name that it did not write: Endpoints
   * leave it alone (a terminal SyncError), EndpointSlices delete and replace it (as vcluster does).
   */
  readonly foreignHostObject: 'left-alone' | 'replaced';
  /**
   * vcluster.yaml with this resource's sync enabled; `lines` follow its `enabled: true` as given:
   * indented 6 spaces they are keys of the section (`patches:`), 4 spaces further `sync.toHost` keys.
   */
  configYaml(lines?: readonly string[]): string;
  /** The name of the virtual object that belongs to Service `service`. */
  objectName(service: string): string;
  /** The collection of its objects in `namespace`. */
  collectionPath(namespace: string): string;
  /** The virtual object of Service `service` in `namespace`. */
  virtualPath(namespace: string, service: string): string;
  /** The host copy of the object of `namespace/service` in `hostNamespace` (single-namespace mode, vcluster `vc1`). */
  hostPath(hostNamespace: string, service: string, namespace?: string): string;
  /** The host name of that copy. */
  hostObjectName(service: string, namespace?: string): string;
  /** Creates the virtual object of Service `service`. */
  createVirtual(client: RestClient, service: string, options?: CreateVirtualOptions): Promise<KubeObject>;
  /** A merge patch that replaces the payload of an object (virtual change, or drift on the host). */
  payloadPatch(value: Payload): Record<string, unknown>;
  /** The payload of `object` as the server stores it, read back (Pods as `namespace/name`). */
  payloadOf(object: KubeObject | undefined): ReadOnlyPayload | undefined;
  /** The Pods the addresses of `object` point at, with every field of their references. */
  podRefsOf(object: KubeObject | undefined): Array<Record<string, unknown>>;
  /** The synced body of `object` (subsets; addressType, endpoints and ports), for exact comparison of two objects. */
  bodyOf(object: KubeObject | undefined): unknown;
  /** Labels the fixture itself puts on a virtual object of Service `service` (besides the test's). */
  ownLabels(service: string): Record<string, string>;
  /** The host copy of `namespace/service` (or undefined). */
  hostCopy(client: RestClient, hostNamespace: string, service: string, namespace?: string): Promise<KubeObject | undefined>;
  /** Every object of this resource in `namespace`. */
  list(client: RestClient, namespace: string, labelSelector?: string): Promise<KubeObject[]>;
}

/** A {@link Payload} as read back from an object: Pods named `namespace/name`. */
export interface ReadOnlyPayload {
  ips: string[];
  port: number | undefined;
  pods?: PodRef[];
}

function withPods(ips: string[], port: number | undefined, refs: ReadonlyArray<{ namespace?: string; name?: string } | undefined>): ReadOnlyPayload {
  const pods = refs.filter((r) => r !== undefined).map((r) => `${r.namespace ?? ''}/${r.name ?? ''}` as PodRef);
  return pods.length > 0 ? { ips, port, pods } : { ips, port };
}

function metadata(name: string, namespace: string, options: CreateVirtualOptions, labels: Record<string, string>): Record<string, unknown> {
  const allLabels = { ...labels, ...options.labels };
  return {
    name,
    namespace,
    ...(Object.keys(allLabels).length > 0 ? { labels: allLabels } : {}),
    ...(options.annotations !== undefined ? { annotations: options.annotations } : {}),
  };
}

function sectionYaml(section: string, lines: readonly string[]): string {
  return ['sync:', '  toHost:', `    ${section}:`, '      enabled: true', ...lines, ''].join('\n');
}

// ---- Endpoints ----

function subsetsOf(value: Payload, namespace: string): EndpointSubset[] {
  return [
    {
      addresses: value.ips.map((ip, i) => {
        const pod = value.pods?.[i];
        return pod !== undefined ? { ip, targetRef: { kind: 'Pod', name: pod, namespace } } : { ip };
      }),
      ports: [{ port: value.port, protocol: 'TCP' }],
    },
  ];
}

/** core/v1 Endpoints: named after their Service, the payload in `subsets`. */
export const endpointsFixture: SyncedResourceFixture = {
  resource: 'Endpoints',
  syncerName: 'endpoints',
  kind: 'Endpoints',
  apiVersion: 'v1',
  configSection: 'endpoints',
  virtualInformer: 'virtual-endpoints',
  hostInformer: 'host-endpoints',
  deletedWithService: true,
  bodyFields: ['subsets'],
  hostFirstAddressExpression: 'context.hostObject.subsets[0].addresses[0].ip',
  foreignHostObject: 'left-alone',
  configYaml: (lines = []) => sectionYaml('endpoints', lines),
  objectName: (service) => service,
  collectionPath: (namespace) => `/api/v1/namespaces/${namespace}/endpoints`,
  virtualPath: (namespace, service) => endpointsPath(namespace, service),
  hostPath: (hostNamespace, service, namespace = 'default') => endpointsPath(hostNamespace, hostName(service, namespace)),
  hostObjectName: (service, namespace = 'default') => hostName(service, namespace),
  createVirtual(client, service, options = {}) {
    const namespace = options.namespace ?? 'default';
    return client.create<KubeObject>(`/api/v1/namespaces/${namespace}/endpoints`, {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: metadata(options.name ?? service, namespace, options, {}),
      subsets: subsetsOf(options.payload ?? payload('10.0.0.1'), namespace),
    } as KubeObject);
  },
  // A merge patch cannot know the namespace of Pods; payloads with Pods are created, not patched.
  payloadPatch: (value) => ({ subsets: subsetsOf({ ips: value.ips, port: value.port }, '') }),
  payloadOf(object) {
    if (object === undefined) return undefined;
    const subsets = (object as Endpoints).subsets ?? [];
    const addresses = subsets.flatMap((s) => s.addresses ?? []);
    return withPods(
      addresses.map((a) => a.ip),
      subsets[0]?.ports?.[0]?.port,
      addresses.map((a) => a.targetRef),
    );
  },
  podRefsOf: (object) => ((object as Endpoints | undefined)?.subsets ?? []).flatMap((s) => s.addresses ?? []).flatMap((a) => (a.targetRef !== undefined ? [{ ...a.targetRef }] : [])),
  bodyOf: (object) => (object as Endpoints | undefined)?.subsets,
  ownLabels: () => ({}),
  hostCopy: (client, hostNamespace, service, namespace = 'default') => getOrUndefined<KubeObject>(client, endpointsPath(hostNamespace, hostName(service, namespace))),
  list: async (client, namespace, labelSelector) =>
    (await client.list<KubeObject>(`/api/v1/namespaces/${namespace}/endpoints`, labelSelector !== undefined ? { labelSelector } : {})).items,
};

// ---- EndpointSlices ----

/** The label that ties an EndpointSlice to its Service. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** discovery.k8s.io/v1 EndpointSlice, the fields the suites read and write. */
export interface EndpointSlice extends KubeObject {
  addressType?: string;
  endpoints?: Array<{ addresses: string[]; conditions?: Record<string, unknown>; targetRef?: Record<string, unknown> & { namespace?: string; name?: string } }>;
  ports?: Array<{ name?: string; port?: number; protocol?: string }>;
}

function slicePath(namespace: string, name: string): string {
  return `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices/${name}`;
}

/** A slice's name as the EndpointSlice controllers make them: the Service's name and a suffix. */
function sliceName(service: string): string {
  return `${service}-s1ab2`;
}

function sliceBody(value: Payload, namespace: string): Pick<EndpointSlice, 'addressType' | 'endpoints' | 'ports'> {
  return {
    addressType: 'IPv4',
    endpoints: value.ips.map((ip, i) => {
      const pod = value.pods?.[i];
      return { addresses: [ip], conditions: { ready: true }, ...(pod !== undefined ? { targetRef: { kind: 'Pod', name: pod, namespace } } : {}) };
    }),
    ports: [{ name: '', port: value.port, protocol: 'TCP' }],
  };
}

/**
 * discovery.k8s.io/v1 EndpointSlices: one slice per Service, named `<service>-s1ab2` and labelled
 * `kubernetes.io/service-name: <service>`, the payload in `endpoints` and `ports`.
 */
export const endpointSlicesFixture: SyncedResourceFixture = {
  resource: 'EndpointSlices',
  syncerName: 'endpointslices',
  kind: 'EndpointSlice',
  apiVersion: 'discovery.k8s.io/v1',
  configSection: 'endpointSlices',
  virtualInformer: 'virtual-endpointslices',
  hostInformer: 'host-endpointslices',
  deletedWithService: false,
  bodyFields: ['endpoints', 'ports'],
  hostFirstAddressExpression: 'context.hostObject.endpoints[0].addresses[0]',
  foreignHostObject: 'replaced',
  configYaml: (lines = []) => sectionYaml('endpointSlices', lines),
  objectName: sliceName,
  collectionPath: (namespace) => `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`,
  virtualPath: (namespace, service) => slicePath(namespace, sliceName(service)),
  hostPath: (hostNamespace, service, namespace = 'default') => slicePath(hostNamespace, hostName(sliceName(service), namespace)),
  hostObjectName: (service, namespace = 'default') => hostName(sliceName(service), namespace),
  createVirtual(client, service, options = {}) {
    const namespace = options.namespace ?? 'default';
    return client.create<KubeObject>(`/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`, {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: metadata(options.name ?? sliceName(service), namespace, options, { [SERVICE_NAME_LABEL]: service }),
      ...sliceBody(options.payload ?? payload('10.0.0.1'), namespace),
    } as KubeObject);
  },
  payloadPatch: (value) => {
    const { endpoints, ports } = sliceBody({ ips: value.ips, port: value.port }, '');
    return { endpoints, ports };
  },
  payloadOf(object) {
    if (object === undefined) return undefined;
    const slice = object as EndpointSlice;
    const endpoints = slice.endpoints ?? [];
    return withPods(
      endpoints.flatMap((e) => e.addresses),
      slice.ports?.[0]?.port,
      endpoints.map((e) => e.targetRef),
    );
  },
  podRefsOf: (object) => ((object as EndpointSlice | undefined)?.endpoints ?? []).flatMap((e) => (e.targetRef !== undefined ? [{ ...e.targetRef }] : [])),
  bodyOf: (object) => {
    const slice = object as EndpointSlice | undefined;
    return slice === undefined ? undefined : { addressType: slice.addressType, endpoints: slice.endpoints, ports: slice.ports };
  },
  ownLabels: (service) => ({ [SERVICE_NAME_LABEL]: service }),
  hostCopy: (client, hostNamespace, service, namespace = 'default') => getOrUndefined<KubeObject>(client, slicePath(hostNamespace, hostName(sliceName(service), namespace))),
  list: async (client, namespace, labelSelector) =>
    (await client.list<KubeObject>(`/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices`, labelSelector !== undefined ? { labelSelector } : {})).items,
};

// ---- The matrix ----

/** The resources the syncer suites run for. */
export const SYNCED_RESOURCES: readonly SyncedResourceFixture[] = [endpointsFixture, endpointSlicesFixture];

/** One cell of the suites' matrix: a resource on a pair of backends (`$resource`, `$virtual`, `$host` in titles). */
export interface ResourceCase extends SyncBackends {
  resource: string;
  fixture: SyncedResourceFixture;
}

/** Every resource of `resources` on every pair of `backends`, for `describe.each`. */
export function resourceCases(backends: readonly SyncBackends[], resources: readonly SyncedResourceFixture[] = SYNCED_RESOURCES): ResourceCase[] {
  return resources.flatMap((fixture) => backends.map((b) => ({ resource: fixture.resource, fixture, virtual: b.virtual, host: b.host })));
}
