import { createHash } from 'node:crypto';
import { safeConcatName } from './safe-concat-name.js';

/** A namespaced object's identity. */
export interface ObjectRef {
  readonly name: string;
  readonly namespace: string;
}

/**
 * Host name of a namespaced virtual object in single-namespace mode:
 * `safeConcatName(name, "x", namespace, "x", vclusterName)`. `web` in `default` of `vc1` →
 * `web-x-default-x-vc1`.
 */
export function singleNamespaceHostName(name: string, namespace: string, vclusterName: string): string {
  return safeConcatName(name, 'x', namespace, 'x', vclusterName);
}

/**
 * Short host name for references, where a long name would be ambiguous: `v` and the first 13
 * characters of the base36 encoding (digits then lowercase letters; the SHA-256 digest read as a
 * big-endian unsigned integer, with one `0` per leading zero byte) of the SHA-256 of
 * {@link singleNamespaceHostName}. Always 14 characters matching `^v[a-z0-9]{13}$`.
 */
export function shortHostName(name: string, namespace: string, vclusterName: string): string {
  const digest = createHash('sha256').update(singleNamespaceHostName(name, namespace, vclusterName), 'utf8').digest();
  return `v${base36(digest).slice(0, 13)}`;
}

/**
 * Host name of a cluster-scoped virtual object:
 * `safeConcatName("vcluster", name, "x", hostNamespace, "x", vclusterName)`.
 */
export function clusterScopedHostName(name: string, hostNamespace: string, vclusterName: string): string {
  return safeConcatName('vcluster', name, 'x', hostNamespace, 'x', vclusterName);
}

/** The virtual Endpoints `default/kubernetes`, which the Endpoints syncer never syncs. */
export const KUBERNETES_ENDPOINTS: ObjectRef = Object.freeze({ name: 'kubernetes', namespace: 'default' });

/** True for the virtual `default/kubernetes` Endpoints. */
export function isKubernetesEndpoints(ref: ObjectRef): boolean {
  return ref.name === KUBERNETES_ENDPOINTS.name && ref.namespace === KUBERNETES_ENDPOINTS.namespace;
}

/**
 * The host object that stands for the virtual `default/kubernetes` Endpoints: the Endpoints named
 * after the virtual cluster in the host namespace (the API server of the virtual cluster).
 */
export function kubernetesEndpointsHostRef(vclusterName: string, hostNamespace: string): ObjectRef {
  return { name: vclusterName, namespace: hostNamespace };
}

/**
 * Base36 of a byte string read as a big-endian unsigned integer, with one `0` per leading zero
 * byte (as base58 encoders do), so equal-length inputs keep distinct prefixes.
 */
export function base36(bytes: Uint8Array): string {
  let leadingZeros = 0;
  while (leadingZeros < bytes.length && bytes[leadingZeros] === 0) leadingZeros++;
  const rest = bytes.subarray(leadingZeros);
  const digits = rest.length === 0 ? '' : BigInt(`0x${Buffer.from(rest).toString('hex')}`).toString(36);
  return '0'.repeat(leadingZeros) + digits;
}
