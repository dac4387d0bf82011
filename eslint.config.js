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

/** Test and benchmark machinery beside src/ (built on its own, not shipped): no product folder imports it. */
const TEST_ONLY = ['testbed'];

/**
 * isolated-vm is loaded only by the patch sandbox's worker processes (src/patches/worker/), which are
 * forked with --no-node-snapshot; the daemon's own process starts from Node's snapshot, with which
 * isolated-vm's isolates crash.
 */
const ISOLATED_VM = {
  regex: '^isolated-vm$',
  message: "only the patch sandbox's worker (src/patches/worker/sandbox-worker.mjs) loads isolated-vm: this process runs from Node's startup snapshot, which isolated-vm does not survive. Use PatchSandbox.",
};

/**
 * The rules forbidding each pattern (and isolated-vm) in static imports and re-exports, and in
 * dynamic import() of a literal path.
 */
function restrictedImports(folderPatterns) {
  const patterns = [...folderPatterns, ISOLATED_VM];
  return {
    'no-restricted-imports': ['error', { patterns }],
    'no-restricted-syntax': ['error', ...patterns.map(({ regex, message }) => ({ selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\/')}/]`, message }))],
  };
}

/**
 * One block per folder of src/. A folder with `throughIndex` reaches those folders through their
 * index.js only (their public face), never a file behind it.
 */
const layerBlocks = Object.entries(LAYERS).map(([folder, { forbidden, why, throughIndex = [] }]) => ({
  files: [`src/${folder}/**/*.ts`],
  rules: restrictedImports([
    { regex: climbsInto([...forbidden, ...TEST_ONLY]), message: `${why} (README, Architecture: who may import whom).` },
    ...throughIndex.map((layer) => ({
      regex: bypassesIndex([layer]),
      message: `${folder}/ uses ${layer}/ through its public face only: import '../${layer}/index.js' (export there what is missing).`,
    })),
  ]),
}));

/**
 * testbed/ reaches src/ only as `#vcsync/<folder>/<file>.js` (package.json "imports"): src/ in
 * tests and the typecheck, dist/ once built, so that the built testbed and the benchmarks share
 * one copy of each module. A relative path into src/ would compile a second copy into its build.
 */
const TESTBED = {
  forbidden: ['cli', 'manager', 'syncer', 'translate'],
  why: 'testbed/ is what tests and benchmarks share (the real control plane, the chaos run, the fuzzers): it uses apiserver/, devcluster/, kube/, and config/, patches/ and management/ (the fuzzers) only',
};
const testbedBlock = {
  files: ['testbed/**/*.ts'],
  rules: restrictedImports([
    { regex: `^#vcsync/(${TESTBED.forbidden.join('|')})(/|$)`, message: `${TESTBED.why} (README, Architecture: who may import whom).` },
    { regex: climbsInto(['src']), message: 'testbed/ imports src/ modules as #vcsync/<folder>/<file>.js, so that its build (build/testbed/) uses dist/ and not a second copy (README, Architecture: who may import whom).' },
  ]),
};

export default tseslint.config(
  { ignores: ['dist/**', 'build/**', 'node_modules/**', '.vcsync/**', 'coverage/**'] },
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
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  ...layerBlocks,
  // cli/ may import every folder, but not isolated-vm.
  { files: ['src/cli/**/*.ts'], rules: restrictedImports([]) },
  testbedBlock,
  {
    files: ['src/index.ts'],
    rules: restrictedImports([{ regex: '^\\./cli(/|$)', message: 'the package export is a library surface; nothing imports cli/ (README, Architecture: who may import whom).' }]),
  },
);
