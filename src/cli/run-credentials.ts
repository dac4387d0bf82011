import { readFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { writeSecretFile } from '../management/index.js';
import { formatObject, type ObjectOutput } from './object-output.js';
import { MANAGEMENT_API_VERSION, scopeFromFile, withClient } from './run-accesskey.js';

/** Flags of `vcsync token create`. */
export interface TokenFlags {
  kubeconfig: string;
  /** Seconds; absent: the server's default. */
  ttl?: number;
  scopeFile?: string;
  output?: ObjectOutput;
}

/** `vcsync token create`: a DirectClusterEndpointToken; prints the token (or the object with `-o`). */
export async function createToken(flags: TokenFlags): Promise<void> {
  const scope = await scopeFromFile('token create', flags.scopeFile);
  if (scope === false) return;
  const spec: Record<string, unknown> = {};
  if (flags.ttl !== undefined) spec['ttl'] = flags.ttl;
  if (scope !== undefined) spec['scope'] = scope;
  const body = { apiVersion: MANAGEMENT_API_VERSION, kind: 'DirectClusterEndpointToken', metadata: {}, spec };
  const created = await withClient(flags.kubeconfig, (client) => client.create<Record<string, unknown>>(`/apis/${MANAGEMENT_API_VERSION}/directclusterendpointtokens`, body));
  if (flags.output !== undefined) {
    process.stdout.write(formatObject(created, flags.output, 'directclusterendpointtoken'));
    return;
  }
  process.stdout.write(`${String((created['status'] as { token?: unknown } | undefined)?.token ?? '')}\n`);
}

/** Flags of `vcsync kubeconfig`. */
export interface KubeconfigFlags {
  kubeconfig: string;
  /** The VirtualClusterInstance and its namespace. */
  virtualCluster: string;
  namespace: string;
  clientCert?: boolean;
  /** Seconds; 0: the signer's default. */
  certificateTtl?: number;
  server?: string;
  /** Where the kube config goes (0600); absent: standard output. */
  outputFile?: string;
  output?: ObjectOutput;
}

/**
 * `vcsync kubeconfig`: asks the management API for a VirtualClusterInstanceKubeConfig and writes
 * its `status.kubeConfig` to `--output-file` (0600) or standard output; with `-o`, prints the
 * whole answer instead (the credential is in it).
 */
export async function createKubeconfig(flags: KubeconfigFlags): Promise<void> {
  const spec: Record<string, unknown> = {};
  if (flags.clientCert === true) spec['clientCert'] = true;
  if (flags.certificateTtl !== undefined) spec['certificateTTL'] = flags.certificateTtl;
  if (flags.server !== undefined) spec['server'] = flags.server;
  const path = `/apis/${MANAGEMENT_API_VERSION}/namespaces/${encodeURIComponent(flags.namespace)}/virtualclusterinstances/${encodeURIComponent(flags.virtualCluster)}/kubeconfig`;
  const body = { apiVersion: MANAGEMENT_API_VERSION, kind: 'VirtualClusterInstanceKubeConfig', metadata: {}, spec };
  const created = await withClient(flags.kubeconfig, (client) => client.create<Record<string, unknown>>(path, body));
  if (flags.output !== undefined) {
    process.stdout.write(formatObject(created, flags.output, 'virtualclusterinstancekubeconfig'));
    return;
  }
  const kubeConfig = String((created['status'] as { kubeConfig?: unknown } | undefined)?.kubeConfig ?? '');
  if (flags.outputFile === undefined) {
    process.stdout.write(kubeConfig);
    return;
  }
  await writeSecretFile(flags.outputFile, kubeConfig);
  process.stdout.write(`Wrote the kube config of ${flags.namespace}/${flags.virtualCluster} to ${flags.outputFile}\n`);
}

/** Flags of `vcsync exec-credential`. */
export interface ExecCredentialFlags {
  /** The access key itself (visible to other local users in the process list: prefer a file or the environment). */
  key?: string;
  keyFile?: string;
  /** RFC 3339 time the key expires, when the caller knows it. */
  expires?: string;
  output: 'json' | 'yaml';
}

/** The ExecCredential versions kubectl may ask for; the answer names the one asked for. */
const EXEC_CREDENTIAL_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

/**
 * The apiVersion to answer: the one kubectl sent in `KUBERNETES_EXEC_INFO` when it is one of
 * {@link EXEC_CREDENTIAL_VERSIONS}, else v1.
 */
export function execCredentialVersion(execInfo: string | undefined): string {
  try {
    const asked = (JSON.parse(execInfo ?? '{}') as { apiVersion?: unknown }).apiVersion;
    return typeof asked === 'string' && EXEC_CREDENTIAL_VERSIONS.includes(asked) ? asked : EXEC_CREDENTIAL_VERSIONS[0]!;
  } catch {
    // Not what kubectl sends: answer the current version.
    return EXEC_CREDENTIAL_VERSIONS[0]!;
  }
}

/**
 * `vcsync exec-credential`: prints an ExecCredential whose `status.token` is the access key (from
 * `--key-file`, `--key` or `VCSYNC_ACCESS_KEY`), so that a kubeconfig's `exec` runs vcsync as its
 * credential plugin, as the Platform CLI does for access keys. Exit 1 with a message when no key
 * is given; the key is never written anywhere but standard output.
 */
export async function printExecCredential(flags: ExecCredentialFlags): Promise<void> {
  let key = flags.key;
  if (flags.keyFile !== undefined) {
    try {
      key = (await readFile(flags.keyFile, 'utf8')).trim();
    } catch (error: unknown) {
      process.stderr.write(`vcsync exec-credential: cannot read --key-file ${flags.keyFile}: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
      return;
    }
  }
  if (key === undefined || key === '') {
    process.stderr.write('vcsync exec-credential: no access key: give --key-file FILE (or set VCSYNC_ACCESS_KEY)\n');
    process.exitCode = 1;
    return;
  }
  const credential = {
    apiVersion: execCredentialVersion(process.env['KUBERNETES_EXEC_INFO']),
    kind: 'ExecCredential',
    status: { token: key, ...(flags.expires !== undefined ? { expirationTimestamp: flags.expires } : {}) },
  };
  process.stdout.write(flags.output === 'yaml' ? stringify(credential) : `${JSON.stringify(credential)}\n`);
}
