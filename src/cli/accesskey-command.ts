import { InvalidArgumentError, Option, type Command } from 'commander';
import { parseObjectOutput } from './object-output.js';
import type { AccessKeyFlags, CreateKeyFlags } from './run-accesskey.js';

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `--ttl`: a duration such as `90s`, `30m`, `24h`, `7d` or `1h30m` (a bare number is seconds), in seconds. */
export function parseTtl(value: string): number {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const parts = [...text.matchAll(/(\d+)([smhd])/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join('') !== text) {
    throw new InvalidArgumentError(`"${value}" is not a duration: use a number of seconds or e.g. 90s, 30m, 24h, 7d, 1h30m`);
  }
  return parts.reduce((sum, part) => sum + Number(part[1]) * (UNIT_SECONDS[part[2] ?? 's'] ?? 1), 0);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--kubeconfig` of the management API, shared by every command that calls it. */
export const kubeconfigOption = (): Option =>
  new Option('--kubeconfig <file>', 'kubeconfig of the management API (server = its base URL, token = an access key)').env('VCSYNC_MANAGEMENT_KUBECONFIG').default('.vcsync/dev/management.kubeconfig');

/**
 * Adds `vcsync accesskey create|list|disable|delete|rotate-admin`: OwnedAccessKeys without
 * hand-written YAML, through the management API like any client (the management kubeconfig).
 */
export function registerAccessKeyCommand(program: Command): void {
  const accesskey = program.command('accesskey').description('Create, list, disable and delete management access keys');
  accesskey
    .command('create')
    .description('Create an access key and print it (it is shown only this once)')
    .addOption(kubeconfigOption())
    .addOption(new Option('--user <name>', 'the user the key belongs to'))
    .addOption(new Option('--team <name>', 'the team the key belongs to'))
    .addOption(new Option('--subject <name>', 'a generic subject the key belongs to'))
    .addOption(new Option('--name <name>', 'object name (default: generated)'))
    .addOption(new Option('--display-name <text>', 'name shown in the UI'))
    .addOption(new Option('--group <group>', 'an extra group (repeatable)').argParser(collect).default([]))
    .addOption(new Option('--ttl <duration>', 'time to live, e.g. 24h (default: no expiry)').argParser(parseTtl))
    .addOption(new Option('--ttl-after-last-activity', 'count the time to live from the last use'))
    .addOption(new Option('--scope-file <file>', 'YAML or JSON file with the key\'s spec.scope (checked before anything is sent)'))
    .addOption(new Option('-o, --output <format>', 'print the created object (key included): yaml, json, name or jsonpath=TEMPLATE').argParser(parseObjectOutput))
    .action(async (flags: CreateKeyFlags) => (await import('./run-accesskey.js')).createKey(flags));
  accesskey
    .command('list')
    .description('List the access keys the caller may see')
    .addOption(kubeconfigOption())
    .action(async (flags: AccessKeyFlags) => (await import('./run-accesskey.js')).listKeys(flags));
  accesskey
    .command('disable <name>')
    .description('Disable an access key (it keeps existing; spec.disabled: true)')
    .addOption(kubeconfigOption())
    .action(async (name: string, flags: AccessKeyFlags) => (await import('./run-accesskey.js')).disableKey({ ...flags, name }));
  accesskey
    .command('delete <name>')
    .description('Delete an access key')
    .addOption(kubeconfigOption())
    .action(async (name: string, flags: AccessKeyFlags) => (await import('./run-accesskey.js')).deleteKey({ ...flags, name }));
  accesskey
    .command('rotate-admin')
    .description('Give the bootstrap admin key a new value; writes it to --key-file (0600) and into the kubeconfig')
    .addOption(kubeconfigOption())
    .addOption(new Option('--key-file <file>', 'where the bootstrap admin key is kept').default('.vcsync/dev/management/admin.key'))
    .action(async (flags: AccessKeyFlags & { keyFile: string }) => (await import('./run-accesskey.js')).rotateAdminKey(flags));
}
