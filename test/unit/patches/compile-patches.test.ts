import { describe, expect, test } from 'vitest';
import { compilePatches, PatchErrorCode, type PatchError } from '../../../src/patches/index.js';
import { checkExpression } from '../../../src/patches/expression-check.js';

const configPath = 'sync.toHost.endpoints.patches';

function errorsOf(entries: unknown[]): readonly PatchError[] {
  const result = compilePatches(entries, { configPath });
  if (result.ok) throw new Error('expected compile errors');
  return result.errors;
}

describe('checkExpression', () => {
  test.each([
    'value + "-suffix"',
    'valueExists ? value : "default"',
    'context.hostObject?.metadata?.labels?.app ?? "none"',
    '{ ...value, extra: "1" }',
    '[1, 2].map((x) => x * 2)',
    'atob(value)',
    '(() => { const x = 1; return x; })()',
    'value // trailing comment',
    'value /* block */ ',
    '\n  value\n  + 1\n',
    'value, 2',
    '({ a: 1 })',
    '(value) + (1)',
    'class { }',
    'function () { return 1; }',
  ])('accepts %j', (text) => {
    expect(checkExpression(text)).toEqual({ ok: true });
  });

  test.each<[string, number, number, RegExp]>([
    ['a; b', 1, 2, /Unexpected ";" \(statements are not allowed\)/],
    ['value +', 1, 8, /Unexpected token/],
    ['value value', 1, 7, /Unexpected code after the expression/],
    ['let x = 1', 1, 1, /let/],
    ['var x = 1', 1, 1, /Unexpected token/],
    ['return value', 1, 1, /Unexpected token/],
    ['if (value) 1', 1, 1, /Unexpected token/],
    ['import x from "y"', 1, 8, /Unexpected token/],
    ['import.meta', 1, 1, /import\.meta/],
    ['await value', 1, 7, /Unexpected code/],
    ['yield 1', 1, 1, /yield/],
    ['010', 1, 1, /Invalid number/],
    ['', 1, 1, /Unexpected token/],
    ['value\n--> x', 2, 1, /Unexpected code/],
    ['value <!-- x', 1, 7, /Unexpected token|Unexpected code/],
    ['value /* open', 1, 7, /Unterminated comment/],
    ['1)\n; (1', 1, 2, /Unexpected code/],
    ['value +\n  )', 2, 3, /Unexpected token/],
  ])('rejects %j at line %i column %i', (text, line, column, reason) => {
    const result = checkExpression(text);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect({ line: result.line, column: result.column }).toEqual({ line, column });
    expect(result.reason).toMatch(reason);
  });

  test('syntax errors carry the authoring hint', () => {
    const result = checkExpression('value +');
    expect(!result.ok && result.reason).toBe(
      'Unexpected token; an expression must be a single JavaScript expression such as value + "-suffix"',
    );
  });

  test('import() parses but is forbidden, wherever it is nested', () => {
    for (const text of ['import("fs")', 'value ? [() => import("x")] : 1']) {
      const result = checkExpression(text);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.kind).toBe('forbidden');
    }
  });

  // What one evaluation assigns to a shared name would be seen by the next.
  test.each<[string, number]>([
    ['(typeof btoa === "function" ? (btoa = value, "first") : ("LEAKED:" + btoa))', 32],
    ['(virtualToHostDNS = (x) => "attacker.example.com", value)', 2],
    ['(leak = 1)', 2],
    ['[atob] = [1]', 2],
    ['({ a: atob } = {})', 7],
    ['btoa++', 1],
    ['(() => { for (atob of [1]) {} })()', 15],
    ['value + (globalThis = 1)', 10],
  ])('an assignment to a helper or global is forbidden, at its column: %s', (text, column) => {
    const result = checkExpression(text);
    expect(result).toMatchObject({ ok: false, kind: 'forbidden', line: 1, column, reason: expect.stringMatching(/^assigns to (btoa|virtualToHostDNS|leak|atob|globalThis), which is not the expression's own/) });
  });

  test.each([
    '(value = value + 1, value)',
    '((x) => (x = 2, x))(1)',
    '(() => { let q = 1; q += 2; return q })()',
    '(context = null, valueExists = false, value)',
    '(globalThis.x = 1)',
  ])('assigning the expression\'s own names is allowed (member writes fail at run time on frozen objects): %s', (text) => {
    expect(checkExpression(text)).toEqual({ ok: true });
  });
});

describe('compilePatches', () => {
  test('compiles every mode into a frozen plan, expressions into one sandbox program', () => {
    const result = compilePatches(
      [
        { path: 'subsets[*].addresses[*].ip', expression: 'value', reverseExpression: 'value' },
        { path: 'metadata.annotations.secret', reference: { apiVersion: 'v1', kind: 'Secret' } },
        { path: 'metadata.annotations["x.y"]', expression: '"c"' },
        { path: 'spec.selector', labels: {} },
      ],
      { configPath, vcluster: { name: 'vc', namespace: 'host', config: { a: 1 } } },
    );
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
    const { plan } = result;
    expect(Object.isFrozen(plan)).toBe(true);
    expect(plan.patches.map((p) => [p.index, p.mode, p.pathText])).toEqual([
      [0, 'expression', 'subsets[*].addresses[*].ip'],
      [1, 'reference', 'metadata.annotations.secret'],
      [2, 'expression', 'metadata.annotations["x.y"]'],
      [3, 'labels', 'spec.selector'],
    ]);
    expect(plan.expressionPatches.map((p) => p.index)).toEqual([0, 2]);
    expect(plan.hostPatches.map((p) => p.index)).toEqual([1, 3]);
    expect(plan.program?.factorySource).toContain('"c"');
    expect(JSON.parse(plan.program?.staticJson ?? '{}').vcluster).toEqual({ name: 'vc', namespace: 'host', config: { a: 1 } });
  });

  test('a plan without expressions has no sandbox program', () => {
    const result = compilePatches([{ path: 'spec.selector', labels: {} }], { configPath });
    expect(result.ok && result.plan.program).toBeUndefined();
    const empty = compilePatches([], { configPath });
    expect(empty.ok && empty.plan.patches).toEqual([]);
  });

  test('an expression error names the config path, the column and the reason', () => {
    const [error, ...rest] = errorsOf([
      { path: 'a', expression: 'value' },
      { path: 'b', expression: 'value' },
      { path: 'c', expression: 'value; value' },
    ]);
    expect(rest).toEqual([]);
    expect(error).toEqual({
      code: PatchErrorCode.EXPRESSION_SYNTAX,
      patchIndex: 2,
      configPath: 'sync.toHost.endpoints.patches[2].expression',
      configPathSegments: ['sync', 'toHost', 'endpoints', 'patches', 2, 'expression'],
      line: 1,
      column: 6,
      reason: 'Unexpected ";" (statements are not allowed); an expression must be a single JavaScript expression such as value + "-suffix"',
      message:
        'sync.toHost.endpoints.patches[2].expression: column 6: Unexpected ";" (statements are not allowed); an expression must be a single JavaScript expression such as value + "-suffix"',
    });
  });

  test('errors inside multi-line expressions name the line too', () => {
    const [error] = errorsOf([{ path: 'a', expression: 'value +\n  )' }]);
    expect(error?.message).toMatch(/^sync\.toHost\.endpoints\.patches\[0\]\.expression: line 2, column 3: Unexpected token/);
  });

  test.each<[string, unknown, string, string, RegExp]>([
    ['entry not an object', 'metadata.labels', PatchErrorCode.ENTRY_INVALID, 'patches[0]', /must be an object/],
    ['path missing', { expression: 'value' }, PatchErrorCode.ENTRY_INVALID, 'patches[0].path', /path is required/],
    ['path not a string', { path: 3, expression: 'value' }, PatchErrorCode.ENTRY_INVALID, 'patches[0].path', /must be a string/],
    ['path does not parse', { path: 'a..b', expression: 'value' }, PatchErrorCode.PATH_INVALID, 'patches[0].path', /column 3: expected a key/],
    ['metadata.name', { path: 'metadata.name', expression: '"x"' }, PatchErrorCode.PATH_PROTECTED, 'patches[0].path', /cannot be patched/],
    ['metadata.namespace quoted', { path: '["metadata"]["namespace"]', expression: '"x"' }, PatchErrorCode.PATH_PROTECTED, 'patches[0].path', /metadata\.namespace cannot be patched/],
    ['no mode', { path: 'a' }, PatchErrorCode.MODE_MISSING, 'patches[0]', /set exactly one of expression \(and\/or reverseExpression\), reference or labels/],
    ['two modes', { path: 'a', expression: 'value', labels: {} }, PatchErrorCode.MODE_CONFLICT, 'patches[0]', /sets expression and labels/],
    ['three modes', { path: 'a', expression: 'value', labels: {}, reference: { kind: 'Secret' } }, PatchErrorCode.MODE_CONFLICT, 'patches[0]', /expression and reference and labels/],
    ['reverse alone with labels', { path: 'a', reverseExpression: 'value', labels: {} }, PatchErrorCode.MODE_CONFLICT, 'patches[0]', /sets reverseExpression and labels/],
    ['expression not a string', { path: 'a', expression: 5 }, PatchErrorCode.ENTRY_INVALID, 'patches[0].expression', /must be a string/],
    ['reverse syntax', { path: 'a', expression: 'value', reverseExpression: 'value +' }, PatchErrorCode.EXPRESSION_SYNTAX, 'patches[0].reverseExpression', /column 8/],
    ['import()', { path: 'a', expression: 'import("fs")' }, PatchErrorCode.EXPRESSION_FORBIDDEN, 'patches[0].expression', /column 1: import\(\) is not available/],
    ['reference not an object', { path: 'a', reference: 'Secret' }, PatchErrorCode.REFERENCE_INVALID, 'patches[0].reference', /must be an object/],
    ['reference without kind', { path: 'a', reference: { apiVersion: 'v1' } }, PatchErrorCode.REFERENCE_INVALID, 'patches[0].reference', /needs kind/],
    ['reference field type', { path: 'a', reference: { kind: 7 } }, PatchErrorCode.REFERENCE_INVALID, 'patches[0].reference.kind', /must be a string/],
    ['reference relative path', { path: 'a', reference: { kind: 'Secret', namePath: 'x[' } }, PatchErrorCode.PATH_INVALID, 'patches[0].reference.namePath', /column 3/],
    ['labels with settings', { path: 'a', labels: { x: 1 } }, PatchErrorCode.LABELS_INVALID, 'patches[0].labels', /write labels: \{\}/],
  ])('%s', (_name, entry, code, where, reason) => {
    const errors = errorsOf([entry]);
    expect(errors.map((e) => e.code)).toContain(code);
    const error = errors.find((e) => e.code === code);
    expect(error?.configPath).toBe(`sync.toHost.endpoints.${where}`);
    expect(error?.message).toMatch(reason);
  });

  test('a reverseExpression alone is a valid one-way (host → virtual) patch, in no forward stage', () => {
    const result = compilePatches(
      [
        { path: 'metadata.annotations.a', reverseExpression: 'value + "!"' },
        { path: 'metadata.annotations.b', expression: 'value', reverseExpression: 'value' },
      ],
      { configPath: 'sync.toHost.endpoints.patches' },
    );
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
    expect(result.plan.expressionPatches.map((p) => [p.expression, p.reverseExpression])).toEqual([[undefined, 'value + "!"'], ['value', 'value']]);
    expect(result.plan.stages).toEqual([[1]]);
  });

  test('duplicate paths are found across spellings', () => {
    const errors = errorsOf([
      { path: 'metadata.annotations["a"]', expression: 'value' },
      { path: 'metadata.labels', labels: {} },
      { path: "['metadata'].annotations.a", expression: '1' },
    ]);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.code).toBe(PatchErrorCode.PATH_DUPLICATE);
    expect(errors[0]?.patchIndex).toBe(2);
    expect(errors[0]?.message).toBe(
      'sync.toHost.endpoints.patches[2].path: metadata.annotations.a is already patched by sync.toHost.endpoints.patches[0]; combine the two patches',
    );
  });

  test('reports every error of every entry, not just the first', () => {
    const errors = errorsOf([
      { path: 'metadata.name', expression: 'value;' },
      { path: 'ok', expression: 'value' },
      { path: 'b', reverseExpression: 'x x' },
      { path: 'c[', labels: { a: 1 } },
    ]);
    expect(errors.map((e) => [e.patchIndex, e.code])).toEqual([
      [0, PatchErrorCode.PATH_PROTECTED],
      [0, PatchErrorCode.EXPRESSION_SYNTAX],
      [2, PatchErrorCode.EXPRESSION_SYNTAX],
      [3, PatchErrorCode.PATH_INVALID],
      [3, PatchErrorCode.LABELS_INVALID],
    ]);
  });

  test('config path segments come from the given prefix, quoted keys included', () => {
    const result = compilePatches([{ path: 'a' }], { configPath: 'sync.toHost["custom.resources"].patches' });
    expect(!result.ok && result.errors[0]?.configPathSegments).toEqual(['sync', 'toHost', 'custom.resources', 'patches', 0]);
    expect(!result.ok && result.errors[0]?.configPath).toBe('sync.toHost["custom.resources"].patches[0]');
  });
});
