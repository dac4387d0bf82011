import { createHash } from 'node:crypto';
import { afterAll, describe, expect, test } from 'vitest';
import {
  applyPatches,
  compilePatches,
  PatchEvaluationErrorCode,
  PatchSandbox,
  reversePatches,
  type PatchableObject,
  type PatchEnvironment,
  type PatchPlan,
  type VClusterContext,
} from '../../../src/patches/index.js';
import { buildFactorySource } from '../../../src/patches/sandbox-runtime.js';
import { MATCH_TABLE, deepFreeze, endpointsForMatching, fakeLabels, fakeReferences } from './fixtures.js';

const configPath = 'sync.toHost.endpoints.patches';
const sandbox = new PatchSandbox({ timeoutMs: 50, memoryLimitMiB: 16 });
const env: PatchEnvironment = { sandbox, references: fakeReferences, labels: fakeLabels };
afterAll(() => sandbox.dispose());

function plan(entries: unknown[], vcluster: VClusterContext = { name: 'vc1', namespace: 'host-ns', config: { sync: { toHost: {} } } }): PatchPlan {
  const result = compilePatches(entries, { configPath, vcluster });
  if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
  return result.plan;
}

const endpoints = (): PatchableObject => ({
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: 'web-x-default-x-vc1', namespace: 'host-ns', annotations: { a: 'b' } },
  subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }],
});

/** Evaluates one expression at `metadata.annotations.a` (which exists) and returns the written value or the error. */
async function evaluate(expression: string, object: PatchableObject = endpoints()): Promise<unknown> {
  const result = await applyPatches(plan([{ path: 'metadata.annotations.a', expression }]), {
    object,
    virtualObject: null,
    hostObject: null,
  }, env);
  if (!result.ok) return { error: result.error.code, detail: result.error.detail };
  return (result.object['metadata'] as { annotations: Record<string, unknown> }).annotations['a'];
}

