import { checkConfigText } from '../config/check-config.js';
import { ConfigErrorCode, type ConfigError } from '../config/config-error.js';
import { loadConfigFile } from '../config/load-config-file.js';
import { configErrorAt, type ConfigResult } from '../config/parse-config.js';
import type { PatchSandbox } from '../patches/index.js';
import { locatePatchErrors } from './patch-validation.js';
import { registryConfigSchema } from './resources.js';
import type { SyncState } from './sync-state.js';
import { resourceValidators, type SyncableResource } from './syncable-resource.js';

/**
 * Reads and checks a config file the one way vcsync does everywhere (`validate`, `start`, `dev`,
 * `preview`): YAML, the schema assembled from the sections of `resources` (and of the resources
 * the registry declares), their rules and every validator.
 */
export function loadCheckedConfig(path: string, resources: readonly SyncableResource[]): Promise<ConfigResult> {
  return loadConfigFile(path, registryConfigSchema(resources), resourceValidators(resources));
}

/** {@link loadCheckedConfig} for text already read (the config watcher's re-reads). */
export function checkConfig(text: string, fileName: string, resources: readonly SyncableResource[]): Promise<ConfigResult> {
  return checkConfigText(text, fileName, registryConfigSchema(resources), resourceValidators(resources));
}

/** What the states are built for: the daemon's identity and its one patch sandbox. */
export interface SyncStatesOptions {
  vclusterName: string;
  hostNamespace: string;
  sandbox: PatchSandbox;
}

/** Every resource's state by name, or every error located in the config file. */
export type SyncStatesResult = { ok: true; states: ReadonlyMap<string, SyncState> } | { ok: false; errors: readonly ConfigError[] };

/** Builds the state of each of `resources` from a checked config; all or nothing. */
export function buildSyncStates(
  resources: readonly SyncableResource[],
  loaded: Extract<ConfigResult, { ok: true }>,
  options: SyncStatesOptions,
): SyncStatesResult {
  const states = new Map<string, SyncState>();
  const errors: ConfigError[] = [];
  for (const resource of resources) {
    const built = resource.buildState({ ...options, config: loaded.config });
    if (built.ok) states.set(resource.name, built.state);
    else errors.push(...locatePatchErrors(built.errors, loaded.source));
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, states };
}

/**
 * The verdict on a changed config file: the new states, or why the change is rejected (the last
 * valid config then stays in force). Besides the checks of a start, a change of
 * `sync.toHost.namespaces.enabled` is rejected: it changes which host namespaces are watched.
 */
export function reloadSyncStates(
  resources: readonly SyncableResource[],
  result: ConfigResult,
  options: SyncStatesOptions & { multiNamespace: boolean },
): SyncStatesResult {
  if (!result.ok) return result;
  if (result.config.sync.toHost.namespaces.enabled !== options.multiNamespace) {
    const error = configErrorAt(
      result.source,
      ['sync', 'toHost', 'namespaces', 'enabled'],
      ConfigErrorCode.NEEDS_RESTART,
      'changing it needs a restart (it changes which host namespaces are watched)',
    );
    return { ok: false, errors: [error] };
  }
  return buildSyncStates(resources, result, options);
}
