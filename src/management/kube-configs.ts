/**
 * VirtualClusterInstanceKubeConfig: a kube config of the virtual
 * cluster vcsync runs beside, for the caller, with either a token (verified by the virtual
 * cluster through vcsync's token review) or a client certificate the virtual cluster signed.
 */
import { stringify as toYaml } from 'yaml';
import { ApiError, isJsonObject, type JsonObject, notFound } from '../apimachinery/index.js';
import type { AuthenticatedUser, ProcedureRequest } from '../apiserver/index.js';
import type { KubeMetrics } from '../kube/index.js';
import type { Logger } from '../observe/logger.js';
import { CertificateRequestCleaner } from './certificate-request-cleaner.js';
import { CertificateRequestWatch } from './certificate-request-watch.js';
import { requestClientCertificate, type CsrClient } from './client-certificates.js';
import type { DirectTokens } from './direct-tokens.js';
import { CERTIFICATE_SIGNING_TIMEOUT_MS, DEFAULT_CERTIFICATE_TTL_SECONDS, KUBE_CONFIG_REQUEST_LABEL, KUBECONFIG_USER } from './management-constants.js';

/** What the management API knows of the virtual cluster it serves kube configs for. */
export interface VirtualClusterAccess {
  /** The instance: the vcluster's name and its namespace on the host. */
  name: string;
  namespace: string;
  /**
   * The ingress endpoint clients reach the virtual cluster on (vcluster.yaml
   * `controlPlane.ingress`), read at each request (the config reloads); undefined when none is
   * configured.
   */
  ingressHost: () => string | undefined;
  /** The virtual cluster's CA certificate (PEM), for the kube config's certificate-authority-data. */
  caCertPem: string;
  /** A client of the virtual cluster allowed to create, approve, get, list, watch and delete CertificateSigningRequests. */
  client: CsrClient;
  /** Metrics of the watch of the requests' outcomes (informer `kube-config-csrs`). Default a private registry. */
  watchMetrics?: KubeMetrics;
  /** How long to wait for the signer, in ms. Default {@link CERTIFICATE_SIGNING_TIMEOUT_MS}. */
  signingTimeoutMs?: number;
}

/** The kube config YAML: one cluster, the user `vcluster`, one context, current. */
export function kubeConfigText(input: KubeConfigInput): string {
  const context = input.clusterName;
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: input.clusterName, cluster: { server: input.server, 'certificate-authority-data': Buffer.from(input.caCertPem).toString('base64') } }],
    users: [{ name: KUBECONFIG_USER, user: input.user }],
    contexts: [{ name: context, context: { cluster: input.clusterName, user: KUBECONFIG_USER } }],
    'current-context': context,
    preferences: {},
  });
}

/** What {@link kubeConfigText} takes. */
export interface KubeConfigInput {
  clusterName: string;
  server: string;
  caCertPem: string;
  user: Record<string, string>;
}

/**
 * Credential values the YAML writer leaves as plain scalars, unchanged and on one line: base64,
 * base64url and JWS text of at least 20 characters starting with a letter (never a YAML keyword,
 * number or indicator).
 */
const PLAIN_CREDENTIAL = /^[A-Za-z][A-Za-z0-9+/=._-]{19,}$/;

/**
 * {@link kubeConfigText} for many credentials of one cluster: the YAML is written once per
 * cluster, server, CA and credential fields with placeholders where the credentials go, and each
 * kube config substitutes them (the YAML writer costs several times a token's signature). A value
 * that is not a {@link PLAIN_CREDENTIAL} is written the long way. The text is the same either way.
 */
export class KubeConfigWriter {
  #key: string | undefined;
  #parts: string[] = [];

  /** The kube config of `input`, as {@link kubeConfigText} writes it. */
  text(input: KubeConfigInput): string {
    const fields = Object.keys(input.user);
    const values = Object.values(input.user);
    if (!values.every((value) => PLAIN_CREDENTIAL.test(value))) return kubeConfigText(input);
    const key = JSON.stringify([input.clusterName, input.server, input.caCertPem, fields]);
    if (key !== this.#key) {
      const placeholders = fields.map((_, index) => `VcsyncCredentialPlaceholder${index}X`);
      const template = kubeConfigText({ ...input, user: Object.fromEntries(fields.map((field, index) => [field, placeholders[index] as string])) });
      const parts = template.split(/VcsyncCredentialPlaceholder\d+X/);
      if (parts.length !== fields.length + 1) return kubeConfigText(input); // a field name that is not written plainly: no template
      this.#parts = parts;
      this.#key = key;
    }
    let text = this.#parts[0] ?? '';
    for (let index = 0; index < values.length; index += 1) text += `${values[index] ?? ''}${this.#parts[index + 1] ?? ''}`;
    return text;
  }
}

/**
 * The ingress host of a vcluster.yaml (`controlPlane.ingress.host` when
 * `controlPlane.ingress.enabled` is true), or undefined when none is configured. vcsync does not
 * check vcluster's sections, so anything else there reads as "none".
 */