describe('expressions and helpers', () => {
  test('value, valueExists and context as the patch format defines them', async () => {
    const result = await applyPatches(
      plan([{ path: 'metadata.annotations[*]', expression: '[value, valueExists, context.path, context.vcluster.name, context.vcluster.namespace, context.vcluster.config.sync.toHost, context.hostObject?.kind ?? null, context.virtualObject.metadata.name]' }]),
      { object: endpoints(), virtualObject: { metadata: { name: 'web', namespace: 'default' } }, hostObject: null },
      env,
    );
    expect(result.ok && result.object['metadata']).toEqual({
      name: 'web-x-default-x-vc1',
      namespace: 'host-ns',
      annotations: { a: ['b', true, 'metadata.annotations.a', 'vc1', 'host-ns', {}, null, 'web'] },
    });
  });

  test('a missing last key is not applied, so valueExists is always true', async () => {
    const object = deepFreeze(endpoints());
    const result = await applyPatches(
      plan([
        { path: 'metadata.annotations.missing', expression: 'valueExists ? "had" : "added:" + String(value)' },
        { path: 'metadata.labels', expression: '({ added: "yes" })' },
        { path: 'metadata.annotations.a', expression: 'valueExists ? "had" : "missing"' },
      ]),
      { object, virtualObject: null, hostObject: null, record: true },
      env,
    );
    expect(result.ok && result.object['metadata']).toEqual({ name: 'web-x-default-x-vc1', namespace: 'host-ns', annotations: { a: 'had' } });
    expect(result.ok && result.applied).toEqual([{ patchIndex: 2, path: 'metadata.annotations.a', outcome: 'set' }]);
  });

  test('btoa and atob follow browser semantics', async () => {
    expect(await evaluate('btoa("hello world")')).toBe('aGVsbG8gd29ybGQ=');
    expect(await evaluate('atob("aGVsbG8gd29ybGQ=")')).toBe('hello world');
    expect(await evaluate('atob(" aGVs bG8\\n")')).toBe('hello');
    expect(await evaluate('btoa("\\u00ff\\u00fe")')).toBe('//4=');
    expect(await evaluate('atob(btoa("\\u0000\\u0080\\u00ff"))')).toBe('\u0000\u0080\u00ff');
    expect(await evaluate('btoa("€")')).toMatchObject({ error: PatchEvaluationErrorCode.THREW, detail: expect.stringMatching(/^InvalidCharacterError: btoa/) });
    expect(await evaluate('atob("a")')).toMatchObject({ error: PatchEvaluationErrorCode.THREW, detail: expect.stringMatching(/^InvalidCharacterError: atob/) });
    expect(await evaluate('atob("ab!=")')).toMatchObject({ error: PatchEvaluationErrorCode.THREW });
  });

  test('virtualToHostDNS rewrites service DNS names like the syncer names services', async () => {
    expect(await evaluate('virtualToHostDNS("web.default.svc")')).toBe('web-x-default-x-vc1.host-ns.svc');
    expect(await evaluate('virtualToHostDNS("web.default.svc.cluster.local")')).toBe('web-x-default-x-vc1.host-ns.svc.cluster.local');
    expect(await evaluate('virtualToHostDNS("example.com")')).toBe('example.com');
    // vcluster's long-name rule: a 40-character name in default of my-vcluster.
    const long = 'a'.repeat(40);
    const result = await applyPatches(
      plan([{ path: 'metadata.annotations.a', expression: `virtualToHostDNS("${long}.default.svc")` }], { name: 'my-vcluster', namespace: 'h', config: {} }),
      { object: endpoints(), virtualObject: null, hostObject: null },
      env,
    );
    expect(result.ok && (result.object['metadata'] as { annotations: Record<string, unknown> }).annotations['a']).toBe(
      `${long}-x-default-x-7799225210.h.svc`,
    );
  });

  test('the in-isolate SHA-256 agrees with node:crypto (via safeConcatName)', async () => {
    for (const name of ['x'.repeat(60), 'ünïcødé-'.repeat(8), 'a-'.repeat(40), 'b'.repeat(200)]) {
      const full = `${name}-x-ns-x-vc1`;
      const hex = createHash('sha256').update(full).digest('hex').slice(0, 10);
      const expected = `${full.slice(0, 52)}-${hex}`.split('.-').join('-');
      expect(await evaluate(`virtualToHostDNS(${JSON.stringify(`${name}.ns.svc`)}).split(".host-ns.svc")[0]`)).toBe(expected);
    }
  });

  test.each(MATCH_TABLE)('the sandbox matches %s like the host matcher', async (path, expected) => {
    // Forward patches match on the host side (path-match.ts); the runtime matches for reverse
    // patches. Every location it matches in the host object is written back or skipped.
    const result = await reversePatches(plan([{ path, expression: 'value', reverseExpression: 'value' }]), {
      virtualObject: { metadata: { name: 'web' } },
      hostObject: structuredClone(endpointsForMatching),
    }, env);
    expect(result.ok && [...result.applied, ...result.skipped].map((a) => a.path).sort()).toEqual([...expected].sort());
  });
});

