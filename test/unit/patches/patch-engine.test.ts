import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { afterAll, describe, expect, test } from 'vitest';
import {
  applyPatches,
  compilePatches,
  PatchEvaluationErrorCode,
  PatchSandbox,
  type PatchableObject,
  type PatchEnvironment,
  type PatchPlan,
} from '../../../src/patches/index.js';
import { contextReads } from '../../../src/patches/context-fields.js';
import { fakeLabels, fakeReferences } from './fixtures.js';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const sandboxes: PatchSandbox[] = [];
afterAll(() => {
  for (const sandbox of sandboxes) sandbox.dispose();
});

function newSandbox(options: ConstructorParameters<typeof PatchSandbox>[0]): PatchSandbox {
  const sandbox = new PatchSandbox(options);
  sandboxes.push(sandbox);
  return sandbox;
}

function plan(entries: unknown[]): PatchPlan {
  const result = compilePatches(entries, { configPath: 'sync.toHost.endpoints.patches', vcluster: { name: 'vc1', namespace: 'host-ns', config: {} } });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  return result.plan;
}

const endpoints = (annotation = 'b'): PatchableObject => ({
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: 'web-x-default-x-vc1', namespace: 'host-ns', annotations: { a: annotation } },
  subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }],
});

const annotation = (object: PatchableObject): unknown => (object['metadata'] as { annotations: Record<string, unknown> }).annotations['a'];

