/**
 * A client certificate for a user of the virtual cluster, obtained the way a cluster expects it
 * (a client-certificate kube config): a fresh key pair, a CertificateSigningRequest for the signer
 * `kubernetes.io/kube-apiserver-client`, approved by vcsync, signed by the cluster's signer
 * (kube-controller-manager, or devcluster's). The private key never leaves this process.
 */
import { ApiError, invalid } from '../apimachinery/index.js';
import { type CertificateAndKey, type ClientSubject, createCertificateRequest } from '../apiserver/index.js';
import type { RestClient } from '../kube/rest-client.js';
import type { CertificateRequestCleaner } from './certificate-request-cleaner.js';
import type { CertificateRequestWatch, CsrCondition } from './certificate-request-watch.js';
import { CSR_COLLECTION, KUBE_CONFIG_REQUEST_LABEL } from './management-constants.js';

/** The CertificateSigningRequest API of a cluster. */

/** The signer of client certificates a kube-apiserver trusts. */
export const CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';

/** The calls made on the virtual cluster (list and watch: one shared watch of the requests' outcomes). */
export type CsrClient = Pick<RestClient, 'get' | 'list' | 'watch' | 'create' | 'update' | 'delete'>;

/**
 * A {@link CsrClient} whose calls go to the client `resolve` returns at call time: for a management
 * API that starts before the virtual cluster it issues kube configs for (`vcsync dev`).
 */
export function deferredCsrClient(resolve: () => CsrClient): CsrClient {
  return {
    get: (...args) => resolve().get(...args),
    list: (...args) => resolve().list(...args),
    watch: (...args) => resolve().watch(...args),
    create: (...args) => resolve().create(...args),
    update: (...args) => resolve().update(...args),
    delete: (...args) => resolve().delete(...args),
  };
}

interface Csr {
  apiVersion?: string;
  kind?: string;
  metadata: { name?: string; generateName?: string; resourceVersion?: string; labels?: Record<string, string> };
  spec: { request: string; signerName: string; usages: string[]; expirationSeconds?: number };
  status?: { conditions?: CsrCondition[]; certificate?: string };
}

/** Options of {@link requestClientCertificate}. */
export interface ClientCertificateRequest {
  client: CsrClient;
  subject: ClientSubject;
  /** `spec.expirationSeconds`; undefined: not set, the signer's default duration applies. */
  expirationSeconds: number | undefined;
  /** How long to wait for the signer, in ms. */
  timeoutMs: number;
  /** Who approves, for the condition's message (audit). */
  approver: string;
}

/** A refusal of the cluster's API as this API's error: 422 stays 422 (with the cluster's reason), anything else a 400 naming the cluster. */
function asApiError(error: unknown, doing: string): unknown {
  if (!(error instanceof ApiError) || error.request === undefined) return error;
  const message = `the virtual cluster refused to ${doing}: ${error.message}`;
  if (error.code === 422) return invalid('VirtualClusterInstanceKubeConfig', '', '', [{ reason: 'FieldValueInvalid', field: 'spec.certificateTTL', message }]);
  return new ApiError('BadRequest', message);
}

/** Where {@link requestClientCertificate} learns a request's outcome and leaves it to be deleted. */
export interface CertificateRequestTracking {
  outcomes: CertificateRequestWatch;
  cleaner: CertificateRequestCleaner;
}

/**
 * Creates the CertificateSigningRequest (labelled {@link KUBE_CONFIG_REQUEST_LABEL} with its
 * cleaner's batch), approves it, waits at most `timeoutMs` for its outcome on the shared watch
 * (registered before the approval), and leaves it to its batch's delete. Throws an ApiError for
 * the caller when the cluster refuses the request (422 with its reason), denies or fails it, or
 * does not sign in time.
 */
export async function requestClientCertificate(options: ClientCertificateRequest, tracking: CertificateRequestTracking): Promise<CertificateAndKey> {
  const { client } = options;
  const { requestPem, keyPem } = createCertificateRequest(options.subject);
  const membership = tracking.cleaner.join();
  const body: Csr = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { generateName: 'vcsync-kubeconfig-', labels: { [KUBE_CONFIG_REQUEST_LABEL]: membership.batch } },
    spec: {
      request: Buffer.from(requestPem).toString('base64'),
      signerName: CLIENT_SIGNER,
      usages: ['client auth'],
      ...(options.expirationSeconds !== undefined ? { expirationSeconds: options.expirationSeconds } : {}),
    },
  };
  const created = await client.create<Csr>(CSR_COLLECTION, body).catch((error: unknown) => {
    membership.finish(undefined);
    throw asApiError(error, 'create the certificate signing request');
  });
  const name = created.metadata.name ?? '';
  const path = `${CSR_COLLECTION}/${encodeURIComponent(name)}`;
  const waiting = tracking.outcomes.wait(name, options.timeoutMs);
  try {
    const approval: CsrCondition = { type: 'Approved', status: 'True', reason: 'VcsyncKubeConfig', message: `approved by vcsync for a kube config requested by ${options.approver}` };
    await client.update<Csr>(`${path}/approval`, { ...created, status: { ...created.status, conditions: [...(created.status?.conditions ?? []), approval] } }).catch((error: unknown) => {
      throw asApiError(error, 'approve the certificate signing request');
    });
    const outcome = await waiting.outcome;
    switch (outcome.kind) {
      case 'issued':
        return { certPem: Buffer.from(outcome.certificate, 'base64').toString('utf8'), keyPem };
      case 'refused': {
        const refused = outcome.condition;
        throw new ApiError('BadRequest', `the virtual cluster's signer did not sign the client certificate (${refused.type ?? ''}: ${refused.reason ?? ''} ${refused.message ?? ''}); use clientCert: false for a token`);
      }
      case 'deleted':
        throw new ApiError('BadRequest', `the certificate signing request ${name} was deleted on the virtual cluster before it was signed; retry, or use clientCert: false`);
      case 'timeout':
      case 'cancelled':
        throw new ApiError(
          'Timeout',
          `the virtual cluster did not sign the client certificate within ${options.timeoutMs / 1000} s (is a signer for ${CLIENT_SIGNER} running, e.g. kube-controller-manager's csrsigning controller?); retry, or use clientCert: false`,
        );
    }
  } finally {
    waiting.cancel();
    membership.finish(name);
  }
}