describe('failures become PatchEvaluationError data', () => {
  test.each<[string, string, RegExp]>([
    ['thrown error', '(() => { throw new RangeError("nope") })()', /^RangeError: nope$/],
    ['thrown non-error', '(() => { throw 42 })()', /^threw 42$/],
    ['unknown name', 'missingVariable + 1', /^ReferenceError: missingVariable is not defined$/],
    ['property of undefined', 'value.deep.x', /^TypeError: Cannot read properties of undefined/],
    ['throwing getter in the error', '(() => { throw { get message() { throw 1 } } })()', /cannot be described/],
  ])('%s → PATCH_EVAL_THREW', async (_name, expression, detail) => {
    const result = await applyPatches(plan([{ path: 'metadata.annotations.a', expression: 'value' }, { path: 'subsets[*].addresses[*].ip', expression }]), {
      object: endpoints(), virtualObject: null, hostObject: null,
    }, env);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe(PatchEvaluationErrorCode.THREW);
    expect(result.error.patchIndex).toBe(1);
    expect(result.error.configPath).toBe('sync.toHost.endpoints.patches[1].expression');
    expect(result.error.objectPath).toBe('subsets[0].addresses[0].ip');
    expect(result.error.detail).toMatch(detail);
    expect(result.error.message).toContain('sync.toHost.endpoints.patches[1].expression: ');
  });

  test.each<[string, RegExp]>([
    ['() => 1', /is a function/],
    ['Symbol("s")', /is a symbol/],
    ['10n', /BigInt/],
    ['(() => { const a = {}; a.self = a; return a })()', /cycle/],
    ['[1, NaN]', /the result\[1\] is NaN/],
    ['{ when: new Date(0) }', /the result\.when is not a plain object/],
    ['new Map()', /not a plain object/],
    ['[undefined]', /the result\[0\] is undefined/],
    ['Promise.resolve(1)', /not a plain object/],
  ])('non-JSON result %s → PATCH_EVAL_RESULT_NOT_JSON', async (expression, detail) => {
    const result = await evaluate(expression);
    expect(result).toMatchObject({ error: PatchEvaluationErrorCode.RESULT_NOT_JSON, detail: expect.stringMatching(detail) });
  });

  test('object members that are undefined are dropped, as JSON does', async () => {
    expect(await evaluate('({ a: 1, b: undefined })')).toEqual({ a: 1 });
  });

  test('an infinite loop hits the timeout, and the sandbox keeps working', async () => {
    const result = await evaluate('(() => { while (true) {} })()');
    expect(result).toMatchObject({ error: PatchEvaluationErrorCode.TIMEOUT });
    expect(await evaluate('"alive"')).toBe('alive');
  });

  test('a huge string hits the memory limit; the isolate is replaced for the next call', async () => {
    const own = new PatchSandbox({ memoryLimitMiB: 8, timeoutMs: 10_000 });
    try {
      const ownEnv = { ...env, sandbox: own };
      const bomb = plan([{ path: 'metadata.annotations.a', expression: '"x".repeat(2 ** 30)' }]);
      const first = await applyPatches(bomb, { object: endpoints(), virtualObject: null, hostObject: null }, ownEnv);
      expect(!first.ok && first.error.code).toMatch(/^PATCH_EVAL_(MEMORY_LIMIT|THREW)$/);
      const growing = plan([{ path: 'metadata.annotations.a', expression: '(() => { const a = []; for (;;) a.push({ filler: [1, 2, 3, 4, 5, 6, 7, 8] }); })()' }]);
      const second = await applyPatches(growing, { object: endpoints(), virtualObject: null, hostObject: null }, ownEnv);
      expect(!second.ok && second.error.code).toBe(PatchEvaluationErrorCode.MEMORY_LIMIT);
      expect(own.replacements).toBeGreaterThanOrEqual(1);
      const after = await applyPatches(plan([{ path: 'metadata.annotations.a', expression: 'value + "!"' }]), {
        object: endpoints(), virtualObject: null, hostObject: null,
      }, ownEnv);
      expect(after.ok && after.object['metadata']).toMatchObject({ annotations: { a: 'b!' } });
    } finally {
      own.dispose();
    }
  });

  test('a disposed sandbox answers unavailable', async () => {
    const own = new PatchSandbox();
    own.dispose();
    const result = await applyPatches(plan([{ path: 'metadata.annotations.a', expression: 'value' }]), {
      object: endpoints(), virtualObject: null, hostObject: null,
    }, { ...env, sandbox: own });
    expect(!result.ok && result.error.code).toBe(PatchEvaluationErrorCode.SANDBOX_UNAVAILABLE);
  });

  test('keeps a worker whose answer arrived in time, however long this process was too busy to read it', async () => {
    const own = new PatchSandbox({ timeoutMs: 20 });
    try {
      const patches = plan([{ path: 'metadata.annotations.a', expression: '"patched"' }]);
      const run = () => applyPatches(patches, { object: endpoints(), virtualObject: null, hostObject: null }, { ...env, sandbox: own });
      expect((await run()).ok).toBe(true); // the worker started and the program loaded
      const answered = run();
      // The crossing is sent on the next turn; right after it, this process is held well past
      // twice the time limit while the worker answers at once, as on a loaded machine.
      setImmediate(() => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300));
      const result = await answered;
      expect(result.ok && (result.object['metadata'] as { annotations: Record<string, unknown> }).annotations['a']).toBe('patched');
      expect(own.abandoned).toBe(0);
    } finally {
      own.dispose();
    }
  });

  test('options are validated and frozen', () => {
    expect(() => new PatchSandbox({ memoryLimitMiB: 4 })).toThrow(RangeError);
    expect(() => new PatchSandbox({ timeoutMs: 0 })).toThrow(RangeError);
    const own = new PatchSandbox({ timeoutMs: 75 });
    expect(own.options.timeoutMs).toBe(75);
    expect(own.options.memoryLimitMiB).toBe(32);
    expect(own.options.workerV8Flags).toEqual([]);
    expect(Object.isFrozen(own.options)).toBe(true);
    expect(() => new PatchSandbox({ workerV8Flags: ['max-opt=1'] })).toThrow(RangeError);
    expect(() => new PatchSandbox({ workerV8Flags: ['--max-opt=1 --allow-natives-syntax'] })).toThrow(RangeError);
    const flags = ['--no-opt'];
    const flagged = new PatchSandbox({ workerV8Flags: flags });
    flags.push('--max-opt=1');
    expect(flagged.options.workerV8Flags).toEqual(['--no-opt']);
    expect(Object.isFrozen(flagged.options.workerV8Flags)).toBe(true);
  });

  test('a worker started with extra V8 flags evaluates as any other', async () => {
    const own = new PatchSandbox({ workerV8Flags: ['--no-opt'] });
    try {
      const patches = plan([{ path: 'metadata.annotations.a', expression: 'value.replace(/^b$/, "c") + "-" + context.vcluster.name' }]);
      const result = await applyPatches(patches, { object: endpoints(), virtualObject: null, hostObject: null }, { ...env, sandbox: own });
      expect(result.ok && (result.object['metadata'] as { annotations: Record<string, unknown> }).annotations['a']).toBe('c-vc1');
    } finally {
      own.dispose();
    }
  });
});

