import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfigValidator } from '../../../src/config/check-config.js';
import { runValidate } from '../../../src/cli/run-validate.js';
import { registerValidateCommand } from '../../../src/cli/validate-command.js';
import { ConfigErrorCode } from '../../../src/config/config-error.js';
import { valueAtConfigPath } from '../../../src/config/config-path.js';
import { loadConfigFile } from '../../../src/config/load-config-file.js';
import { configErrorAt } from '../../../src/config/parse-config.js';
import { resourceValidators } from '../../../src/syncer/syncable-resource.js';
import { SYNCABLE_RESOURCES } from '../../../src/syncer/resources.js';
import { registryConfigSchema } from '../../../src/syncer/resources.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

function capture(): { write(text: string): boolean; text(): string } {
  let buffer = '';
  return {
    write(text: string) {
      buffer += text;
      return true;
    },
    text: () => buffer,
  };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vcsync-validate-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('vcsync validate', () => {
  it('accepts the example config/vcluster.yaml', async () => {
    const out = capture();
    const err = capture();
    const path = join(repoRoot, 'config/vcluster.yaml');
    expect(await runValidate({ configPath: path, validators: [], out, err })).toBe(0);
    expect(out.text()).toBe(`${path} is valid\n`);
    expect(err.text()).toBe('');
  });

  it('accepts a patch with only reverseExpression (a one-way host → virtual transform, valid in vcluster), and still refuses one with no mode', async () => {
    const path = join(dir, 'reverse-only.yaml');
    await writeFile(path, [
      'sync:', '  toHost:', '    endpoints:', '      patches:',
      '        - path: metadata.annotations["example.com/ip"]',
      '          reverseExpression: \'"host-" + value\'',
    ].join('\n'));
    const out = capture();
    const err = capture();
    expect(await runValidate({ configPath: path, validators: resourceValidators(SYNCABLE_RESOURCES), out, err })).toBe(0);
    expect(err.text()).toBe('');

    await writeFile(path, 'sync:\n  toHost:\n    endpoints:\n      patches:\n        - path: a\n');
    const noMode = capture();
    expect(await runValidate({ configPath: path, validators: resourceValidators(SYNCABLE_RESOURCES), out: capture(), err: noMode })).toBe(1);
    expect(noMode.text()).toContain('sync.toHost.endpoints.patches[0]: the patch sets no mode; set exactly one of expression (and/or reverseExpression), reference or labels');
  });

  it('prints every error with file:line:column and exits 1', async () => {
    const path = join(dir, 'bad.yaml');
    await writeFile(path, 'sync:\n  toHost:\n    endpoints:\n      enabled: yes\n      patchs: []\n');
    const out = capture();
    const err = capture();
    expect(await runValidate({ configPath: path, validators: [], out, err })).toBe(1);
    expect(out.text()).toBe('');
    expect(err.text().split('\n')).toEqual([
      `${path}:4:16 sync.toHost.endpoints.enabled: must be a boolean (true or false), got "yes"`,
      `${path}:5:7 sync.toHost.endpoints.patchs: unknown key; did you mean "patches"? allowed keys: enabled, patches`,
      `${path}: 2 errors`,
      '',
    ]);
  });

  it('reports an unreadable file', async () => {
    const err = capture();
    const path = join(dir, 'missing.yaml');
    expect(await runValidate({ configPath: path, validators: [], out: capture(), err })).toBe(1);
    expect(err.text()).toContain(`${path} cannot read the config file: the file does not exist`);
  });

  it('runs every extra validator on a schema-valid config and merges their errors by position', async () => {
    const path = join(dir, 'patches.yaml');
    await writeFile(
      path,
      'sync:\n  toHost:\n    endpoints:\n      patches:\n        - path: a\n          expression: "bad("\n        - path: b\n          labels: {}\n',
    );
    const seen: string[] = [];
    const second: ConfigValidator = (_config, source) => {
      seen.push('second');
      return [configErrorAt(source, ['sync', 'toHost', 'endpoints', 'patches', 0, 'path'], 'PATCH_PATH', 'bad path')];
    };
    const first: ConfigValidator = async (written, source) => {
      seen.push('first');
      expect(valueAtConfigPath(written, ['sync', 'toHost', 'endpoints', 'patches'])).toHaveLength(2);
      return [
        configErrorAt(
          source,
          ['sync', 'toHost', 'endpoints', 'patches', 0, 'expression'],
          'PATCH_EXPRESSION',
          'unexpected end of input',
        ),
      ];
    };
    const err = capture();
    // No resources: the Endpoints section (whose own validator would compile these patches) is
    // not assembled, so only the two extra validators speak.
    expect(await runValidate({ configPath: path, resources: [], validators: [first, second], out: capture(), err })).toBe(1);
    expect(seen).toEqual(['first', 'second']);
    expect(err.text().split('\n')).toEqual([
      `${path}:5:17 sync.toHost.endpoints.patches[0].path: bad path`,
      `${path}:6:23 sync.toHost.endpoints.patches[0].expression: unexpected end of input`,
      `${path}: 2 errors`,
      '',
    ]);
  });

  it('runs every validator even when the schema failed, on the data as written', async () => {
    const path = join(dir, 'bad.yaml');
    await writeFile(path, 'sync: { toHost: { endpoints: { enabled: 1 } } }\n');
    let seen: unknown;
    const validator: ConfigValidator = (written) => {
      seen = written;
      return [];
    };
    expect(await runValidate({ configPath: path, validators: [validator], out: capture(), err: capture() })).toBe(1);
    expect(seen).toEqual({ sync: { toHost: { endpoints: { enabled: 1 } } } });
    expect(Object.isFrozen(seen)).toBe(true);
  });

  it('reports schema and patch errors in one run, each once, with one line:column each (the real validators)', async () => {
    const path = join(dir, 'both.yaml');
    await writeFile(
      path,
      [
        'sync:', // 1
        '  toHost:', // 2
        '    endpoints:', // 3
        '      enabled: yes', // 4: schema
        '      patches:', // 5
        '        - path: a', // 6
        '          expression: value; value', // 7: patch compiler, at the ";"
        '        - path: b', // 8
        '          expresion: value', // 9: schema (the compiler's "no mode" is the same problem)
        '        - path: c', // 10
        '          expression: 12', // 11: schema (the compiler's "must be a string" is the same)
        '        - path: d', // 12
        '          reference: { kinds: Secret }', // 13: schema (the compiler's "needs kind" is the same)
        '        - path: metadata.name', // 14: patch compiler
        '          expression: |', // 15
        '            value +', // 16
        '              )', // 17: patch compiler, line 2 of the expression
        '',
      ].join('\n'),
    );
    const err = capture();
    expect(await runValidate({ configPath: path, out: capture(), err })).toBe(1);
    expect(err.text().split('\n')).toEqual([
      `${path}:4:16 sync.toHost.endpoints.enabled: must be a boolean (true or false), got "yes"`,
      `${path}:7:28 sync.toHost.endpoints.patches[0].expression: Unexpected ";" (statements are not allowed); an expression must be a single JavaScript expression such as value + "-suffix"`,
      `${path}:9:11 sync.toHost.endpoints.patches[1].expresion: unknown key; did you mean "expression"? allowed keys: path, expression, reverseExpression, reference, labels`,
      `${path}:11:23 sync.toHost.endpoints.patches[2].expression: must be a string, got 12`,
      `${path}:13:24 sync.toHost.endpoints.patches[3].reference.kinds: unknown key; did you mean "kind"? allowed keys: apiVersion, apiVersionPath, kind, kindPath, namePath, namespacePath`,
      `${path}:14:17 sync.toHost.endpoints.patches[4].path: metadata.name cannot be patched: the syncer sets the host name and namespace`,
      `${path}:17:15 sync.toHost.endpoints.patches[4].expression: Unexpected token; an expression must be a single JavaScript expression such as value + "-suffix"`,
      `${path}: 7 errors`,
      '',
    ]);
  });

  it('rejects private nodes with endpoints sync on, saying why and what to do', async () => {
    const path = join(dir, 'private-nodes.yaml');
    await writeFile(path, 'privateNodes:\n  enabled: true\nsync:\n  toHost:\n    endpointSlices:\n      enabled: false\n');
    const err = capture();
    expect(await runValidate({ configPath: path, out: capture(), err })).toBe(1);
    expect(err.text()).toBe(
      `${path}:2:12 privateNodes.enabled: Endpoints sync is only available with host nodes as the worker node type, and sync.toHost.endpoints.enabled is true by default; set sync.toHost.endpoints.enabled: false, or remove privateNodes\n${path}: 1 error\n`,
    );
  });

  it('is registered as a subcommand that sets the exit code', async () => {
    const path = join(dir, 'ok.yaml');
    await writeFile(path, '');
    const program = new Command('vcsync').exitOverride();
    registerValidateCommand(program);
    const previous = process.exitCode;
    const writes: string[] = [];
    const originalWrite = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => {
      writes.push(chunk);
      return true;
    }) as typeof process.stdout.write;
    try {
      await program.parseAsync(['node', 'vcsync', 'validate', '--config', path]);
      expect(process.exitCode).toBe(0);
      expect(writes.join('')).toContain(`${path} is valid`);
    } finally {
      process.stdout.write = originalWrite;
      process.exitCode = previous;
    }
  });
});

describe('loadConfigFile', () => {
  it('reads, parses and names the file in errors', async () => {
    const path = join(dir, 'v.yaml');
    await writeFile(path, 'sync: { toHost: { namespaces: { enabled: true } } }\n');
    const result = await loadConfigFile(path, registryConfigSchema());
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[0]).toMatchObject({ code: ConfigErrorCode.NAMESPACE_MAPPING, file: path, line: 1 });
  });

  it('reports a directory as unreadable', async () => {
    const result = await loadConfigFile(dir, registryConfigSchema());
    expect(result.ok === false && result.errors[0]?.message).toBe(
      'cannot read the config file: the path is a directory, not a file',
    );
  });
});
