import { spawn } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../kube/kube-object.js';
import type { RestClient } from '../../kube/rest-client.js';
import { REPO_ROOT, VCSYNC_MAIN } from './chaos-processes.js';

/** What the syncer writes of a host Endpoints and the comparison looks at. */
export interface SyncedFields extends KubeObject {
  subsets?: unknown[];
}

/** Options of {@link expectedHostObjects}. */
export interface ExpectedHostOptions {
  virtual: RestClient;
  namespaces: readonly string[];
  configPath: string;
  vclusterName: string;
  hostNamespace: string;
  /** Working directory of the preview process. */
  dir: string;
}

/** `default/kubernetes` is the virtual API server's own Endpoints: never synced. */
const NEVER_SYNCED = 'default/kubernetes';

/**
 * The host Endpoints the syncer must hold for the virtual side as it is now, by host name: every
 * virtual Endpoints whose Service exists without a selector, through `vcsync preview` (the
 * syncer's own translation and patches, run by the built CLI: the expectation is not a second
 * implementation of them).
 */
export async function expectedHostObjects(options: ExpectedHostOptions): Promise<Map<string, SyncedFields>> {
  const synced: KubeObject[] = [];
  for (const namespace of options.namespaces) {
    const [endpoints, services] = await Promise.all([
      options.virtual.list<KubeObject>(`/api/v1/namespaces/${namespace}/endpoints`),
      options.virtual.list<KubeObject & { spec?: { selector?: Record<string, string> | null } }>(`/api/v1/namespaces/${namespace}/services`),
    ]);
    const plain = new Set(services.items.filter((service) => Object.keys(service.spec?.selector ?? {}).length === 0).map((service) => service.metadata?.name));
    for (const item of endpoints.items) {
      if (`${namespace}/${item.metadata?.name ?? ''}` === NEVER_SYNCED) continue;
      if (plain.has(item.metadata?.name)) synced.push({ ...item, apiVersion: 'v1', kind: 'Endpoints' });
    }
  }
  if (synced.length === 0) return new Map();
  const input = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: synced });
  const text = await runPreview(['preview', '--config', options.configPath, '--name', options.vclusterName, '--host-namespace', options.hostNamespace, '-f', '-', '-o', 'json'], input, options.dir);
  const parsed = JSON.parse(text) as KubeObject & { items?: SyncedFields[] };
  const items = parsed.kind === 'List' ? (parsed.items ?? []) : [parsed as SyncedFields];
  return new Map(items.map((item) => [item.metadata?.name ?? '', item]));
}

function runPreview(args: readonly string[], input: string, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', VCSYNC_MAIN, ...args], { cwd: cwd ?? REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`vcsync preview exited with ${code}: ${err}`))));
    child.stdin.end(input);
  });
}

/**
 * Every difference between the expected host Endpoints and the host's, by name: missing, orphaned
 * (on the host, not expected), or with other labels, annotations or subsets.
 */
export function hostDifferences(expected: ReadonlyMap<string, SyncedFields>, actual: ReadonlyMap<string, SyncedFields>): string[] {
  const differences: string[] = [];
  for (const [name, want] of expected) {
    const have = actual.get(name);
    if (have === undefined) {
      differences.push(`host ${name}: missing`);
      continue;
    }
    for (const field of ['labels', 'annotations'] as const) {
      const wanted = want.metadata?.[field] ?? {};
      const found = have.metadata?.[field] ?? {};
      if (!isDeepStrictEqual(found, wanted)) differences.push(`host ${name}: ${field} ${JSON.stringify(found)}, expected ${JSON.stringify(wanted)}`);
    }
    if (!isDeepStrictEqual(have.subsets ?? [], want.subsets ?? [])) differences.push(`host ${name}: subsets ${JSON.stringify(have.subsets)}, expected ${JSON.stringify(want.subsets)}`);
  }
  for (const name of actual.keys()) if (!expected.has(name)) differences.push(`host ${name}: orphaned (no virtual object requires it)`);
  return differences;
}
