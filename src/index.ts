/**
 * vcsync's public library surface (the package's only export). The daemon is the `vcsync`
 * command; these are the pieces other tools and test suites build on.
 */
export { startDevCluster, type DevCluster, type DevClusterOptions, type KubeConfigDocument } from './devcluster/index.js';
export { loadConfigFile, parseConfig, formatConfigError, type ConfigError, type ConfigResult, type VclusterConfig } from './config/index.js';
export { createTranslator, type Translator, type TranslatorOptions } from './translate/index.js';
export { compilePatches, PatchSandbox, applyPatches, reversePatches, type PatchPlan, type PatchError } from './patches/index.js';