export function ingressHostOf(config: Readonly<Record<string, unknown>>): string | undefined {
  const controlPlane = config['controlPlane'];
  const ingress = isJsonObject(controlPlane) ? controlPlane['ingress'] : undefined;
  if (!isJsonObject(ingress) || ingress['enabled'] !== true) return undefined;
  const host = ingress['host'];
  return typeof host === 'string' && host.trim() !== '' ? host.trim() : undefined;
}

/** The server URL of an ingress host: `https://<host>` unless it already names a scheme. */
export function ingressServer(host: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(host) ? host : `https://${host}`;
}

/** The certificate's lifetime from `spec.certificateTTL`: absent → one day, 0 → not requested (undefined). */
export function certificateLifetime(requested: unknown): number | undefined {
  if (requested === undefined || requested === null) return DEFAULT_CERTIFICATE_TTL_SECONDS;
  return requested === 0 ? undefined : Number(requested);
}

/** Issues the kube configs of one virtual cluster. */
export class KubeConfigs {
  readonly #access: VirtualClusterAccess;
  readonly #tokens: DirectTokens;
  readonly #group: string;
  readonly #writer = new KubeConfigWriter();
  readonly #requests: { outcomes: CertificateRequestWatch; cleaner: CertificateRequestCleaner };

  /**
   * Does no I/O; `group` is the management group (for 404s). The watch of the certificate
   * requests' outcomes starts with the first client-certificate kube config (see
   * {@link CertificateRequestWatch}); {@link close} stops it.
   */
  constructor(access: VirtualClusterAccess, tokens: DirectTokens, group: string, logger?: Logger) {
    this.#access = access;
    this.#tokens = tokens;
    this.#group = group;
    const childLogger = logger?.child({ component: 'kube-configs' });
    this.#requests = {
      outcomes: new CertificateRequestWatch({
        client: access.client,
        labelSelector: KUBE_CONFIG_REQUEST_LABEL,
        ...(access.watchMetrics !== undefined ? { metrics: access.watchMetrics } : {}),
        ...(childLogger !== undefined ? { logger: childLogger } : {}),
      }),
      cleaner: new CertificateRequestCleaner({ client: access.client, labelKey: KUBE_CONFIG_REQUEST_LABEL, ...(childLogger !== undefined ? { logger: childLogger } : {}) }),
    };
  }

  /** Stops the watch of certificate requests, deletes the finished ones and waits for both. Idempotent. */
  async close(): Promise<void> {
    await this.#requests.outcomes.close();
    await this.#requests.cleaner.close();
  }

  /**
   * The create of a VirtualClusterInstanceKubeConfig for `<namespace>/<name>`: 404 for any other
   * instance; a 400 saying what to set when no ingress endpoint is configured; then the kube
   * config. A dry run checks all that without minting a credential.
   */
  async issue(request: ProcedureRequest): Promise<JsonObject> {
    const access = this.#access;
    const target = request.target ?? { namespace: '', name: '' };
    if (target.namespace !== access.namespace || target.name !== access.name) {
      throw notFound({ group: this.#group, resource: 'virtualclusterinstances', name: target.name });
    }
    const spec = isJsonObject(request.object['spec']) ? request.object['spec'] : {};
    const host = access.ingressHost();
    const given = typeof spec['server'] === 'string' && spec['server'] !== '' ? spec['server'] : undefined;
    if (host === undefined || host === '') {
      throw new ApiError(
        'BadRequest',
        `the virtual cluster ${access.namespace}/${access.name} has no ingress endpoint, so there is no address for a kube config: set controlPlane.ingress.enabled: true and controlPlane.ingress.host: <host> in vcluster.yaml`,
      );
    }
    const server = given ?? ingressServer(host);
    const user = request.user;
    if (user === undefined) throw new ApiError('Unauthorized', 'a kube config is issued only to an authenticated caller');
    const answer: JsonObject = { ...request.object, status: {} };
    if (request.dryRun) return answer;
    const credential = spec['clientCert'] === true ? await this.#certificate(user, spec['certificateTTL']) : { token: (await this.#tokens.mintForKubeConfig(user)).token };
    answer['status'] = { kubeConfig: this.#writer.text({ clusterName: access.name, server, caCertPem: access.caCertPem, user: credential }) };
    return answer;
  }

  async #certificate(user: AuthenticatedUser, certificateTtl: unknown): Promise<Record<string, string>> {
    // The cluster adds system:authenticated to every certificate user itself.
    const organizations = user.groups.filter((group) => group !== 'system:authenticated');
    const issued = await requestClientCertificate({
      client: this.#access.client,
      subject: { commonName: user.username, organizations },
      expirationSeconds: certificateLifetime(certificateTtl),
      timeoutMs: this.#access.signingTimeoutMs ?? CERTIFICATE_SIGNING_TIMEOUT_MS,
      approver: user.username,
    }, this.#requests);
    return { 'client-certificate-data': Buffer.from(issued.certPem).toString('base64'), 'client-key-data': Buffer.from(issued.keyPem).toString('base64') };
  }
}
