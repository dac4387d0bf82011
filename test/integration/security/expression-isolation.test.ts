import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runPreview } from '../../../src/cli/run-preview.js';
import { runValidate } from '../../../src/cli/run-validate.js';
import { silentLogger } from '../../../src/observe/logger.js';
import { applyPatches, compilePatches, PatchSandbox, type PatchEnvironment, type PatchPlan, type PatchableObject } from '../../../src/patches/index.js';
import { HOSTILE_EXPRESSIONS } from '../../../testbed/fuzz/expression-fuzz.js';
import { createEndpoints, createService, getHostEndpoints, tempDir } from '../../support/endpoints-fixtures.js';
import { ensureNamespace, startTwoClusters, type TwoClusters } from '../../support/sync-harness.js';
import { startSyncerDaemon, type SyncerDaemon } from '../../support/syncer-daemon.js';
import { waitFor } from '../../support/wait-for.js';

// Nothing an expression does survives into another evaluation. The security review's
// reproductions through `vcsync validate`, `vcsync preview` and the daemon, and the fuzzer's
// hostile corpus interleaved with known-good expressions over many objects.

/** The reproductions: validate refuses them, at the assignment. */
const REPRODUCTIONS = [
  '(typeof btoa === "function" ? (btoa = value, "first") : ("LEAKED:" + btoa))',
  '(virtualToHostDNS = (x) => "attacker.example.com", value)',
];

/**
 * The same attempts with a parameter of the helper's name elsewhere in the expression, which hides
 * the assignment from the check: the sandbox must refuse it at run time, every evaluation alike.
 */
const NOTE = '(((btoa) => 0)(0), (() => { try { btoa = value } catch { } return typeof btoa === "function" ? "fresh:" + value : "LEAKED:" + btoa })())';
const HIJACK = '(((virtualToHostDNS) => 0)(0), (() => { try { virtualToHostDNS = () => "attacker.example.com" } catch { } return value })())';
const UPSTREAM = 'virtualToHostDNS(value)';

const sink = () => {
  let text = '';
  return { write: (chunk: string) => { text += chunk; return true; }, get text() { return text; } };
};

const patchesYaml = (patches: readonly (readonly [string, string])[]): string =>
  ['sync:', '  toHost:', '    endpoints:', '      patches:', ...patches.flatMap(([at, expression]) => [`        - path: ${at}`, `          expression: ${JSON.stringify(expression)}`]), ''].join('\n');

const EVADING_CONFIG = patchesYaml([
  ['metadata.annotations.note', NOTE],
  ['metadata.annotations.hijack', HIJACK],
  ['metadata.annotations.upstream', UPSTREAM],
]);

describe('vcsync validate and preview', () => {
  let dir: { dir: string; remove: () => Promise<void> };
  beforeAll(async () => {
    dir = await tempDir('vcsync-isolation-');
  });
  afterAll(async () => {
    await dir.remove();
  });

  it('validate refuses an assignment to a helper, at its file:line:column', async () => {
    const file = path.join(dir.dir, 'assign.yaml');
    await writeFile(file, patchesYaml(REPRODUCTIONS.map((expression, index) => [`metadata.annotations.a${index}`, expression] as const)));
    const err = sink();
    expect(await runValidate({ configPath: file, out: sink(), err })).toBe(1);
    // Columns in the file: the expressions are double-quoted YAML scalars, so `\"` counts twice.
    expect(err.text).toContain(`${file}:6:57 sync.toHost.endpoints.patches[0].expression: assigns to btoa, which is not the expression's own`);
    expect(err.text).toContain(`${file}:8:25 sync.toHost.endpoints.patches[1].expression: assigns to virtualToHostDNS, which is not the expression's own`);
  });

  it('preview of two objects from two namespaces: the second sees the helpers the first saw, not what it assigned', async () => {
    const config = path.join(dir.dir, 'evading.yaml');
    await writeFile(config, EVADING_CONFIG);
    const objects = path.join(dir.dir, 'objects.yaml');
    const endpoints = (name: string, namespace: string, note: string): string =>
      `apiVersion: v1\nkind: Endpoints\nmetadata: {name: ${name}, namespace: ${namespace}, annotations: {note: ${note}, hijack: h, upstream: db.${namespace}.svc}}\nsubsets: [{addresses: [{ip: 10.0.0.1}], ports: [{port: 80}]}]\n`;
    await writeFile(objects, `${endpoints('web', 'shop', 'first-secret')}---\n${endpoints('web', 'billing', 'second')}`);
    const out = sink();
    const err = sink();
    expect(await runPreview({ configPath: config, objectPath: objects, vclusterName: 'vc1', hostNamespace: 'vcluster-vc1', out, err })).toBe(0);
    const hosts = parseAllDocuments(out.text).map((document) => document.toJS() as { metadata: { annotations: Record<string, string> } });
    expect(hosts.map((host) => host.metadata.annotations)).toMatchObject([
      { note: 'fresh:first-secret', hijack: 'h', upstream: 'db-x-shop-x-vc1.vcluster-vc1.svc' },
      { note: 'fresh:second', hijack: 'h', upstream: 'db-x-billing-x-vc1.vcluster-vc1.svc' },
    ]);
  });
});

