import { stringify as toYaml } from 'yaml';

/** A kubeconfig (`kind: Config`, `apiVersion: v1`) as a plain object, the shape kubectl reads. */
export interface KubeConfigDocument {
  apiVersion: 'v1';
  kind: 'Config';
  clusters: { name: string; cluster: { server: string; 'certificate-authority-data'?: string; 'insecure-skip-tls-verify'?: boolean } }[];
  users: {
    name: string;
    user: { token?: string; 'client-certificate-data'?: string; 'client-key-data'?: string };
  }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
  'current-context': string;
  preferences: Record<string, never>;
}

/** What a devcluster kubeconfig is built from. */
export interface KubeConfigInput {
  /** Cluster, user and context name; unique per server (e.g. `devcluster-43121`). */
  name: string;
  server: string;
  /** PEM of the CA that signed the serving certificate (HTTPS only). */
  caCertPem?: string;
  token?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
}

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/**
 * A kubeconfig with one cluster, one user and one current context, all named `input.name`
 * (credential caches of clients key on the user name, so each server gets its own). A plain-http
 * server gets `insecure-skip-tls-verify: true`, without which @kubernetes/client-node refuses
 * http URLs. The user
 * authenticates with the client certificate when given, else with the token, else anonymously.
 */
export function buildKubeConfig(input: KubeConfigInput): KubeConfigDocument {
  const cluster: KubeConfigDocument['clusters'][number]['cluster'] = { server: input.server };
  if (input.caCertPem !== undefined) cluster['certificate-authority-data'] = base64(input.caCertPem);
  // @kubernetes/client-node refuses plain-http servers unless this is set; kubectl ignores it for http.
  if (input.server.startsWith('http:')) cluster['insecure-skip-tls-verify'] = true;
  const user: KubeConfigDocument['users'][number]['user'] = {};
  if (input.clientCertPem !== undefined && input.clientKeyPem !== undefined) {
    user['client-certificate-data'] = base64(input.clientCertPem);
    user['client-key-data'] = base64(input.clientKeyPem);
  } else if (input.token !== undefined) {
    user.token = input.token;
  }
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: input.name, cluster }],
    users: [{ name: input.name, user }],
    contexts: [{ name: input.name, context: { cluster: input.name, user: input.name, namespace: 'default' } }],
    'current-context': input.name,
    preferences: {},
  };
}

/** The kubeconfig as YAML text, ready to write to a file. */
export function kubeConfigYaml(document: KubeConfigDocument): string {
  return toYaml(document);
}