/** A sandbox that records every string handed to it: what crosses into the isolate. */
function recording(sandbox: PatchSandbox): { sandbox: PatchSandbox; sent: string[] } {
  const sent: string[] = [];
  const proxy = new Proxy(sandbox, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        for (const arg of args) if (typeof arg === 'string') sent.push(arg);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { sandbox: proxy, sent };
}

describe('context field analysis: only what the expressions read crosses', () => {
  test.each<[string, { hostObject: boolean; virtualObject: boolean; path: boolean }]>([
    ['value + "!"', { hostObject: false, virtualObject: false, path: false }],
    ['context.vcluster.name + value', { hostObject: false, virtualObject: false, path: false }],
    ['context.path', { hostObject: false, virtualObject: false, path: true }],
    ['context?.hostObject?.metadata.name', { hostObject: true, virtualObject: false, path: false }],
    ['context["virtualObject"].kind', { hostObject: false, virtualObject: true, path: false }],
    ['x.context + ({ context: 1 }).context', { hostObject: false, virtualObject: false, path: false }],
    // Uses the analysis cannot follow read everything.
    ['JSON.stringify(context)', { hostObject: true, virtualObject: true, path: true }],
    ['context[value]', { hostObject: true, virtualObject: true, path: true }],
    ['({ context }).context.path', { hostObject: true, virtualObject: true, path: true }],
    ['context.valueOf().hostObject', { hostObject: true, virtualObject: true, path: true }],
    ['arguments[2].hostObject', { hostObject: true, virtualObject: true, path: true }],
    ['(({ hostObject }) => hostObject)(context)', { hostObject: true, virtualObject: true, path: true }],
  ])('%s reads %j', (expression, expected) => {
    expect(contextReads(expression)).toEqual(expected);
  });

  test('an expression reading only context.path does not receive hostObject or virtualObject', async () => {
    const { sandbox, sent } = recording(newSandbox({ timeoutMs: 1000 }));
    const env: PatchEnvironment = { sandbox, references: fakeReferences, labels: fakeLabels };
    const hostObject = { ...endpoints(), spec: { marker: 'host-object-marker' } };
    const virtualObject = { ...endpoints(), spec: { marker: 'virtual-object-marker' } };
    const onlyPath = await applyPatches(plan([{ path: 'metadata.annotations.a', expression: 'context.path' }]), { object: endpoints(), hostObject, virtualObject }, env);
    expect(onlyPath.ok && annotation(onlyPath.object)).toBe('metadata.annotations.a');
    expect(sent.join('\n')).not.toContain('host-object-marker');
    expect(sent.join('\n')).not.toContain('virtual-object-marker');

    // The control: an expression that reads hostObject gets it, and only it.
    sent.length = 0;
    const readsHost = await applyPatches(plan([{ path: 'metadata.annotations.a', expression: 'context.hostObject.spec.marker' }]), { object: endpoints(), hostObject, virtualObject }, env);
    expect(readsHost.ok && annotation(readsHost.object)).toBe('host-object-marker');
    expect(sent.join('\n')).toContain('host-object-marker');
    expect(sent.join('\n')).not.toContain('virtual-object-marker');
  });
});

describe('coalesced crossings', () => {
  test('objects patched in the same turn share one crossing', async () => {
    const sandbox = newSandbox({ timeoutMs: 1000 });
    const env: PatchEnvironment = { sandbox, references: fakeReferences, labels: fakeLabels };
    const p = plan([{ path: 'metadata.annotations.a', expression: 'value + "!"' }]);
    await applyPatches(p, { object: endpoints(), hostObject: null, virtualObject: null }, env); // isolate and program set up
    const before = sandbox.crossings;
    const results = await Promise.all(['1', '2', '3', '4', '5'].map((a) => applyPatches(p, { object: endpoints(a), hostObject: null, virtualObject: null }, env)));
    expect(results.map((r) => r.ok && annotation(r.object))).toEqual(['1!', '2!', '3!', '4!', '5!']);
    expect(sandbox.crossings - before).toBe(1);
  });

  test('a runaway expression in a coalesced batch fails only its object; its neighbours succeed', async () => {
    const sandbox = newSandbox({ timeoutMs: 100 });
    const env: PatchEnvironment = { sandbox, references: fakeReferences, labels: fakeLabels };
    const p = plan([{ path: 'metadata.annotations.a', expression: 'value === "loop" ? (() => { for (;;) {} })() : value + "!"' }]);
    await applyPatches(p, { object: endpoints(), hostObject: null, virtualObject: null }, env);
    const before = sandbox.crossings;
    const results = await Promise.all(['1', '2', 'loop', '4', '5'].map((a) => applyPatches(p, { object: endpoints(a), hostObject: null, virtualObject: null }, env)));
    expect(results.map((r) => (r.ok ? annotation(r.object) : r.error.code))).toEqual(['1!', '2!', PatchEvaluationErrorCode.TIMEOUT, '4!', '5!']);
    // One crossing for the batch (timed out), then one per object.
    expect(sandbox.crossings - before).toBe(6);
  });

  test('an expression that exhausts the heap in a batch fails only its object; the isolate is replaced for the others', async () => {
    const sandbox = newSandbox({ timeoutMs: 10_000, memoryLimitMiB: 8 });
    const env: PatchEnvironment = { sandbox, references: fakeReferences, labels: fakeLabels };
    const p = plan([{ path: 'metadata.annotations.a', expression: 'value === "bomb" ? (() => { const a = []; for (;;) a.push({ filler: [1, 2, 3, 4, 5, 6, 7, 8] }); })() : value + "!"' }]);
    await applyPatches(p, { object: endpoints(), hostObject: null, virtualObject: null }, env);
    const results = await Promise.all(['1', 'bomb', '3'].map((a) => applyPatches(p, { object: endpoints(a), hostObject: null, virtualObject: null }, env)));
    expect(results.map((r) => (r.ok ? annotation(r.object) : r.error.code))).toEqual(['1!', PatchEvaluationErrorCode.MEMORY_LIMIT, '3!']);
    expect(sandbox.replacements).toBeGreaterThanOrEqual(2);
  });
});

describe('stages: each patch sees the writes of the ones before it', () => {
  test('overlapping paths take a crossing each, in order; independent paths share one', async () => {
    const sandbox = newSandbox({ timeoutMs: 1000 });
    const env: PatchEnvironment = { sandbox, references: fakeReferences, labels: fakeLabels };
    const overlapping = plan([
      { path: 'metadata.annotations', expression: '({ ...value, added: "x" })' },
      { path: 'metadata.annotations[*]', expression: 'value + "!"' },
      { path: 'subsets[*].addresses[*]', expression: 'context.path.endsWith("[0]") ? null : value' },
      { path: 'subsets[0].addresses[*].ip', expression: 'value + "?"' },
    ]);
    expect(overlapping.stages).toEqual([[0], [1, 2], [3]]);
    const object = endpoints();
    (object['subsets'] as { addresses: unknown[] }[])[0]?.addresses.push({ ip: '10.0.0.2' });
    const before = sandbox.crossings;
    const result = await applyPatches(overlapping, { object, hostObject: null, virtualObject: null }, env);
    expect(sandbox.crossings - before).toBe(3);
    expect(result.ok && result.object['metadata']).toEqual({ name: 'web-x-default-x-vc1', namespace: 'host-ns', annotations: { a: 'b!', added: 'x!' } });
    // The removal of addresses[0] happened before patch 3 matched: it sees the moved element.
    expect(result.ok && result.object['subsets']).toEqual([{ addresses: [{ ip: '10.0.0.2?' }], ports: [{ port: 80 }] }]);
    // Nothing of the input changed; what no patch wrote is shared.
    expect(object['subsets']).toEqual([{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }] }]);
    expect(result.ok && (result.object['subsets'] as { ports: unknown }[])[0]?.ports).toBe((object['subsets'] as { ports: unknown }[])[0]?.ports);

    const independent = plan([
      { path: 'metadata.annotations.a', expression: 'value + "!"' },
      { path: 'subsets[*].ports[*].port', expression: 'value + 1' },
    ]);
    expect(independent.stages).toEqual([[0, 1]]);
  });

  test('a patch that can reach metadata.name ends its stage, so it fails the object before later patches run', async () => {
    const sandbox = newSandbox({ timeoutMs: 1000 });
    const env: PatchEnvironment = { sandbox, references: fakeReferences, labels: fakeLabels };
    const p = plan([
      { path: 'metadata', expression: '({ ...value, name: "evil" })' },
      { path: 'subsets', expression: '(() => { throw new Error("never runs") })()' },
    ]);
    expect(p.stages).toEqual([[0], [1]]);
    const result = await applyPatches(p, { object: endpoints(), hostObject: null, virtualObject: null }, env);
    expect(!result.ok && [result.error.code, result.error.patchIndex]).toEqual([PatchEvaluationErrorCode.PROTECTED_FIELD, 0]);
  });
});

