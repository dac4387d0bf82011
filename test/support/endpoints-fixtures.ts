import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { RestClient } from '../../src/kube/rest-client.js';
import type { CoreEvent } from '../../src/kube/event-recorder.js';
import type { EndpointSubset, Endpoints, Service } from '../../src/syncer/endpoints/endpoints-types.js';
import { getOrUndefined } from './sync-harness.js';

/** Path of Endpoints `name` in `namespace`. */
export function endpointsPath(namespace: string, name: string): string {
  return `/api/v1/namespaces/${namespace}/endpoints/${name}`;
}

/** Path of Service `name` in `namespace`. */
export function servicePath(namespace: string, name: string): string {
  return `/api/v1/namespaces/${namespace}/services/${name}`;
}

/** Host name of a short virtual name in single-namespace mode (`web` in `default` of `vc1` → `web-x-default-x-vc1`). */
export function hostName(name: string, namespace = 'default', vcluster = 'vc1'): string {
  return `${name}-x-${namespace}-x-${vcluster}`;
}

/** Creates a virtual Service; without `selector` it asks for its Endpoints to be synced. */
export function createService(client: RestClient, name: string, options: { namespace?: string; selector?: Record<string, string> } = {}): Promise<Service> {
  const namespace = options.namespace ?? 'default';
  return client.create<Service>(`/api/v1/namespaces/${namespace}/services`, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { ports: [{ port: 80 }], ...(options.selector !== undefined ? { selector: options.selector } : {}) },
  });
}

/** Creates Endpoints `name`. */
export function createEndpoints(
  client: RestClient,
  name: string,
  options: { namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string>; subsets?: EndpointSubset[] } = {},
): Promise<Endpoints> {
  const namespace = options.namespace ?? 'default';
  return client.create<Endpoints>(`/api/v1/namespaces/${namespace}/endpoints`, {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: {
      name,
      namespace,
      ...(options.labels !== undefined ? { labels: options.labels } : {}),
      ...(options.annotations !== undefined ? { annotations: options.annotations } : {}),
    },
    subsets: options.subsets ?? [simpleSubset('10.0.0.1')],
  });
}

/** One subset with one ready address and port 8080. */
export function simpleSubset(ip: string, port = 8080): EndpointSubset {
  return { addresses: [{ ip }], ports: [{ port, protocol: 'TCP' }] };
}

/** The host copy of `default/<name>` (or undefined). */
export function getHostEndpoints(client: RestClient, hostNamespace: string, name: string, namespace = 'default'): Promise<Endpoints | undefined> {
  return getOrUndefined<Endpoints>(client, endpointsPath(hostNamespace, hostName(name, namespace)));
}

/** Every Endpoints in `namespace` of the host (or of the virtual cluster). */
export async function listEndpoints(client: RestClient, namespace: string): Promise<Endpoints[]> {
  return (await client.list<Endpoints>(`/api/v1/namespaces/${namespace}/endpoints`)).items;
}

/** Events in `namespace` about the object `kind` `name`. */
export async function eventsAbout(client: RestClient, namespace: string, kind: string, name: string): Promise<CoreEvent[]> {
  const list = await client.list<CoreEvent>(`/api/v1/namespaces/${namespace}/events`);
  return list.items.filter((e) => e.involvedObject.kind === kind && e.involvedObject.name === name);
}

/** A fresh temporary directory and its removal. */
export async function tempDir(prefix = 'vcsync-syncer-'): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
