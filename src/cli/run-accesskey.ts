import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { loadClusterConfig } from '../kube/kube-config.js';
import { RestClient } from '../kube/rest-client.js';
import { formatObject, type ObjectOutput } from './object-output.js';
import { readScopeFile } from './scope-file.js';
import { BOOTSTRAP_ADMIN_KEY_NAME, DEFAULT_PLATFORM, expiresAtMs, generateAccessKey, managementGroup, MANAGEMENT_VERSION, ownerOf, writeSecretFile } from '../management/index.js';

/** Flags every `vcsync accesskey` subcommand has. */
export interface AccessKeyFlags {
  kubeconfig: string;
  name?: string;
}

/** Flags of `vcsync accesskey create`. */
export interface CreateKeyFlags extends AccessKeyFlags {
  user?: string;
  team?: string;
  subject?: string;
  displayName?: string;
  group: string[];
  ttl?: number;
  ttlAfterLastActivity?: boolean;
  /** A YAML or JSON file holding `spec.scope`, checked before anything is sent. */
  scopeFile?: string;
  /** Print the created object (the key included, shown only this once) instead of the key alone. */
  output?: ObjectOutput;
}

/** The management API's group/version, as `apiVersion`. */
export const MANAGEMENT_API_VERSION = `${managementGroup(DEFAULT_PLATFORM)}/${MANAGEMENT_VERSION}`;

/**
 * The `spec.scope` of `--scope-file`: undefined without one, the scope when it is valid; when it is
 * not, prints every problem located in the file, sets exit code 2 and answers `false`.
 */
export async function scopeFromFile(command: string, file: string | undefined): Promise<Record<string, unknown> | undefined | false> {
  if (file === undefined) return undefined;
  const read = await readScopeFile(file);
  if (read.ok) return read.scope;
  process.stderr.write(read.problems.map((problem) => `vcsync ${command}: ${problem}\n`).join(''));
  process.exitCode = 2;
  return false;
}

const API_VERSION = MANAGEMENT_API_VERSION;
const KEYS = `/apis/${API_VERSION}/ownedaccesskeys`;

interface KeyObject {
  [field: string]: unknown;
  metadata: { name: string; creationTimestamp?: string };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** Runs `use` with a client of the management API the kubeconfig names, closed afterwards. */
export async function withClient<T>(kubeconfig: string, use: (client: RestClient) => Promise<T>): Promise<T> {
  const client = new RestClient({ cluster: loadClusterConfig({ kind: 'file', path: kubeconfig }, { name: 'accesskey' }) });
  try {
    return await use(client);
  } finally {
    client.close();
  }
}

/** `vcsync accesskey create`: prints the new key on stdout (shown once), where it is said on stderr. */
export async function createKey(flags: CreateKeyFlags): Promise<void> {
  const owners = [flags.user, flags.team, flags.subject].filter((owner) => owner !== undefined);
  if (owners.length !== 1) {
    process.stderr.write('vcsync accesskey create: give exactly one of --user, --team or --subject (who the key belongs to)\n');
    process.exitCode = 2;
    return;
  }
  const scope = await scopeFromFile('accesskey create', flags.scopeFile);
  if (scope === false) return;
  const spec: Record<string, unknown> = { type: 'User' };
  if (flags.user !== undefined) spec['user'] = flags.user;
  if (flags.team !== undefined) spec['team'] = flags.team;
  if (flags.subject !== undefined) spec['subject'] = flags.subject;
  if (flags.displayName !== undefined) spec['displayName'] = flags.displayName;
  if (flags.group.length > 0) spec['groups'] = flags.group;
  if (flags.ttl !== undefined) spec['ttl'] = flags.ttl;
  if (flags.ttlAfterLastActivity === true) spec['ttlAfterLastActivity'] = true;
  if (scope !== undefined) spec['scope'] = scope;
  const metadata = flags.name !== undefined ? { name: flags.name } : { generateName: 'accesskey-' };
  const body: Record<string, unknown> = { apiVersion: API_VERSION, kind: 'OwnedAccessKey', metadata, spec };
  const created = (await withClient(flags.kubeconfig, (client) => client.create(KEYS, body))) as KeyObject;
  if (flags.output !== undefined) {
    process.stdout.write(formatObject(created, flags.output, 'ownedaccesskey'));
    return;
  }
  process.stderr.write(`Created access key ${created.metadata.name}; the key is shown only now:\n`);
  process.stdout.write(`${String(created.spec?.['key'])}\n`);
}

/** `vcsync accesskey list`: one line per key the caller may see. */
export async function listKeys(flags: AccessKeyFlags): Promise<void> {
  const list = await withClient(flags.kubeconfig, (client) => client.get<{ items: KeyObject[] }>(KEYS));
  const now = Date.now();
  const rows = list.items.map((item) => {
    const owner = ownerOf(item);
    const expires = expiresAtMs(item);
    return [
      item.metadata.name,
      owner === undefined ? '<none>' : `${owner.kind}:${owner.name}`,
      String(item.spec?.['disabled'] === true),
      expires === undefined ? '<never>' : expires <= now ? 'expired' : new Date(expires).toISOString(),
      String(item.status?.['lastActivity'] ?? '<never>'),
    ];
  });
  const table = [['NAME', 'OWNER', 'DISABLED', 'EXPIRES', 'LAST ACTIVITY'], ...rows];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  process.stdout.write(table.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('   ').trimEnd()).join('\n') + '\n');
}

