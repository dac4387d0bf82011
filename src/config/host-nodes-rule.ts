import { ConfigErrorCode } from './config-error.js';
import { valueAtConfigPath, type ConfigPath } from './config-path.js';
import type { ConfigRule } from './config-section.js';

const PRIVATE_NODES_ENABLED: ConfigPath = ['privateNodes', 'enabled'];

/**
 * The rule of a resource whose sync only works with host nodes as the worker node type (its
 * synced objects carry Pod addresses, which the host can reach only when the Pods run on host
 * nodes): with `privateNodes.enabled: true`, the section's `enabled` (written, or true by
 * default) is an error. Reported once: at `sync.toHost.<key>.enabled` when it is written, else at
 * `privateNodes.enabled`. Values of the wrong type are left to the schema. `kind` names the
 * resource in the message, e.g. `Endpoints`.
 */
export function hostNodesOnlyRule(key: string, kind: string, enabledByDefault: boolean): ConfigRule {
  const enabledPath: ConfigPath = ['sync', 'toHost', key, 'enabled'];
  const hostNodesOnly = `${kind} sync is only available with host nodes as the worker node type`;
  const fix = `set sync.toHost.${key}.enabled: false, or remove privateNodes`;
  return (written) => {
    if (valueAtConfigPath(written, PRIVATE_NODES_ENABLED) !== true) return [];
    const enabled = valueAtConfigPath(written, enabledPath);
    if (enabled === true) {
      return [{ code: ConfigErrorCode.INCOMPATIBLE_SETTINGS, path: enabledPath, message: `${hostNodesOnly}, and privateNodes.enabled is true; ${fix}` }];
    }
    if (enabled !== undefined || !enabledByDefault) return [];
    return [
      {
        code: ConfigErrorCode.INCOMPATIBLE_SETTINGS,
        path: PRIVATE_NODES_ENABLED,
        message: `${hostNodesOnly}, and sync.toHost.${key}.enabled is true by default; ${fix}`,
      },
    ];
  };
}
