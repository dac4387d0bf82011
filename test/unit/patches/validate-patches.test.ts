import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runValidate } from '../../../src/cli/run-validate.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vcsync-patches-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('vcsync validate reports patch compile errors at the exact line and column in the file', async () => {
  const file = join(dir, 'vcluster.yaml');
  await writeFile(
    file,
    [
      'sync:',
      '  toHost:',
      '    endpoints:',
      '      patches:',
      '        - path: metadata.annotations.a',
      '          expression: value; value',
      '        - path: metadata.name',
      '          expression: \'"x"\'',
      '',
    ].join('\n'),
  );
  let errors = '';
  const code = await runValidate({ configPath: file, out: { write: () => true }, err: { write: (text: string) => (errors += text) } });
  expect(code).toBe(1);
  expect(errors).toContain(
    `${file}:6:28 sync.toHost.endpoints.patches[0].expression: Unexpected ";" (statements are not allowed); an expression must be a single JavaScript expression such as value + "-suffix"`,
  );
  expect(errors).toContain(`${file}:7:17 sync.toHost.endpoints.patches[1].path: metadata.name cannot be patched`);
});

test('a config with valid patches passes', async () => {
  const file = join(dir, 'ok.yaml');
  await writeFile(file, 'sync:\n  toHost:\n    endpoints:\n      patches:\n        - path: subsets[*].addresses[*].ip\n          expression: value\n');
  let out = '';
  expect(await runValidate({ configPath: file, out: { write: (text: string) => (out += text) }, err: { write: () => true } })).toBe(0);
  expect(out).toBe(`${file} is valid\n`);
});
