import type { ObjectWriter, ResourceRegistry, ResourceType } from '../apiserver/index.js';
import { KUBERNETES_SERVICE_IP } from './cluster-ip-allocator.js';
import { endpointIpErrors, ipSyntaxError } from './endpoint-address.js';

/** Namespaces that exist from the start, as in every Kubernetes cluster. */
export const INITIAL_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** Where the API server is reachable, for the `default/kubernetes` Endpoints. */
export interface ApiServerAddress {
  /** The listening host; a non-IP host (or a wildcard) is published as 127.0.0.1. */
  host: string;
  port: number;
}

/**
 * The address the Endpoints publish: the listening host when it is an IP an endpoint may have;
 * undefined for loopback, wildcard and non-IP hosts, which Endpoints validation refuses (a real
 * kube-apiserver advertising 127.0.0.1 fails the same way and publishes no address either).
 */
function publishedIp(host: string): string | undefined {
  if (ipSyntaxError(host) !== undefined || endpointIpErrors(host).length > 0) return undefined;
  return host;
}

/**
 * Creates what a fresh cluster has: the namespaces of {@link INITIAL_NAMESPACES}, and the
 * `default/kubernetes` Service (cluster IP 10.96.0.1, port 443) with its Endpoints pointing at
 * this server (no address when it listens on loopback or a wildcard: see `publishedIp`). Idempotent: on a restart from a data directory only what is missing or stale (the
 * Endpoints' port) is written.
 */
export async function ensureBootstrapObjects(writer: ObjectWriter, registry: ResourceRegistry, address: ApiServerAddress): Promise<void> {
  const namespaces = registry.byKind('Namespace');
  for (const name of INITIAL_NAMESPACES) {
    if (await exists(writer, namespaces, '', name)) continue;
    await writer.create(namespaces, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false });
  }
  const labels = { component: 'apiserver', provider: 'kubernetes' };
  const services = registry.byKind('Service');
  if (!(await exists(writer, services, 'default', 'kubernetes'))) {
    await writer.create(
      services,
      'default',
      {
        metadata: { name: 'kubernetes', labels },
        spec: { type: 'ClusterIP', clusterIP: KUBERNETES_SERVICE_IP, ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: address.port }] },
      },
      { dryRun: false },
    );
  }
  const ip = publishedIp(address.host);
  const endpoints = {
    metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
    ...(ip !== undefined ? { subsets: [{ addresses: [{ ip }], ports: [{ name: 'https', port: address.port, protocol: 'TCP' }] }] } : {}),
  };
  // A PUT without resourceVersion creates or replaces; unchanged content is not rewritten.
  await writer.update(registry.byKind('Endpoints'), 'default', 'kubernetes', endpoints, { dryRun: false });
}

async function exists(writer: ObjectWriter, type: ResourceType, namespace: string, name: string): Promise<boolean> {
  try {
    await writer.get(type, namespace, name);
    return true;
  } catch {
    // A 404 is the expected answer for an object that still has to be created.
    return false;
  }
}
