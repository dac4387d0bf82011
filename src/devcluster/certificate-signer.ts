import { isJsonObject, type JsonObject } from '../apimachinery/index.js';
import { type CertificateAndKey, ClientCertificateAuthority, type ObjectWriter, type ResourceType, rfc3339 } from '../apiserver/index.js';
import { KUBE_APISERVER_CLIENT_SIGNER } from './certificate-signing-request-rules.js';
import type { StoreController } from './store-controllers.js';
import type { StoreEvent } from './storage/types.js';

/** kube-controller-manager's default --cluster-signing-duration: one year. */
export const DEFAULT_SIGNING_DURATION_MS = 365 * 24 * 60 * 60 * 1000;
/** The shortest certificate the signer issues, whatever was asked: ten minutes. */
const MIN_SIGNING_DURATION_MS = 10 * 60 * 1000;
/** notBefore lies this far in the past, for clients whose clocks are behind: five minutes. */
const BACKDATE_MS = 5 * 60 * 1000;
/** Below this lifetime notAfter is not backdated too (five minutes would be a large share of it): eight hours. */
const SHORT_LIFETIME_MS = 8 * 60 * 60 * 1000;
/** The usages a client certificate may carry; `client auth` is required. */
const CLIENT_USAGES: Readonly<Record<string, 'digitalSignature' | 'keyEncipherment' | undefined>> = {
  'digital signature': 'digitalSignature',
  'key encipherment': 'keyEncipherment',
  'client auth': undefined,
};

/** The validity of a certificate signed at `nowMs`. */
export interface SigningWindow {
  notBefore: Date;
  notAfter: Date;
}

/**
 * The validity kube-controller-manager's signer gives a certificate signed at `nowMs`: the
 * lifetime is `expirationSeconds` (absent: `maxDurationMs`) kept between ten minutes and
 * `maxDurationMs`; notBefore is five minutes back; notAfter is now + lifetime, minus the same five
 * minutes for lifetimes of eight hours or more. Pure.
 */
export function signingWindow(nowMs: number, expirationSeconds: number | undefined, maxDurationMs: number): SigningWindow {
  const requested = expirationSeconds === undefined ? maxDurationMs : expirationSeconds * 1000;
  const lifetime = Math.min(maxDurationMs, Math.max(MIN_SIGNING_DURATION_MS, requested));
  const notAfter = lifetime < SHORT_LIFETIME_MS ? nowMs + lifetime : nowMs + lifetime - BACKDATE_MS;
  return { notBefore: new Date(nowMs - BACKDATE_MS), notAfter: new Date(notAfter) };
}

/**
 * Why `usages` are not those of a client certificate, worded as the real signer words it, or
 * undefined when they are (`client auth`, optionally `digital signature`, `key encipherment`). Pure.
 */
export function clientUsagesError(usages: readonly unknown[]): string | undefined {
  for (const usage of usages) {
    if (typeof usage !== 'string' || !(usage in CLIENT_USAGES)) return `invalid usage for client certificate: ${String(usage)}`;
  }
  return usages.includes('client auth') ? undefined : 'missing required usage for client certificate: client auth';
}

/** What {@link CertificateSigner} works on. */
export interface CertificateSignerInit {
  writer: ObjectWriter;
  /** The CertificateSigningRequest resource. */
  requests: ResourceType;
  /** The CA that signs: the client CA the server's authenticator trusts. */
  ca: CertificateAndKey;
  /** The longest certificate it issues, in ms (kube-controller-manager's --cluster-signing-duration). */
  maxDurationMs: number;
  /** Wall clock in ms since the epoch. */
  now: () => number;
}

function record(value: unknown): JsonObject {
  return isJsonObject(value) ? value : {};
}

function hasTrueCondition(object: JsonObject, type: string): boolean {
  const conditions = record(object['status'])['conditions'];
  return Array.isArray(conditions) && conditions.some((condition) => isJsonObject(condition) && condition['type'] === type && condition['status'] === 'True');
}

/** Whether the signer has work on `object`: approved, not failed, not yet signed, for its signer name. */
function awaitsSigning(object: JsonObject): boolean {
  const certificate = record(object['status'])['certificate'];
  return (
    record(object['spec'])['signerName'] === KUBE_APISERVER_CLIENT_SIGNER &&
    hasTrueCondition(object, 'Approved') &&
    !hasTrueCondition(object, 'Failed') &&
    (typeof certificate !== 'string' || certificate === '')
  );
}

/**
 * kube-controller-manager's `csrsigning-kube-apiserver-client` controller as a devcluster
 * controller: it signs approved CertificateSigningRequests for `kubernetes.io/kube-apiserver-client`
 * with the server's client CA (subject and key from the request, clientAuth, the lifetime of
 * {@link signingWindow}) and writes the certificate through `/status`; a request whose usages a
 * client certificate may not carry gets a Failed condition instead. Other signer names stay
 * pending, as on a cluster without their signer.
 */
export class CertificateSigner implements StoreController {
  readonly name = 'certificate-signer';
  readonly #init: CertificateSignerInit;
  /** The CA parsed on the first signature (a CA that does not parse fails that reconcile, not the server's start). */
  #authority: ClientCertificateAuthority | undefined;

  /** Does no I/O. */
  constructor(init: CertificateSignerInit) {
    this.#init = init;
  }

  observe(event: StoreEvent): readonly string[] {
    if (event.resource !== this.#init.requests.id || event.type === 'DELETED') return [];
    return awaitsSigning(event.object as JsonObject) ? [event.object.metadata.name] : [];
  }

  async reconcile(name: string): Promise<void> {
    const { writer, requests } = this.#init;
    // Read only: the writer copies the body it is given, so the stored (frozen) object needs no copy here.
    const current = (await writer.get(requests, '', name)) as JsonObject;
    if (!awaitsSigning(current)) return;
    const spec = record(current['spec']);
    const status = record(current['status']);
    const usages = Array.isArray(spec['usages']) ? spec['usages'] : [];
    const refused = clientUsagesError(usages);
    if (refused !== undefined) {
      const conditions = Array.isArray(status['conditions']) ? status['conditions'] : [];
      const now = rfc3339(this.#init.now());
      const failed = { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: refused, lastUpdateTime: now, lastTransitionTime: now };
      await writer.update(requests, '', name, { ...current, status: { ...status, conditions: [...conditions, failed] } }, { dryRun: false, subresource: 'status' });
      return;
    }
    const expirationSeconds = typeof spec['expirationSeconds'] === 'number' ? spec['expirationSeconds'] : undefined;
    const window = signingWindow(this.#init.now(), expirationSeconds, this.#init.maxDurationMs);
    this.#authority ??= ClientCertificateAuthority.from(this.#init.ca);
    const certificatePem = this.#authority.sign({
      csrPem: Buffer.from(String(spec['request'] ?? ''), 'base64').toString('latin1'),
      keyUsages: usages.map((usage) => CLIENT_USAGES[usage as string]).filter((usage) => usage !== undefined),
      ...window,
    });
    const certificate = Buffer.from(certificatePem).toString('base64');
    // Conditional on the version read: a request changed meanwhile is looked at again on its next event.
    await writer.update(requests, '', name, { ...current, status: { ...status, certificate } }, { dryRun: false, subresource: 'status' });
  }
}
