import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { assertBuilt, REPO_ROOT } from '../../support/vcsync-cli.js';

/** Module URLs the daemon's path to ready must not load: each costs start time and nothing there uses it. */
const NOT_ON_THE_START_PATH = /@kubernetes\/client-node|\/dist\/(management|apiserver|devcluster)\/|\/node_modules\/(fastify|jose)\//;

/** Runs `script` as an ES module in a fresh Node, printing every module URL it loads; resolves those URLs. */
function loadedModules(script: string): Promise<string[]> {
  const hooks = "import { writeSync } from 'node:fs'; export async function load(url, context, next) { writeSync(2, `loaded ${url}\\n`); return next(url, context); }";
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', `${register}\n${script}`], { cwd: REPO_ROOT, timeout: 60_000 }, (error, _stdout, stderr) => {
      if (error !== null) {
        reject(new Error(`the module probe failed: ${error.message}\n${stderr}`));
        return;
      }
      resolve(stderr.split('\n').filter((line) => line.startsWith('loaded ')).map((line) => line.slice('loaded '.length)));
    });
  });
}

describe('what `vcsync start` loads on its way to ready', () => {
  it('loads neither client-node nor the server modules for a token kubeconfig without --listen-management', async () => {
    assertBuilt(['src/cli', 'src/kube', 'src/management']);
    const dist = (file: string): string => JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist', file)).href);
    const kubeconfig = {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://10.0.0.1:6443', 'certificate-authority-data': Buffer.from('CA').toString('base64') } }],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    };
    const modules = await loadedModules(
      [
        `await import(${dist('cli/run-syncer.js')});`,
        `const { loadClusterConfig } = await import(${dist('kube/kube-config.js')});`,
        `const cluster = loadClusterConfig({ kind: 'object', config: ${JSON.stringify(kubeconfig)} }, { name: 'host' });`,
        'const options = {};',
        'await cluster.applyToHTTPSOptions(options);',
        "if (options.headers.Authorization !== 'Bearer t') throw new Error('token not applied');",
      ].join('\n'),
    );
    expect(modules).toContain(pathToFileURL(join(REPO_ROOT, 'dist/cli/run-syncer.js')).href);
    expect(modules.filter((url) => NOT_ON_THE_START_PATH.test(url))).toEqual([]);
  });

  it("does not load Node's undici (an ESM import of node:http builds a facade that reads its lazy WebSocket export)", async () => {
    assertBuilt(['src/cli', 'src/kube', 'src/observe', 'src/apiserver']);
    const dist = (file: string): string => JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist', file)).href);
    await loadedModules(
      [
        `await import(${dist('cli/run-cli.js')});`,
        `await Promise.all([import(${dist('observe/logger.js')}), import(${dist('cli/run-syncer.js')}), import(${dist('kube/rest-client.js')}), import(${dist('observe/metrics-server.js')})]);`,
        "const undici = process.moduleLoadList.filter((name) => name.includes('undici'));",
        "if (undici.length > 0) throw new Error(`loaded ${undici.join(', ')}`);",
      ].join('\n'),
    );
  });

  it('loads and checks the config with the precompiled validator: ajv itself is never loaded, only its runtime helpers', async () => {
    assertBuilt(['src/config', 'src/syncer']);
    const dist = (file: string): string => JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist', file)).href);
    const modules = await loadedModules(
      [
        "import { createRequire } from 'node:module';",
        `const { loadCheckedConfig } = await import(${dist('syncer/sync-config.js')});`,
        `const { SYNCABLE_RESOURCES } = await import(${dist('syncer/resources.js')});`,
        "const loaded = await loadCheckedConfig('config/vcluster.yaml', SYNCABLE_RESOURCES);",
        "if (!loaded.ok) throw new Error('the example config is invalid');",
        "const bad = await loadCheckedConfig('package.json', SYNCABLE_RESOURCES);",
        "if (bad.ok) throw new Error('package.json passed as a config');",
        // ajv is loaded with require(): its modules are in the CommonJS cache, not seen by the load hook.
        "const ajv = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes('/node_modules/ajv/') && !file.includes('/node_modules/ajv/dist/runtime/'));",
        "if (ajv.length > 0) throw new Error(`ajv loaded: ${ajv.join(', ')}`);",
      ].join('\n'),
    );
    expect(modules.filter((url) => /\/node_modules\/ajv\/(?!dist\/runtime\/)/.test(url))).toEqual([]);
  });
});

describe('what importing the package loads', () => {
  it('loads the devcluster and its server core only when startDevCluster is called', async () => {
    assertBuilt(['src/devcluster', 'src/apiserver']);
    const index = JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist/index.js')).href);
    const modules = await loadedModules(`const vcsync = await import(${index});\nif (typeof vcsync.parseConfig !== 'function') throw new Error('no parseConfig');`);
    expect(modules).toContain(JSON.parse(index));
    expect(modules.filter((url) => /\/dist\/(devcluster|apiserver)\/|\/node_modules\/fastify\//.test(url))).toEqual([]);
  });
});