describe('nothing escapes the sandbox', () => {
  test.each<[string, string]>([
    ['process', 'typeof process'],
    ['require', 'typeof require'],
    ['module', 'typeof module'],
    ['setTimeout', 'typeof setTimeout'],
    ['fetch', 'typeof fetch'],
    ['Buffer', 'typeof Buffer'],
    ['WebAssembly', 'typeof WebAssembly'],
    ['SharedArrayBuffer', 'typeof SharedArrayBuffer'],
    ['eval', 'typeof eval'],
    ['Function', 'typeof Function'],
    ['globalThis.process', 'typeof globalThis.process'],
    ['globalThis.ivm', 'typeof globalThis.ivm'],
  ])('%s is not there', async (_name, expression) => {
    expect(await evaluate(expression)).toBe('undefined');
  });

  test('globalThis holds only ECMAScript built-ins', async () => {
    const names = (await evaluate('Object.getOwnPropertyNames(globalThis).sort()')) as string[];
    for (const forbidden of ['process', 'require', 'eval', 'Function', 'WebAssembly', 'setTimeout', 'ivm', '_ivm', 'isolatedVm']) {
      expect(names).not.toContain(forbidden);
    }
    expect(names).toContain('JSON');
  });

  test.each<[string, string, RegExp]>([
    ['this.constructor.constructor', 'this.constructor.constructor("return process")()', /TypeError/],
    ['function constructor', '(() => {}).constructor("return process")()', /EvalError: code generation from strings is disabled/],
    ['async function constructor', '(async () => {}).constructor("return 1")', /EvalError/],
    ['generator constructor', '(function* () {}).constructor("yield 1")', /EvalError/],
    ['Reflect.construct of Function', 'Reflect.construct(Object.getPrototypeOf(() => {}).constructor, ["return 1"])', /EvalError/],
    ['indirect eval', '(0, globalThis["ev" + "al"])("1")', /TypeError/],
    ['prototype pollution', '(Object.prototype.polluted = 1)', /TypeError: Cannot add property polluted/],
    ['redefining a built-in', '(JSON.stringify = () => "{}")', /TypeError: Cannot assign to read only property/],
    ['adding a global', '(globalThis.leak = 1)', /TypeError/],
    ['Array.prototype method', '(Array.prototype.push = null)', /TypeError/],
    ['iterator prototype', '(Object.getPrototypeOf([][Symbol.iterator]()).next = null)', /TypeError/],
    ['helpers are frozen', '(btoa.extra = 1)', /TypeError/],
    ['context is frozen', '(context.path = "x")', /TypeError/],
    ['hostObject is frozen', '(context.virtualObject.metadata.name = "x")', /TypeError/],
    ['config is frozen', '(context.vcluster.config.sync = 1)', /TypeError/],
  ])('%s fails with an error', async (_name, expression, detail) => {
    const result = await applyPatches(plan([{ path: 'metadata.annotations.a', expression }]), {
      object: endpoints(), virtualObject: { metadata: { name: 'web' } }, hostObject: null,
    }, env);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe(PatchEvaluationErrorCode.THREW);
    expect(result.error.detail).toMatch(detail);
  });

  test('import() cannot reach a module loader even if it got past the check', async () => {
    // compilePatches rejects import(); feed it to the sandbox directly to show the isolate refuses too.
    const program = {
      factorySource: buildFactorySource([{ forward: 'import("node:fs")', reverse: undefined }]),
      staticJson: JSON.stringify({ vcluster: { name: 'vc', namespace: 'h', config: {} }, patches: [{ index: 0, path: [{ kind: 'key', key: 'x' }], forwardField: 'f', reverseField: 'r' }] }),
    };
    const answer = await sandbox.evaluate(program, JSON.stringify([null, null, 0, 'x', 1]));
    // The isolate has no module loader: import() returns a rejected promise, which fails the call.
    expect(answer).toMatchObject({ ok: false, kind: 'rejected' });
    expect(!answer.ok && answer.detail).toContain('a promise the expression created was rejected and not handled');
    expect(await evaluate('"still fine"')).toBe('still fine');
  });

  test('a helper cannot be reassigned, even past the compile check: every evaluation sees the same helpers', async () => {
    // compilePatches rejects assignments to helpers and globals; feed them to the sandbox directly.
    const program = {
      factorySource: buildFactorySource([
        { forward: '(btoa = () => "hijacked", "assigned")', reverse: undefined },
        { forward: '(leak = 1)', reverse: undefined },
        { forward: 'btoa(value)', reverse: undefined },
      ]),
      staticJson: JSON.stringify({ vcluster: { name: 'vc', namespace: 'h', config: {} }, patches: [0, 1, 2].map((index) => ({ index, path: [{ kind: 'key', key: 'x' }], forwardField: 'f', reverseField: 'r' })) }),
    };
    expect(await sandbox.evaluate(program, JSON.stringify([null, null, 0, 'x', 'a']))).toMatchObject({ ok: true, answer: [0, 'PATCH_EVAL_THREW', 0, expect.stringMatching(/TypeError: Assignment to constant variable/)] });
    expect(await sandbox.evaluate(program, JSON.stringify([null, null, 1, 'x', 'a']))).toMatchObject({ ok: true, answer: [0, 'PATCH_EVAL_THREW', 0, expect.stringMatching(/ReferenceError/)] });
    expect(await sandbox.evaluate(program, JSON.stringify([null, null, 2, 'x', 'a']))).toEqual({ ok: true, answer: [1, 'YQ=='] });
  });

  test('no state leaks from one evaluation or object to the next', async () => {
    const poisoners = [
      'Object.defineProperty(Object.prototype, "x", { get() { return 1 } })',
      'Object.setPrototypeOf(Object.prototype, { x: 1 })',
      '(Math.leak = 1)',
      'Reflect.set(Array.prototype, "includes", () => true)',
    ];
    for (const expression of poisoners) {
      await evaluate(`(() => { try { ${expression} } catch (e) {} return "done" })()`);
    }
    expect(await evaluate('[({}).x === undefined, Math.leak === undefined, [1].includes(2), typeof globalThis.leak]')).toEqual([true, true, false, 'undefined']);
  });

  test('mutating value changes only a private copy', async () => {
    const object = deepFreeze(endpoints());
    const result = await applyPatches(
      plan([
        { path: 'subsets[0]', expression: '(value.addresses.push({ ip: "9.9.9.9" }), value.addresses.length)' },
        { path: 'metadata.annotations.a', expression: 'context.hostObject.subsets[0].addresses.length' },
      ]),
      { object, virtualObject: null, hostObject: object },
      env,
    );
    expect(result.ok && result.object['subsets']).toEqual([2]);
    expect(result.ok && (result.object['metadata'] as { annotations: Record<string, unknown> }).annotations['a']).toBe(1);
  });
});
