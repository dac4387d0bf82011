import { readFileSync } from 'node:fs';
import type { OutgoingHttpHeaders } from 'node:http';
import type https from 'node:https';
import { isIPv6 } from 'node:net';
import { dirname, isAbsolute, join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { KubeConfigError } from './kube-errors.js';
import { isJsonObject } from '../apimachinery/index.js';

/** Where a cluster's credentials come from. */
export type KubeConfigSource =
  /** A kubeconfig file; relative certificate paths resolve against the file's folder. */
  | { kind: 'file'; path: string }
  /** A kubeconfig document as YAML (or JSON) text. */
  | { kind: 'yaml'; yaml: string }
  /** A kubeconfig document already parsed (e.g. the devcluster's `kubeConfig`). */
  | { kind: 'object'; config: object }
  /** The pod's service account (`KUBERNETES_SERVICE_HOST/PORT` and the mounted token and CA). */
  | { kind: 'inCluster' };

/** Options of {@link loadClusterConfig}. */
export interface LoadClusterConfigOptions {
  /**
   * A short, unique name for the cluster inside this process (`virtual`, `host`, …). When the
   * credentials need a client-node plugin, the loaded user is renamed `vcsync-<name>` so that
   * client-node's per-user credential caches never collide between clusters whose kubeconfigs
   * happen to use the same user name. Required.
   */
  name: string;
  /** Context to use instead of the document's `current-context`. Default: the current context. */
  context?: string;
}

/** A cluster's connection settings. */
export interface ClusterConfig {
  /** The name given in {@link LoadClusterConfigOptions.name}. */
  readonly name: string;
  /** The API server's base URL without a trailing slash, e.g. `https://10.0.0.1:443`. */
  readonly server: string;
  /** The context's default namespace, or `default`. */
  readonly namespace: string;
  /** The CA the server is verified with: a file (read when used) or inline PEM; neither for system roots or plain HTTP. */
  readonly ca: { readonly file?: string; readonly pem?: string };
  /**
   * Writes the auth headers (`headers`, `auth` for basic auth) and TLS material (`ca`, `cert`,
   * `key`, `rejectUnauthorized`, `servername`) into `options`, as client-node's
   * `KubeConfig.applyToHTTPSOptions` does, reading certificate, key and in-cluster token files
   * now. Rejects with {@link KubeConfigError} when a file cannot be read or a plugin fails.
   */
  applyToHTTPSOptions(options: https.RequestOptions): Promise<void>;
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** User fields only client-node's plugins can turn into credentials (exec, OIDC, GCP, Azure, …). */
const PLUGIN_USER_FIELDS = ['exec', 'auth-provider'] as const;

/** The fields of a kubeconfig cluster and user that {@link loadClusterConfig} applies itself. */
interface StaticCredentials {
  caFile?: string;
  caData?: string;
  skipTlsVerify: boolean;
  tlsServerName?: string;
  token?: string;
  tokenFile?: string;
  certFile?: string;
  certData?: string;
  keyFile?: string;
  keyData?: string;
  username?: string;
  password?: string;
  impersonate?: string;
}

/**
 * Loads one cluster's connection settings from a file, text, object, or the in-cluster service
 * account. Tokens, client certificates, basic auth, CAs and impersonation are applied here; only
 * a user with an `exec` or `auth-provider` plugin loads @kubernetes/client-node (lazily, at the
 * first request: its import alone costs a daemon's start more than everything else), with the
 * user renamed `vcsync-<name>`. A plain `http://` server is accepted. Throws
 * {@link KubeConfigError} when the source cannot be read or names no cluster.
 */
export function loadClusterConfig(source: KubeConfigSource, options: LoadClusterConfigOptions): ClusterConfig {
  if (source.kind === 'inCluster') return inClusterConfig(options);
  const { document, root } = readDocument(source, options);
  const contextName = options.context ?? stringField(document, 'current-context');
  const context = contextName === undefined ? undefined : namedEntry(document, 'contexts', 'context', contextName);
  if (options.context !== undefined && context === undefined) {
    throw new KubeConfigError(`kubeconfig for cluster ${options.name} has no context ${options.context}`);
  }
  const clusterName = context === undefined ? undefined : stringField(context, 'cluster');
  const cluster = clusterName === undefined ? undefined : namedEntry(document, 'clusters', 'cluster', clusterName);
  const rawServer = cluster === undefined ? undefined : stringField(cluster, 'server');
  if (context === undefined || cluster === undefined || rawServer === undefined) {
    throw new KubeConfigError(`kubeconfig for cluster ${options.name} (${describe(source)}) has no current context with a cluster; set current-context`);
  }
  const userName = stringField(context, 'user');
  const user = (userName === undefined ? undefined : namedEntry(document, 'users', 'user', userName)) ?? {};
  const server = rawServer.replace(/\/+$/, '');
  const namespace = stringField(context, 'namespace')?.trim() || 'default';
  const absolute = (file: string | undefined): string | undefined => (file === undefined || root === undefined || isAbsolute(file) ? file : join(root, file));
  const credentials: StaticCredentials = {
    caFile: absolute(stringField(cluster, 'certificate-authority')),
    caData: stringField(cluster, 'certificate-authority-data'),
    // client-node refuses a plain http server unless this is set; it means nothing without TLS.
    skipTlsVerify: cluster['insecure-skip-tls-verify'] === true || server.startsWith('http:'),
    tlsServerName: stringField(cluster, 'tls-server-name'),
    token: stringField(user, 'token'),
    tokenFile: stringField(user, 'token-file'),
    certFile: absolute(stringField(user, 'client-certificate')),
    certData: stringField(user, 'client-certificate-data'),
    keyFile: absolute(stringField(user, 'client-key')),
    keyData: stringField(user, 'client-key-data'),
    username: stringField(user, 'username'),
    password: stringField(user, 'password'),
    impersonate: stringField(user, 'as'),
  };
  const tokenFile = credentials.token === undefined ? credentials.tokenFile : undefined;
  // Read at load, so a missing file fails the start; then again on every call (callers cache for a
  // minute), as client-go re-reads it: a projected token rotates under a long-running daemon.
  if (tokenFile !== undefined) credentials.token = readTokenFile(tokenFile, options.name).trim();
  const ca = credentials.caFile !== undefined ? { file: credentials.caFile } : credentials.caData !== undefined ? { pem: Buffer.from(credentials.caData, 'base64').toString('utf8') } : {};
  const needsPlugin = PLUGIN_USER_FIELDS.some((field) => user[field] !== undefined && user[field] !== null);
  const applyToHTTPSOptions = needsPlugin
    ? pluginCredentials(source, options, server)
    : async (target: https.RequestOptions) => applyStatic(tokenFile === undefined ? credentials : { ...credentials, token: readTokenFile(tokenFile, options.name).trim() }, target);
  return Object.freeze({ name: options.name, server, namespace, ca, applyToHTTPSOptions });
}

/**
 * The PEM of the CA `config` trusts for its API server (inline data or its file), or undefined
 * when it names none (a plain-HTTP server, or the system roots). Throws when the file is unreadable.
 */
export function clusterCaPem(config: ClusterConfig): string | undefined {
  if (config.ca.file !== undefined) return readFileSync(config.ca.file, 'utf8');
  return config.ca.pem;
}

function readDocument(source: Exclude<KubeConfigSource, { kind: 'inCluster' }>, options: LoadClusterConfigOptions): { document: Record<string, unknown>; root?: string } {
  let parsed: unknown;
  try {
    switch (source.kind) {
      case 'file':
        parsed = parse(readFileSync(source.path, 'utf8'));
        break;
      case 'yaml':
        parsed = parse(source.yaml);
        break;
      case 'object':
        parsed = JSON.parse(JSON.stringify(source.config));
        break;
    }
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new KubeConfigError(`cannot load kubeconfig for cluster ${options.name} (${describe(source)}): ${reason}`, err);
  }
  const document = isJsonObject(parsed) ? parsed : {};
  return source.kind === 'file' ? { document, root: dirname(source.path) } : { document };
}

/** The `inner` mapping of the entry of `list` named `name` (`clusters[].cluster`, …), if any. */
function namedEntry(document: Record<string, unknown>, list: string, inner: string, name: string): Record<string, unknown> | undefined {
  const entries = document[list];
  if (!Array.isArray(entries)) return undefined;
  const entry: unknown = entries.find((candidate: unknown) => isJsonObject(candidate) && candidate['name'] === name);
  if (!isJsonObject(entry)) return undefined;
  const value = entry[inner];
  return isJsonObject(value) ? value : {};
}

function stringField(object: Record<string, unknown>, field: string): string | undefined {
  const value = object[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** What client-node's `applyHTTPSOptions` + `applyAuthorizationHeader` write for the same fields: files win over data. */
function applyStatic(credentials: StaticCredentials, options: https.RequestOptions): void {
  if (credentials.skipTlsVerify) options.rejectUnauthorized = false;
  if (credentials.tlsServerName !== undefined) options.servername = credentials.tlsServerName;
  const ca = fileOrData(credentials.caFile, credentials.caData);
  if (ca !== undefined) options.ca = ca;
  const cert = fileOrData(credentials.certFile, credentials.certData);
  if (cert !== undefined) options.cert = cert;
  const key = fileOrData(credentials.keyFile, credentials.keyData);
  if (key !== undefined) options.key = key;
  // Callers pass headers as an object (a raw header list is never given here).
  const headers: OutgoingHttpHeaders = options.headers === undefined || Array.isArray(options.headers) ? {} : { ...(options.headers as OutgoingHttpHeaders) };
  if (credentials.impersonate !== undefined) headers['Impersonate-User'] = credentials.impersonate;
  if (credentials.token !== undefined) headers['Authorization'] = `Bearer ${credentials.token}`;
  options.headers = headers;
  if (credentials.username !== undefined) options.auth = `${credentials.username}:${credentials.password ?? ''}`;
}

function fileOrData(file: string | undefined, data: string | undefined): Buffer | undefined {
  if (file !== undefined) {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new KubeConfigError(`cannot read ${file} named in the kubeconfig: ${err instanceof Error ? err.message : String(err)}`, err);
    }
  }
  return data !== undefined ? Buffer.from(data, 'base64') : undefined;
}

function readTokenFile(path: string, cluster: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new KubeConfigError(`cannot read the token file ${path} of cluster ${cluster}: ${err instanceof Error ? err.message : String(err)}`, err);
  }
}

/**
 * The pod's service account, as client-node's `loadFromCluster`: https (http on ports 80, 8080
 * and 8001), the mounted CA, and the token file re-read on every call (callers cache; the
 * kubelet rotates the token).
 */
function inClusterConfig(options: LoadClusterConfigOptions): ClusterConfig {
  const host = process.env['KUBERNETES_SERVICE_HOST'];
  if (host === undefined) throw new KubeConfigError('not running in a cluster: KUBERNETES_SERVICE_HOST is not set');
  const port = process.env['KUBERNETES_SERVICE_PORT'] ?? '';
  const scheme = port === '80' || port === '8080' || port === '8001' ? 'http' : 'https';
  const server = `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`;
  let namespace = 'default';
  try {
    namespace = readFileSync(join(SERVICE_ACCOUNT_DIR, 'namespace'), 'utf8').trim() || 'default';
  } catch {
    // no namespace file: the default namespace, as client-node
  }
  const caFile = join(SERVICE_ACCOUNT_DIR, 'ca.crt');
  const tokenFile = join(SERVICE_ACCOUNT_DIR, 'token');
  const applyToHTTPSOptions = async (target: https.RequestOptions): Promise<void> =>
    applyStatic({ caFile, skipTlsVerify: scheme === 'http', token: readTokenFile(tokenFile, options.name).trim() }, target);
  return Object.freeze({ name: options.name, server, namespace, ca: { file: caFile }, applyToHTTPSOptions });
}

/**
 * Credentials through client-node's plugins (exec, auth-provider): the module and the
 * {@link KubeConfig} are loaded at the first call, then reused (the plugins cache tokens).
 */
function pluginCredentials(source: Exclude<KubeConfigSource, { kind: 'inCluster' }>, options: LoadClusterConfigOptions, server: string): ClusterConfig['applyToHTTPSOptions'] {
  let loading: Promise<KubeConfig> | undefined;
  return async (target) => {
    loading ??= loadClientNodeConfig(source, options, server);
    await (await loading).applyToHTTPSOptions(target);
  };
}

async function loadClientNodeConfig(source: Exclude<KubeConfigSource, { kind: 'inCluster' }>, options: LoadClusterConfigOptions, server: string): Promise<KubeConfig> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const loaded = new KubeConfig();
  try {
    if (source.kind === 'file') loaded.loadFromFile(source.path);
    else loaded.loadFromString(source.kind === 'yaml' ? source.yaml : JSON.stringify(source.config));
    if (options.context !== undefined) loaded.setCurrentContext(options.context);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new KubeConfigError(`cannot load kubeconfig for cluster ${options.name} (${describe(source)}): ${reason}`, err);
  }
  const cluster = loaded.getCurrentCluster();
  if (cluster === null) throw new KubeConfigError(`kubeconfig for cluster ${options.name} (${describe(source)}) has no current context with a cluster; set current-context`);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromClusterAndUser(
    { ...cluster, name: `vcsync-${options.name}`, server, skipTLSVerify: server.startsWith('http:') ? true : cluster.skipTLSVerify },
    { ...(loaded.getCurrentUser() ?? {}), name: `vcsync-${options.name}` },
  );
  return kubeConfig;
}

function describe(source: KubeConfigSource): string {
  switch (source.kind) {
    case 'file':
      return `file ${source.path}`;
    case 'yaml':
      return 'inline YAML';
    case 'object':
      return 'inline object';
    case 'inCluster':
      return 'in-cluster service account';
  }
}
