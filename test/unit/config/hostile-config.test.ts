import { LineCounter, parseDocument, stringify, type YAMLMap } from 'yaml';
import { describe, expect, it } from 'vitest';
import { checkConfigText } from '../../../src/config/check-config.js';
import { ConfigErrorCode, type ConfigError } from '../../../src/config/config-error.js';
import { createConfigSource } from '../../../src/config/config-source.js';
import { configErrorAt, parseConfig } from '../../../src/config/parse-config.js';
import { describeUnknownKey } from '../../../src/config/unknown-key-hint.js';
import { registryConfigSchema } from '../../../src/syncer/resources.js';

// Each case here was found by test/integration/config/config-fuzz.test.ts.

const FILE = 'vcluster.yaml';

function errorsOf(text: string): readonly ConfigError[] {
  const result = parseConfig(text, FILE, registryConfigSchema());
  if (result.ok) throw new Error(`expected errors for ${JSON.stringify(text.slice(0, 80))}`);
  return result.errors;
}

describe('hostile YAML: one located error that says what is wrong, in the user’s terms', () => {
  it('nesting too deep for the parser: one error saying so, not "Maximum call stack size exceeded" once per level', () => {
    for (const text of [`x: ${'['.repeat(3000)}${']'.repeat(3000)}\n`, `x: ${'{a: '.repeat(3000)}1${'}'.repeat(3000)}\n`]) {
      expect(errorsOf(text)).toEqual([expect.objectContaining({ code: ConfigErrorCode.YAML_SYNTAX, path: '', line: 1, column: 1, message: expect.stringMatching(/nested more than 100 levels deep/) as unknown })]);
    }
  });

  it('nesting is limited in levels, not by the call stack: the verdict cannot depend on the process (validate vs a reload in the daemon)', () => {
    // 150 levels: the parser reads it in any process; one with less stack left would overflow at some depth.
    for (const text of [`controlPlane: ${'['.repeat(150)}${']'.repeat(150)}\n`, `controlPlane:\n${Array.from({ length: 150 }, (_, i) => `${' '.repeat(i + 1)}k${i}:`).join('\n')} 1\n`]) {
      expect(errorsOf(text)).toEqual([expect.objectContaining({ code: ConfigErrorCode.YAML_SYNTAX, line: 1, column: 1, message: expect.stringMatching(/nested more than 100 levels deep/) as unknown })]);
    }
    expect(parseConfig(`controlPlane: ${'['.repeat(90)}${']'.repeat(90)}\n`, FILE, registryConfigSchema()).ok).toBe(true);
  });

  it('aliases that nest anchored values inside each other count their expanded depth', () => {
    // Thirty levels per line, each line's list inside the next one's: 120 levels once expanded.
    const open = '['.repeat(30);
    const close = ']'.repeat(30);
    const chain = [`a0: &a0 ${open}1${close}`, ...Array.from({ length: 3 }, (_, i) => `a${i + 1}: &a${i + 1} ${open}*a${i}${close}`)].join('\n');
    expect(errorsOf(`controlPlane:\n  ${chain.replace(/\n/g, '\n  ')}\n`)).toEqual([expect.objectContaining({ line: 1, column: 1, message: expect.stringMatching(/nested more than 100 levels deep/) as unknown })]);
  });

  it('an alias inside the node its own anchor names: located at the alias', () => {
    const [error, ...rest] = errorsOf('sync: {}\nloop: &a [1, *a]\n');
    expect(rest).toEqual([]);
    expect(error).toMatchObject({ code: ConfigErrorCode.YAML_SYNTAX, line: 2, column: 14 });
    expect(error?.message).toMatch(/alias \*a is inside the value its anchor &a names/);
  });

  it('a syntax error about a huge token quotes only its start', () => {
    const errors = errorsOf(`- a\nb: ${'y'.repeat(100_000)}\n`);
    expect(errors.map((error) => error.code)).toContain(ConfigErrorCode.YAML_SYNTAX);
    expect(errors.map((error) => error.message).join('\n')).toContain('Unexpected scalar token in YAML stream: "yyyy');
    for (const error of errors) expect(error.message.length).toBeLessThan(250);
  });

  it('several YAML documents: says so without naming the parser library’s functions', () => {
    const [error] = errorsOf('sync: {}\n---\nsync: {}\n');
    expect(error).toMatchObject({ code: ConfigErrorCode.YAML_SYNTAX, line: 2 });
    expect(error?.message).toMatch(/more than one YAML document/);
    expect(error?.message).not.toMatch(/parseAllDocuments/);
  });

  it('YAML 1.1 tags (!!binary, !!omap, !!set) are read as the plain values they tag, which the schema then checks', () => {
    expect(parseConfig('controlPlane: !!binary aGVsbG8=\nnetworking: !!set {a, b}\n', FILE, registryConfigSchema()).ok).toBe(true);
    expect(errorsOf('sync:\n  toHost:\n    endpoints:\n      enabled: !!binary dHJ1ZQ==\n')).toEqual([
      expect.objectContaining({ code: ConfigErrorCode.INVALID_TYPE, path: 'sync.toHost.endpoints.enabled', line: 4, column: 25 }),
    ]);
    // Resolved, the ordered map became a Map, in which the schema saw no keys: toHost: 1 passed.
    expect(errorsOf('sync: !!omap [toHost: 1]\n')).toEqual([expect.objectContaining({ code: ConfigErrorCode.INVALID_TYPE, path: 'sync' })]);
  });

  it('a mapping or list as a key prints no warning on the process’s stderr (it is reported as an unknown key)', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      expect(errorsOf('? [a, b]\n: 1\nsync:\n  ? {a: 1}\n  : 2\n').map((error) => error.code)).toEqual([ConfigErrorCode.UNKNOWN_KEY, ConfigErrorCode.UNKNOWN_KEY]);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((warning) => warning.message)).toEqual([]);
  });

  it('a key written twice among thousands is reported at its second occurrence', () => {
    const keys = Array.from({ length: 3000 }, (_, i) => `  k${i}: ${i}`);
    keys.splice(2000, 0, '  k17: again');
    expect(errorsOf(`controlPlane:\n${keys.join('\n')}\n`)).toEqual([expect.objectContaining({ code: ConfigErrorCode.YAML_SYNTAX, line: 2002, column: 3, message: 'invalid YAML: Map keys must be unique' })]);
  });
});

