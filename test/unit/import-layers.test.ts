import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const LAYER_RULES = ['no-restricted-imports', 'no-restricted-syntax'] as const;

/** The import-layer rules eslint.config.js applies to `file`, run on `code` as if it were that file. */
async function layerErrors(eslint: ESLint, file: string, code: string): Promise<string[]> {
  const config = (await eslint.calculateConfigForFile(file)) as { rules?: Record<string, Linter.RuleEntry> };
  const rules: Linter.RulesRecord = {};
  for (const rule of LAYER_RULES) {
    const entry = config.rules?.[rule];
    if (entry !== undefined) rules[rule] = entry;
  }
  const messages = new Linter({ configType: 'flat' }).verify(code, [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules }], { filename: join(REPO_ROOT, file) });
  return messages.map((message) => `${message.ruleId ?? 'parse'}: ${message.message}`);
}

/** file → [specifier it must not import, specifier it may import]. */
const CASES: readonly [file: string, forbidden: string, allowed: string][] = [
  ['src/apimachinery/api-error.ts', '../kube/index.js', './status.js'],
  ['src/apiserver/http-app.ts', '../devcluster/index.js', '../observe/logger.js'],
  ['src/apiserver/security/authenticator.ts', '../../kube/index.js', '../../observe/logger.js'],
  ['src/devcluster/dev-cluster.ts', '../kube/index.js', '../apiserver/index.js'],
  ['src/devcluster/storage/api-storage.ts', '../../syncer/metrics.js', '../../apiserver/index.js'],
  ['src/config/schema.ts', '../apiserver/api-error.js', '../observe/logger.js'],
  ['src/translate/translator.ts', '../devcluster/index.js', '../config/index.js'],
  ['src/patches/reference-patch.ts', '../kube/index.js', '../translate/index.js'],
  ['src/kube/rest-client.ts', '../syncer/metrics.js', '../observe/logger.js'],
  ['src/syncer/to-host-controller.ts', '../apiserver/api-error.js', '../kube/index.js'],
  ['src/management/access-keys.ts', '../devcluster/index.js', '../apiserver/index.js'],
  ['src/management/secret-storage.ts', '../syncer/metrics.js', '../kube/reflector.js'],
  ['src/manager/manager.ts', '../syncer/metrics.js', '../kube/index.js'],
  ['src/observe/logger.ts', '../kube/index.js', 'pino'],
  ['src/syncer/metrics.ts', '../../testbed/real-control-plane.js', '../kube/index.js'],
  ['testbed/real-control-plane.ts', '#vcsync/syncer/metrics.js', '#vcsync/kube/rest-client.js'],
  ['testbed/chaos/chaos-run.ts', '../../src/kube/rest-client.js', '#vcsync/kube/rest-client.js'],
  ['testbed/fuzz/config-fuzz.ts', '#vcsync/cli/run-cli.js', '#vcsync/config/config-error.js'],
];

describe('import layers (eslint.config.js, one no-restricted-imports block per folder)', () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({ cwd: REPO_ROOT });
  });

  it.each(CASES)('%s may not import %s but may import %s', async (file, forbidden, allowed) => {
    expect(await layerErrors(eslint, file, `import { x } from '${forbidden}';\nexport const y = x;\n`)).toEqual([expect.stringMatching(/^no-restricted-imports: .*who may import whom/)]);
    expect(await layerErrors(eslint, file, `export { x } from '${forbidden}';\n`)).toHaveLength(1);
    expect(await layerErrors(eslint, file, `import { x } from '${allowed}';\nexport const y = x;\n`)).toEqual([]);
  });

  it.each(CASES.map(([file]) => file))('nothing imports cli/, %s included', async (file) => {
    const specifier = file.startsWith('testbed/') ? '#vcsync/cli/run-cli.js' : `${'../'.repeat(file.split('/').length - 2)}cli/run-cli.js`;
    expect(await layerErrors(eslint, file, `import { runCli } from '${specifier}';\nexport const y = runCli;\n`)).toHaveLength(1);
  });

  it('keeps a dynamic import() of src/ by a relative path out of testbed/', async () => {
    expect(await layerErrors(eslint, 'testbed/real-control-plane.ts', "export const m = await import('../src/kube/index.js');\n")).toHaveLength(1);
  });

  it('keeps the package export off cli/', async () => {
    expect(await layerErrors(eslint, 'src/index.ts', "export { runCli } from './cli/run-cli.js';\n")).toHaveLength(1);
  });

  it.each([
    ['src/devcluster/dev-cluster.ts', '../apiserver/api-server.js', '../apiserver/index.js'],
    ['src/devcluster/storage/api-storage.ts', '../../apiserver/storage.js', '../../apiserver/index.js'],
    ['src/management/management-server.ts', '../apiserver/security/authenticator.js', '../apiserver/index.js'],
  ])('%s reaches apiserver/ through its index only: not %s, but %s', async (file, inside, index) => {
    expect(await layerErrors(eslint, file, `import { x } from '${inside}';\nexport const y = x;\n`)).toEqual([expect.stringMatching(/^no-restricted-imports: .*through its public face only/)]);
    expect(await layerErrors(eslint, file, `export const later = () => import('${inside}');\n`)).toEqual([expect.stringMatching(/^no-restricted-syntax: .*through its public face only/)]);
    expect(await layerErrors(eslint, file, `import { x } from '${index}';\nexport const y = x;\n`)).toEqual([]);
  });

  it.each([...CASES.map(([file]) => file).filter((file) => file.startsWith('src/')), 'src/cli/run-cli.ts', 'src/patches/patch-sandbox.ts', 'src/index.ts'])(
    "keeps isolated-vm out of the daemon's process (only the sandbox's workers load it), %s included",
    async (file) => {
      expect(await layerErrors(eslint, file, "import ivm from 'isolated-vm';\nexport const y = ivm;\n")).toEqual([expect.stringMatching(/^no-restricted-imports: .*only the patch sandbox's worker/)]);
      expect(await layerErrors(eslint, file, "export const later = () => import('isolated-vm');\n")).toEqual([expect.stringMatching(/^no-restricted-syntax: .*only the patch sandbox's worker/)]);
    },
  );

  it('catches a dynamic import() of a forbidden folder too', async () => {
    const errors = await layerErrors(eslint, 'src/apiserver/http-app.ts', "export const later = () => import('../devcluster/index.js');\n");
    expect(errors).toEqual([expect.stringMatching(/^no-restricted-syntax: apiserver\/ is the core/)]);
  });
});
