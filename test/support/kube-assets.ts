import { BUILD_HINT, KUBE_ASSETS_ENV } from '../../testbed/kube-assets.js';

export { KUBE_ASSETS_ENV, readKubeAssets, type KubeAssets } from '../../testbed/kube-assets.js';

/**
 * Whether the real-cluster suites cannot run here: true, with the printed reason, when
 * {@link KUBE_ASSETS_ENV} is unset. A set but unusable directory is not a reason to skip: then
 * {@link readKubeAssets} fails the suite, so a broken build never passes as a skip. `what` names
 * the suite in the message.
 */
export function realClusterMissing(what: string): boolean {
  const dir = process.env[KUBE_ASSETS_ENV];
  if (dir !== undefined && dir.trim() !== '') return false;
  console.warn(`skipping ${what}: ${KUBE_ASSETS_ENV} is not set (it names the real control plane's binaries); ${BUILD_HINT}`);
  return true;
}
