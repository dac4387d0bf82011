import { spawn } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '#vcsync/kube/kube-object.js';
import type { RestClient } from '#vcsync/kube/rest-client.js';
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

/**
 * The host Endpoints the syncer must hold for the virtual side as it is now, by host name: what
 * `vcsync preview` prints for every virtual Endpoints and Service (the syncer's own decision,
 * translation and patches, run by the built CLI: the expectation is not a second implementation
 * of them; the objects it skips, such as `default/kubernetes` or Endpoints whose Service has a
 * selector, are named on its stderr and left out).
 */
export async function expectedHostObjects(options: ExpectedHostOptions): Promise<Map<string, SyncedFields>> {
  const objects: KubeObject[] = [];
  for (const namespace of options.namespaces) {
    const [endpoints, services] = await Promise.all([
      options.virtual.list<KubeObject>(`/api/v1/namespaces/${namespace}/endpoints`),
      options.virtual.list<KubeObject>(`/api/v1/namespaces/${namespace}/services`),
    ]);
    objects.push(...services.items.map((item) => ({ ...item, apiVersion: 'v1', kind: 'Service' })));
    objects.push(...endpoints.items.map((item) => ({ ...item, apiVersion: 'v1', kind: 'Endpoints' })));
  }
  // Without any Service nothing is synced (and preview, given no Service, would assume them).
  if (!objects.some((object) => object.kind === 'Service')) return new Map();
  const input = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects });
  const text = await runPreview(['preview', '--config', options.configPath, '--name', options.vclusterName, '--host-namespace', options.hostNamespace, '-f', '-', '-o', 'json'], input, options.dir);
  const parsed = JSON.parse(text) as KubeObject & { items?: SyncedFields[] };
  const items = parsed.kind === 'List' ? (parsed.items ?? []) : [parsed as SyncedFields];
  return new Map(items.map((item) => [item.metadata?.name ?? '', item]));
}

function runPreview(args: readonly string[], input: string, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VCSYNC_MAIN, ...args], { cwd: cwd ?? REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
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
 * (on the host, not expected), or with other labels, annotations or subsets. A label of
 * `hostOnlyLabels` on the host that the expectation lacks is someone else's on the host, kept
 * there as it should be (the syncer flows host changes back only when the virtual object did not
 * move meanwhile).
 */
export function hostDifferences(expected: ReadonlyMap<string, SyncedFields>, actual: ReadonlyMap<string, SyncedFields>, hostOnlyLabels: readonly string[] = []): string[] {
  const differences: string[] = [];
  for (const [name, want] of expected) {
    const have = actual.get(name);
    if (have === undefined) {
      differences.push(`host ${name}: missing`);
      continue;
    }
    for (const field of ['labels', 'annotations'] as const) {
      const wanted = want.metadata?.[field] ?? {};
      const found = { ...(have.metadata?.[field] ?? {}) };
      if (field === 'labels') for (const key of hostOnlyLabels) if (!(key in wanted)) delete found[key];
      if (!isDeepStrictEqual(found, wanted)) differences.push(`host ${name}: ${field} ${JSON.stringify(found)}, expected ${JSON.stringify(wanted)}`);
    }
    if (!isDeepStrictEqual(have.subsets ?? [], want.subsets ?? [])) differences.push(`host ${name}: subsets ${JSON.stringify(have.subsets)}, expected ${JSON.stringify(want.subsets)}`);
  }
  for (const name of actual.keys()) if (!expected.has(name)) differences.push(`host ${name}: orphaned (no virtual object requires it)`);
  return differences;
}
