import { describe, expect, it } from 'vitest';
import * as vcsync from '../../src/index.js';

describe('the package export', () => {
  it('exposes the library surface and nothing from cli/', () => {
    expect(Object.keys(vcsync).sort()).toEqual([
      'PatchSandbox', 'applyPatches', 'compilePatches', 'createTranslator', 'formatConfigError', 'loadConfigFile', 'parseConfig', 'registryConfigSchema', 'reversePatches', 'startDevCluster',
    ]);
  });

  it('starts a devcluster through it', async () => {
    const cluster = await vcsync.startDevCluster();
    try {
      const response = await fetch(`${cluster.url}/version`);
      expect(response.status).toBe(200);
    } finally {
      await cluster.close();
    }
  });
});
