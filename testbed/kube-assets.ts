import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment variable naming the directory `npm run kube-assets` prints. */
export const KUBE_ASSETS_ENV = 'VCSYNC_KUBE_ASSETS';

/** What to type to get the real control plane, for skip and error messages. */
export const BUILD_HINT = `run \`export ${KUBE_ASSETS_ENV}="$(npm run --silent kube-assets | tail -n 1)"\` (needs Go 1.26+; the first build takes tens of minutes, later ones are instant)`;

/** The binaries of the real control plane and the versions they were built from. */
export interface KubeAssets {
  /** The directory holding the binaries. */
  readonly dir: string;
  readonly etcd: string;
  readonly kubeApiserver: string;
  readonly kubeControllerManager: string;
  readonly kubectl: string;
  /** The versions from the directory's `versions.json`, e.g. `{ kubernetes: 'v1.36.3', etcd: 'v3.6.16' }`. */
  readonly versions: { readonly kubernetes: string; readonly etcd: string };
}

/**
 * The binaries in `dir` (default: {@link KUBE_ASSETS_ENV}). Throws, naming the path and what to
 * do, when the directory is unset, a binary is missing or not executable, or `versions.json`
 * does not parse.
 */
export function readKubeAssets(dir: string | undefined = process.env[KUBE_ASSETS_ENV]): KubeAssets {
  if (dir === undefined || dir.trim() === '') throw new Error(`${KUBE_ASSETS_ENV} is not set: ${BUILD_HINT}`);
  const binary = (name: string): string => {
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
    } catch (err) {
      throw new Error(`${path} is missing or not executable (${KUBE_ASSETS_ENV}=${dir}): ${BUILD_HINT}`, { cause: err });
    }
    return path;
  };
  const versionsFile = join(dir, 'versions.json');
  let versions: KubeAssets['versions'];
  try {
    const parsed = JSON.parse(readFileSync(versionsFile, 'utf8')) as { kubernetes?: unknown; etcd?: unknown };
    if (typeof parsed.kubernetes !== 'string' || typeof parsed.etcd !== 'string') throw new Error('kubernetes or etcd is not a string');
    versions = { kubernetes: parsed.kubernetes, etcd: parsed.etcd };
  } catch (err) {
    throw new Error(`${versionsFile} is unreadable (${err instanceof Error ? err.message : String(err)}): ${BUILD_HINT}`, { cause: err });
  }
  return Object.freeze({
    dir,
    etcd: binary('etcd'),
    kubeApiserver: binary('kube-apiserver'),
    kubeControllerManager: binary('kube-controller-manager'),
    kubectl: binary('kubectl'),
    versions: Object.freeze(versions),
  });
}
