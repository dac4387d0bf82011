/**
 * vcsync's public library surface (the package's only export). The daemon is the `vcsync`
 * command; these are the pieces other tools and test suites build on.
 */
import type { DevCluster, DevClusterOptions } from './devcluster/index.js';

export type { DevCluster, DevClusterOptions, KubeConfigDocument } from './devcluster/index.js';

/**
 * Starts an embedded Kubernetes-compatible API server (see the devcluster's `startDevCluster`).
 * The devcluster and its server core are loaded by the first call, so that importing this package
 * for its config, translation or patch functions does not load them.
 */
export async function startDevCluster(options: DevClusterOptions = {}): Promise<DevCluster> {
  const devcluster = await import('./devcluster/index.js');
  return devcluster.startDevCluster(options);
}

export { loadConfigFile, parseConfig, formatConfigError, type ConfigError, type ConfigResult, type ConfigSchema, type VclusterConfig } from './config/index.js';
/** The vcluster.yaml schema of the resources vcsync syncs: what `parseConfig` and `loadConfigFile` check with. */
export { registryConfigSchema } from './syncer/resources.js';
export { createTranslator, type Translator, type TranslatorOptions } from './translate/index.js';
export { compilePatches, PatchSandbox, applyPatches, reversePatches, type PatchPlan, type PatchError } from './patches/index.js';
