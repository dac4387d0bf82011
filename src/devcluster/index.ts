/**
 * The devcluster: an embedded Kubernetes-compatible API server, the test bed of the project and
 * the embedded default of `vcsync dev`. This module is its only public surface.
 */
export { startDevCluster, type DevCluster } from './dev-cluster.js';
export type { DevClusterOptions } from './dev-cluster-options.js';
export type { KubeConfigDocument } from './kube-config.js';
export { openDevStorage, type DevStorage } from './dev-storage.js';
export { buildKubeConfig, kubeConfigYaml } from './kube-config.js';