describe('the running daemon', () => {
  let clusters: TwoClusters;
  let dir: { dir: string; remove: () => Promise<void> };
  let daemon: SyncerDaemon | undefined;

  beforeAll(async () => {
    clusters = await startTwoClusters();
    dir = await tempDir('vcsync-isolation-daemon-');
  });
  afterAll(async () => {
    await daemon?.stop();
    await clusters.close();
    await dir.remove();
  });

  it('writes every host object as a fresh environment computes it', async () => {
    const configPath = path.join(dir.dir, 'vcluster.yaml');
    await writeFile(configPath, EVADING_CONFIG);
    daemon = await startSyncerDaemon(clusters, configPath, { logger: silentLogger() });
    for (const namespace of ['shop', 'billing']) {
      await ensureNamespace(clusters.virtualClient, namespace);
      await createService(clusters.virtualClient, 'web', { namespace });
      await createEndpoints(clusters.virtualClient, 'web', { namespace, annotations: { note: `note-${namespace}`, hijack: 'h', upstream: `db.${namespace}.svc` } });
    }
    for (const namespace of ['shop', 'billing']) {
      const host = await waitFor(`host copy of ${namespace}/web`, () => getHostEndpoints(clusters.hostClient, clusters.hostNamespace, 'web', namespace));
      expect(host.metadata?.annotations).toMatchObject({ note: `fresh:note-${namespace}`, hijack: 'h', upstream: `db-x-${namespace}-x-vc1.vcluster-vc1.svc` });
    }
  });
});

describe('the hostile corpus interleaved with known-good expressions', () => {
  const vcluster = { name: 'vc1', namespace: 'vcluster-vc1', config: {} };
  const configPath = 'sync.toHost.endpoints.patches';
  const translators = { references: { toHost: (reference: never) => reference, toVirtual: (reference: never) => reference }, labels: { toHostKey: (key: string) => key, toVirtualKey: (key: string) => key } };
  let sandbox: PatchSandbox;
  let fresh: PatchSandbox;

  beforeAll(() => {
    sandbox = new PatchSandbox({ timeoutMs: 250, memoryLimitMiB: 16 });
    fresh = new PatchSandbox({ timeoutMs: 5000 });
  });
  afterAll(() => {
    sandbox.dispose();
    fresh.dispose();
  });

  /** Known-good expressions reading the helpers, the intrinsics and the global object. */
  const goodEntries = [
    { path: 'metadata.annotations.b64', expression: 'btoa(value) + "|" + atob(btoa(value))' },
    { path: 'metadata.annotations.dns', expression: 'virtualToHostDNS(value + ".default.svc")' },
    { path: 'metadata.annotations.shape', expression: 'JSON.stringify([typeof atob, typeof btoa, typeof virtualToHostDNS, Object.getOwnPropertyNames(globalThis).length, Object.isFrozen(globalThis), ({}).polluted, [].leak, value.toUpperCase(), /x(\\d)/.exec("x" + value.length)?.[1]])' },
  ];
  const good = compilePatches(goodEntries, { configPath, vcluster });
  /** An object the good patches reach; with `hostile`, the hostile patch too. */
  const object = (value: string, hostile = false): PatchableObject => ({
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'web-x-default-x-vc1', namespace: 'vcluster-vc1', annotations: { b64: value, dns: value, shape: value, ...(hostile ? { hostile: value } : {}) } },
  });
  const run = async (plan: PatchPlan, through: PatchSandbox, value: string, hostile = false): Promise<string> => {
    const env: PatchEnvironment = { sandbox: through, ...translators };
    const result = await applyPatches(plan, { object: object(value, hostile), hostObject: object('host'), virtualObject: object('virtual') }, env);
    return result.ok ? JSON.stringify(result.object['metadata']) : `failed: ${result.error.code}`;
  };

  it('every known-good result is what an isolate that never ran a hostile expression gives', async () => {
    if (!good.ok) throw new Error(good.errors.map((error) => error.message).join('; '));
    // Helpers are bound per plan: the hostile expression shares its plan with the good ones.
    const runnable = HOSTILE_EXPRESSIONS.flatMap(([name, expression]) => {
      const compiled = compilePatches([{ path: 'metadata.annotations.hostile', expression }, ...goodEntries], { configPath, vcluster });
      return compiled.ok ? [[name, compiled.plan] as const] : [];
    });
    expect(runnable.length).toBeGreaterThan(50);
    const mismatches: string[] = [];
    for (const [index, [name, plan]] of runnable.entries()) {
      // The hostile expression, on its object, shares crossings with the same plan on objects it
      // does not reach (only the good patches run there), and with the good plan alone.
      const values = [0, 1, 2].map((k) => `obj${index}-${k}`);
      const [, ...during] = await Promise.all([run(plan, sandbox, `h${index}`, true), ...values.map((value, k) => run(k === 2 ? good.plan : plan, sandbox, value))]);
      const after = await run(plan, sandbox, `after${index}`);
      const expected = await Promise.all([...values, `after${index}`].map((value) => run(good.plan, fresh, value)));
      [...during, after].forEach((answer, k) => {
        if (answer !== expected[k]) mismatches.push(`${name}: ${answer} instead of ${expected[k]}`);
      });
    }
    expect(mismatches).toEqual([]);
  }, 300_000);
});
