import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** The environment variable naming the helm binary `npm run helm-binary` builds. */
export const HELM_ENV = 'VCSYNC_HELM';

/** What to type to get helm, for skip and error messages. */
export const HELM_BUILD_HINT = `run \`export ${HELM_ENV}="$(npm run --silent helm-binary | tail -n 1)"\` (needs Go 1.26+; the first build takes tens of minutes on 2 cores, later ones are instant)`;

/**
 * Whether the chart's suites cannot run here: true, with the printed reason, when
 * {@link HELM_ENV} is unset. A set but unusable path is not a reason to skip: {@link helmBinary}
 * then fails the suite, so a broken build never passes as a skip. `what` names the suite.
 */
export function helmMissing(what: string): boolean {
  const path = process.env[HELM_ENV];
  if (path !== undefined && path.trim() !== '') return false;
  console.warn(`skipping ${what}: ${HELM_ENV} is not set (it names the helm binary); ${HELM_BUILD_HINT}`);
  return true;
}

/** The helm binary {@link HELM_ENV} names; throws, naming the path and what to do, when it is not executable. */
export function helmBinary(): string {
  const path = process.env[HELM_ENV];
  if (path === undefined || path.trim() === '') throw new Error(`${HELM_ENV} is not set: ${HELM_BUILD_HINT}`);
  try {
    accessSync(path, constants.X_OK);
  } catch (err) {
    throw new Error(`${path} is missing or not executable (${HELM_ENV}): ${HELM_BUILD_HINT}`, { cause: err });
  }
  return path;
}

/** The outcome of one helm run. */
export interface HelmResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs helm with `args` (60 s limit) in an environment of its own: `home` is HOME and helm's
 * cache, config and data directories, so no developer setting leaks in. Never rejects.
 */
export function runHelm(args: readonly string[], home: string): Promise<HelmResult> {
  const env = { PATH: process.env['PATH'] ?? '', HOME: home, HELM_CACHE_HOME: `${home}/cache`, HELM_CONFIG_HOME: `${home}/config`, HELM_DATA_HOME: `${home}/data` };
  return new Promise((resolve) => {
    execFile(helmBinary(), [...args], { env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}
