import { randomInt } from 'node:crypto';
import { isIPv4 } from 'node:net';

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
 * Picks a free cluster IP from {@link SERVICE_CIDR}. `used` holds the addresses already taken
 * (read from the stored Services by the caller, plus those being allocated concurrently). Random
 * choice keeps concurrent allocations from colliding; `undefined` when the range is full.
 */
export function allocateClusterIp(used: ReadonlySet<string>): string | undefined {
  for (let attempt = 0; attempt < 64; attempt += 1) {
    const candidate = numberToIp(BASE + randomInt(2, SIZE - 1));
    if (!used.has(candidate)) return candidate;
  }
  for (let offset = 2; offset < SIZE - 1; offset += 1) {
    const candidate = numberToIp(BASE + offset);
    if (!used.has(candidate)) return candidate;
  }
  return undefined;
}