describe('the isolate runs the linted runtime files', () => {
  test('expressions are called from src/patches/isolate/runtime.js, loaded from disk', async () => {
    const sandbox = newSandbox({ timeoutMs: 1000 });
    const env: PatchEnvironment = { sandbox, references: fakeReferences, labels: fakeLabels };
    const result = await applyPatches(plan([{ path: 'metadata.annotations.a', expression: 'new Error("where").stack' }]), { object: endpoints(), hostObject: null, virtualObject: null }, env);
    const stack = String(result.ok && annotation(result.object));
    const frame = /at forwardItem \(vcsync:isolate\/runtime\.js:(\d+)/.exec(stack);
    expect(frame, stack).not.toBeNull();
    // The line the stack names is the call of the expression in the file on disk.
    const line = readFileSync(join(REPO_ROOT, 'src/patches/isolate/runtime.js'), 'utf8').split('\n')[Number(frame?.[1]) - 1];
    expect(line).toContain('expression(');
  });

  test('eslint lints the runtime files as isolate scripts: clean, and Node.js globals are errors there', async () => {
    const eslint = new ESLint({ cwd: REPO_ROOT });
    const results = await eslint.lintFiles(['src/patches/isolate/*.js']);
    expect(results.map((r) => r.filePath.replace(`${REPO_ROOT}/`, '')).sort()).toEqual(['src/patches/isolate/lockdown.js', 'src/patches/isolate/runtime.js']);
    expect(results.flatMap((r) => r.messages.map((m) => `${r.filePath}:${m.line} ${m.message}`))).toEqual([]);
    const [probe] = await eslint.lintText('(function () {\n  \'use strict\';\n  return process.env;\n})();\n', { filePath: join(REPO_ROOT, 'src/patches/isolate/probe.js') });
    expect(probe?.messages.map((m) => m.ruleId)).toEqual(['no-undef']);
  });
});

describe('hostile expressions the fuzzer found (test/unit/patches/expression-fuzz.test.ts)', () => {
  test('a promise one object left rejected fails only that object, as a throw; its neighbours in the crossing succeed', async () => {
    const sandbox = newSandbox({ timeoutMs: 1000 });
    const env: PatchEnvironment = { sandbox, references: fakeReferences, labels: fakeLabels };
    const p = plan([{ path: 'metadata.annotations.a', expression: 'value === "reject" ? (Promise.reject(new TypeError("later")), value) : value + "!"' }]);
    const results = await Promise.all(['1', 'reject', '3'].map((a) => applyPatches(p, { object: endpoints(a), hostObject: null, virtualObject: null }, env)));
    expect(results.map((r) => (r.ok ? annotation(r.object) : r.error.code))).toEqual(['1!', PatchEvaluationErrorCode.THREW, '3!']);
    const failed = results[1];
    expect(failed !== undefined && !failed.ok && failed.error.message).toContain('a promise the expression created was rejected and not handled (TypeError: later)');
  });

  test("an expression cannot read an earlier object's regex match through RegExp's legacy static properties", async () => {
    const sandbox = newSandbox({ timeoutMs: 1000 });
    const env: PatchEnvironment = { sandbox, references: fakeReferences, labels: fakeLabels };
    const matches = await applyPatches(plan([{ path: 'metadata.annotations.a', expression: '(/(secret-[a-z]+)/.exec(value), value)' }]), { object: endpoints('secret-abc'), hostObject: null, virtualObject: null }, env);
    expect(matches.ok).toBe(true);
    const reads = await applyPatches(plan([{ path: 'metadata.annotations.a', expression: '[RegExp.$1, RegExp.lastMatch, RegExp.input, RegExp["$_"], RegExp.leftContext].map(String).join()' }]), { object: endpoints(), hostObject: null, virtualObject: null }, env);
    expect(reads.ok && annotation(reads.object)).toBe('undefined,undefined,undefined,undefined,undefined');
  });

  test('a result larger than an object can hold fails its object at once (a string built by repetition is not flattened and copied out)', async () => {
    const sandbox = newSandbox({ timeoutMs: 250, memoryLimitMiB: 16 });
    const env: PatchEnvironment = { sandbox, references: fakeReferences, labels: fakeLabels };
    const p = plan([{ path: 'metadata.annotations.a', expression: 'value === "huge" ? "x".repeat(1 << 28) : value === "many" ? Array.from({ length: 4 }, () => "y".repeat(1 << 20)) : value + "!"' }]);
    const results = await Promise.all(['huge', 'many', '3'].map((a) => applyPatches(p, { object: endpoints(a), hostObject: null, virtualObject: null }, env)));
    expect(results.map((r) => (r.ok ? annotation(r.object) : r.error.code))).toEqual([PatchEvaluationErrorCode.RESULT_NOT_JSON, PatchEvaluationErrorCode.RESULT_NOT_JSON, '3!']);
    const huge = results[0];
    expect(huge !== undefined && !huge.ok && huge.error.detail).toContain('the result is too large: the results for one object may hold at most 3145728 characters');
  }, 60_000);
});