describe('thousands of errors cost work in proportion to them, not to their square', () => {
  const manyKeys = (count: number): Record<string, number> => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i]));

  it('locating every key of a large mapping reads each entry a bounded number of times', () => {
    const count = 400;
    const text = stringify({ sync: manyKeys(count) });
    const lineCounter = new LineCounter();
    const document = parseDocument(text, { lineCounter });
    const map = document.get('sync', true) as YAMLMap;
    let reads = 0;
    map.items = new Proxy(map.items, {
      get(target, property, receiver) {
        if (typeof property === 'string' && /^\d+$/.test(property)) reads += 1;
        return Reflect.get(target, property, receiver) as unknown;
      },
    });
    const source = createConfigSource({ fileName: FILE, text, document, lineCounter });
    for (let i = 0; i < count; i++) expect(source.locateKey(['sync', `k${i}`])).toEqual({ line: i + 2, column: 3 });
    expect(reads).toBeLessThanOrEqual(3 * count);
  });

  it('explaining an unknown key that belongs nowhere does not enumerate its mapping', () => {
    let enumerations = 0;
    const sync = new Proxy(manyKeys(300), {
      ownKeys(target) {
        enumerations += 1;
        return Reflect.ownKeys(target);
      },
    });
    for (let i = 0; i < 300; i++) expect(describeUnknownKey({ schema: registryConfigSchema().schema, data: { sync }, path: ['sync'], key: `k${i}` }).code).toBe(ConfigErrorCode.UNKNOWN_KEY);
    expect(enumerations).toBe(0);
  });

  it('a validator’s errors are checked against the schema’s by lookup, not by comparing each with every schema error', async () => {
    const count = 300;
    const text = stringify({ sync: manyKeys(count), networking: 1 });
    let pathReads = 0;
    const result = await checkConfigText(text, FILE, registryConfigSchema(), [
      (_data, source) =>
        Array.from({ length: count }, (_, i) => {
          const error = configErrorAt(source, ['networking'], 'TEST_CHECK', `problem ${i}`);
          return Object.defineProperty({ ...error }, 'path', {
            enumerable: true,
            get: () => {
              pathReads += 1;
              return error.path;
            },
          });
        }),
    ]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.filter((error) => error.code === 'TEST_CHECK')).toHaveLength(count);
    // Sorting reads each path a few times; comparing with each of the 300 schema errors read it 300 times.
    expect(pathReads).toBeLessThan(30 * count);
  });
});
