import { randomInt } from 'node:crypto';
import { isIPv4 } from 'node:net';
import type { ResourceId, Store, StoredObject } from './storage/types.js';

/** The service CIDR of the devcluster, the kubeadm default. */
export const SERVICE_CIDR = '10.96.0.0/12';

/** The first address of the range, held by the `default/kubernetes` Service. */
export const KUBERNETES_SERVICE_IP = '10.96.0.1';

const BASE = ipToNumber('10.96.0.0');
const SIZE = 2 ** 20;

function ipToNumber(ip: string): number {
  return ip.split('.').reduce((total, octet) => total * 256 + Number(octet), 0);
}

function numberToIp(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** Whether `ip` is an IPv4 address inside {@link SERVICE_CIDR} (network and broadcast excluded). */
export function inServiceRange(ip: string): boolean {
  if (!isIPv4(ip)) return false;
  const offset = ipToNumber(ip) - BASE;
  return offset > 0 && offset < SIZE - 1;
}

/**
 * Picks a free cluster IP from {@link SERVICE_CIDR}. `isTaken` says whether an address is held
 * (by a stored Service, or by one being written concurrently). Random choice keeps concurrent
 * allocations from colliding; `undefined` when the range is full.
 */
export function allocateClusterIp(isTaken: (ip: string) => boolean): string | undefined {
  for (let attempt = 0; attempt < 64; attempt += 1) {
    const candidate = numberToIp(BASE + randomInt(2, SIZE - 1));
    if (!isTaken(candidate)) return candidate;
  }
  for (let offset = 2; offset < SIZE - 1; offset += 1) {
    const candidate = numberToIp(BASE + offset);
    if (!isTaken(candidate)) return candidate;
  }
  return undefined;
}

function clusterIpOf(service: StoredObject): string | undefined {
  const spec = service['spec'];
  const ip = spec !== null && typeof spec === 'object' ? (spec as Record<string, unknown>)['clusterIP'] : undefined;
  return typeof ip === 'string' && ip !== '' && ip !== 'None' ? ip : undefined;
}

/**
 * The cluster IPs held by stored Services, kept exact from the store's own event stream: built
 * from one list on first use, then updated by a watch from that list's revision (the store
 * delivers events synchronously on commit, so the index never lags a committed write). A lookup
 * is O(1); reading every Service per allocation made creating Services O(n) each.
 */
export class ClusterIpIndex {
  readonly #store: Store;
  readonly #resource: ResourceId;
  /** Service key (`namespace/name`) → its cluster IP; built lazily. */
  #byService: Map<string, string> | undefined;
  readonly #taken = new Set<string>();

  constructor(store: Store, servicesResource: ResourceId) {
    this.#store = store;
    this.#resource = servicesResource;
  }

  /** Whether a stored Service holds `ip`. */
  has(ip: string): boolean {
    this.#ensureBuilt();
    return this.#taken.has(ip);
  }

  #ensureBuilt(): void {
    if (this.#byService !== undefined) return;
    const byService = new Map<string, string>();
    this.#byService = byService;
    const { items, revision } = this.#store.list(this.#resource);
    for (const service of items) this.#set(service);
    this.#store.watch({ resource: this.#resource }, revision, {
      onEvent: (event) => (event.type === 'DELETED' ? this.#remove(event.object) : this.#set(event.object)),
    });
  }

  #set(service: StoredObject): void {
    this.#remove(service);
    const ip = clusterIpOf(service);
    if (ip === undefined) return;
    this.#byService?.set(serviceKey(service), ip);
    this.#taken.add(ip);
  }

  #remove(service: StoredObject): void {
    const key = serviceKey(service);
    const previous = this.#byService?.get(key);
    if (previous === undefined) return;
    this.#byService?.delete(key);
    this.#taken.delete(previous);
  }
}

function serviceKey(service: StoredObject): string {
  return `${service.metadata.namespace ?? ''}/${service.metadata.name}`;
}
