import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * Who may import whom under src/ (README, "Architecture"; the arrows of the data flow, nothing
 * else): for each folder, the project folders its files must not import, with the reason shown to
 * whoever tries. apimachinery/ (JSON values, the Status error type) is under every folder and
 * imports none; everyone may import it. `cli/` wires everything and imports anything; nothing imports `cli/`.
 * test/unit/import-layers.test.ts checks that every block fires.
 */
const LAYERS = {
  apimachinery: {
    forbidden: ['apiserver', 'cli', 'config', 'devcluster', 'kube', 'management', 'manager', 'observe', 'patches', 'syncer', 'translate'],
    why: 'apimachinery/ (JSON values, the Status error type and its reasons) is the layer under every folder and imports none',
  },
  config: { forbidden: ['kube', 'syncer', 'management', 'apiserver', 'devcluster', 'manager', 'cli'], why: 'config/ is logic: it reads vcluster.yaml and knows no cluster, server or runtime' },
  translate: { forbidden: ['kube', 'syncer', 'management', 'apiserver', 'devcluster', 'manager', 'cli'], why: 'translate/ is pure: names and metadata in, new objects out, no I/O' },
  patches: { forbidden: ['kube', 'syncer', 'management', 'apiserver', 'devcluster', 'manager', 'cli'], why: 'patches/ is logic (it may use translate/): a reference patch returns what to import and the syncer does the I/O' },
  kube: { forbidden: ['syncer', 'management', 'apiserver', 'devcluster', 'manager', 'cli'], why: 'kube/ knows Kubernetes clients, not the syncer, the servers or the manager' },
  apiserver: {
    forbidden: ['cli', 'config', 'devcluster', 'kube', 'management', 'manager', 'patches', 'syncer', 'translate'],
    why: 'apiserver/ is the core under devcluster and management and imports only apimachinery/ and observe/: hand it what it needs as a KindDefinition, a strategy, a CreateAdmission or a Storage',
  },
  devcluster: {
    forbidden: ['cli', 'config', 'kube', 'management', 'manager', 'patches', 'syncer', 'translate'],
    why: 'devcluster/ is kinds, a storage engine and controllers on the apiserver core: it imports only apimachinery/, apiserver/ and observe/',
    throughIndex: ['apiserver'],
  },
  management: {
    forbidden: ['cli', 'devcluster', 'manager', 'patches', 'syncer', 'translate'],
    why: 'management/ imports only apimachinery/, apiserver/, kube/ (its store is the host cluster), config/ and observe/',
    throughIndex: ['apiserver'],
  },
  syncer: { forbidden: ['cli', 'apiserver', 'devcluster', 'management', 'manager'], why: 'syncer/ uses apimachinery/, config/, translate/, patches/, kube/ and observe/ only' },
  manager: { forbidden: ['cli', 'apiserver', 'config', 'devcluster', 'management', 'patches', 'syncer', 'translate'], why: 'manager/ uses apimachinery/, kube/ and observe/ only' },
  testbed: {
    forbidden: ['cli', 'config', 'manager', 'syncer', 'translate'],
    why: 'testbed/ is what tests and benchmarks share (the real control plane, the fuzzers): it uses apiserver/, devcluster/, kube/, and patches/ and management/ (the fuzzers) only',
  },
  observe: {
    forbidden: ['cli', 'apiserver', 'config', 'devcluster', 'kube', 'management', 'manager', 'patches', 'syncer', 'translate'],
    why: 'observe/ (logs, metrics, health) is used by every folder and imports none',
  },
};

/** Matches a relative specifier that climbs out of the file's folder into one of `folders`. */
function climbsInto(folders) {
  return `^(\\.\\./)+(${folders.join('|')})(/|$)`;
}

/** Matches a relative specifier into one of `folders` that names a file other than the folder's index.js. */
function bypassesIndex(folders) {
  return `^(\\.\\./)+(${folders.join('|')})/(?!index\\.js$)`;
}

/** Test and benchmark machinery under src/ (so benchmarks reach it in dist/): no product folder imports it. */
const TEST_ONLY = ['testbed'];

/** One block per folder: static imports and re-exports, and dynamic import() of a literal path. */
const layerBlocks = Object.entries(LAYERS).map(([folder, { forbidden: own, why, throughIndex = [] }]) => {
  const forbidden = TEST_ONLY.includes(folder) ? own : [...own, ...TEST_ONLY];
  const message = `${why} (README, Architecture: who may import whom).`;
  const patterns = [{ regex: climbsInto(forbidden), message }];
  const selectors = [{ selector: `ImportExpression[source.value=/${climbsInto(forbidden).replaceAll('/', '\\/')}/]`, message }];
  if (throughIndex.length > 0) {
    const indexMessage = `${folder}/ uses ${throughIndex.join('/, ')}/ through its public face only: import '../${throughIndex[0]}/index.js' (export there what is missing).`;
    patterns.push({ regex: bypassesIndex(throughIndex), message: indexMessage });
    selectors.push({ selector: `ImportExpression[source.value=/${bypassesIndex(throughIndex).replaceAll('/', '\\/')}/]`, message: indexMessage });
  }
  return {
    files: [`src/${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', { patterns }],
      'no-restricted-syntax': ['error', ...selectors],
    },
  };
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.vcsync/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.mjs', '**/*.js'],
    ignores: ['src/patches/isolate/**'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // Runs inside the patch sandbox's isolate as classic scripts: ECMAScript built-ins only, no
    // Node.js globals, no modules (src/patches/sandbox-runtime.ts loads them).
    files: ['src/patches/isolate/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.builtin } },
    rules: { strict: ['error', 'function'] },
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  ...layerBlocks,
  {
    files: ['src/index.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ regex: '^\\./cli(/|$)', message: 'the package export is a library surface; nothing imports cli/ (README, Architecture: who may import whom).' }] }] },
  },
);
