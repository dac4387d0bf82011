import { isNotFound } from '../../src/apimachinery/index.js';
import type { RestClient } from '../../src/kube/rest-client.js';
import type { EndpointSlice, SliceEndpoint, SlicePort } from '../../src/syncer/endpointslices/endpointslice-types.js';
import { LABEL_SERVICE_NAME } from '../../src/syncer/endpointslices/slice-keys.js';
import { getOrUndefined } from './sync-harness.js';

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