/** `vcsync accesskey disable <name>`. */
export async function disableKey(flags: AccessKeyFlags): Promise<void> {
  await withClient(flags.kubeconfig, (client) => client.patch(`${KEYS}/${encodeURIComponent(flags.name ?? '')}`, 'merge', { spec: { disabled: true } }));
  process.stdout.write(`Disabled access key ${flags.name ?? ''}\n`);
}

/** `vcsync accesskey delete <name>`. */
export async function deleteKey(flags: AccessKeyFlags): Promise<void> {
  await withClient(flags.kubeconfig, (client) => client.delete(`${KEYS}/${encodeURIComponent(flags.name ?? '')}`));
  process.stdout.write(`Deleted access key ${flags.name ?? ''}\n`);
}

/**
 * `vcsync accesskey rotate-admin`: sets a fresh 256-bit value on the bootstrap admin key through
 * the API, writes it to `--key-file` (0600) and replaces the token of the kubeconfig's users that
 * held the old one. Prints the file's path, never the key.
 */
export async function rotateAdminKey(flags: AccessKeyFlags & { keyFile: string }): Promise<void> {
  const key = generateAccessKey();
  const old = await readFile(flags.keyFile, 'utf8').then(
    (text) => text.trim(),
    () => undefined,
  );
  await withClient(flags.kubeconfig, (client) => client.patch(`${KEYS}/${BOOTSTRAP_ADMIN_KEY_NAME}`, 'merge', { spec: { key } }));
  await writeSecretFile(flags.keyFile, `${key}\n`);
  const document = parseDocument(await readFile(flags.kubeconfig, 'utf8'));
  const users = document.get('users');
  let replaced = 0;
  if (users !== null && typeof users === 'object' && 'items' in users && Array.isArray(users.items)) {
    for (const entry of users.items as { getIn(path: string[]): unknown; setIn(path: string[], value: unknown): void }[]) {
      if (old !== undefined && entry.getIn(['user', 'token']) === old) {
        entry.setIn(['user', 'token'], key);
        replaced += 1;
      }
    }
  }
  if (replaced > 0) await writeSecretFile(flags.kubeconfig, document.toString());
  process.stdout.write(`Rotated the bootstrap admin key; the new key is in ${flags.keyFile}${replaced > 0 ? ` and in ${flags.kubeconfig}` : ''}\n`);
}
