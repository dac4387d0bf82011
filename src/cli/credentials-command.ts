import { InvalidArgumentError, Option, type Command } from 'commander';
import { kubeconfigOption, parseTtl } from './accesskey-command.js';
import { parseObjectOutput } from './object-output.js';
import type { ExecCredentialFlags, KubeconfigFlags, TokenFlags } from './run-credentials.js';

/** `--expires`: an RFC 3339 time, kept as written. */
function rfc3339Time(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new InvalidArgumentError(`"${value}" is not an RFC 3339 time such as 2026-01-02T03:04:05Z`);
  }
  return value;
}

const outputOption = (what: string): Option => new Option('-o, --output <format>', `print ${what}: yaml, json, name or jsonpath=TEMPLATE`).argParser(parseObjectOutput);

/**
 * Adds what a key user types besides `vcsync accesskey`: `vcsync token create` (a
 * DirectClusterEndpointToken), `vcsync kubeconfig` (a VirtualClusterInstanceKubeConfig written to
 * a file) and `vcsync exec-credential` (the access key as a kubeconfig credential plugin).
 */
export function registerCredentialCommands(program: Command): void {
  const token = program.command('token').description('Issue tokens through the management API');
  token
    .command('create')
    .description('Create a DirectClusterEndpointToken (a signed JWT) and print the token')
    .addOption(kubeconfigOption())
    .addOption(new Option('--ttl <duration>', 'time to live, e.g. 30m (default: the server\'s, 1h; at most 1 day)').argParser(parseTtl))
    .addOption(new Option('--scope-file <file>', 'YAML or JSON file with spec.scope, at most the calling key\'s (checked before anything is sent)'))
    .addOption(outputOption('the created object instead of the token'))
    .action(async (flags: TokenFlags) => (await import('./run-credentials.js')).createToken(flags));
  program
    .command('kubeconfig')
    .description('Get a kube config of the virtual cluster for the calling key, written to a file (0600) or printed')
    .addOption(kubeconfigOption())
    .addOption(new Option('--virtual-cluster <name>', 'the VirtualClusterInstance').default('dev'))
    .addOption(new Option('--namespace <namespace>', 'its namespace on the host').default('vcluster-dev'))
    .addOption(new Option('--client-cert', 'a client certificate signed by the virtual cluster instead of a token'))
    .addOption(new Option('--certificate-ttl <duration>', 'lifetime of the client certificate, e.g. 24h (default 24h; 0: the signer\'s default; at least 10m)').argParser(parseTtl))
    .addOption(new Option('--server <url>', 'the server the kube config names (default: the virtual cluster\'s ingress address)'))
    .addOption(new Option('--output-file <file>', 'write the kube config here (0600) instead of printing it'))
    .addOption(outputOption('the whole VirtualClusterInstanceKubeConfig instead of the kube config'))
    .action(async (flags: KubeconfigFlags) => (await import('./run-credentials.js')).createKubeconfig(flags));
  program
    .command('exec-credential')
    .description('Print a client.authentication.k8s.io ExecCredential with the access key as token (a kubeconfig credential plugin)')
    .addOption(new Option('--key-file <file>', 'file holding the access key'))
    .addOption(new Option('--key <key>', 'the access key (other local users can read command lines: prefer --key-file or the variable)').env('VCSYNC_ACCESS_KEY'))
    .addOption(new Option('--expires <time>', 'when the key expires (RFC 3339), passed on as status.expirationTimestamp').argParser(rfc3339Time))
    .addOption(new Option('-o, --output <format>', 'json (what kubectl reads) or yaml').choices(['json', 'yaml']).default('json'))
    .action(async (flags: ExecCredentialFlags) => (await import('./run-credentials.js')).printExecCredential(flags));
}
