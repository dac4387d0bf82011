/** The config checks vcsync runs everywhere (validate, start, dev, preview, reload): one list, one path. */
import { checkConfigText, type ConfigValidator } from '../config/check-config.js';
import type { ConfigError } from '../config/config-error.js';
import { valueAtConfigPath } from '../config/config-path.js';
import type { ConfigSource } from '../config/config-source.js';
import { loadConfigFile } from '../config/load-config-file.js';
import { locatedConfigError, type ConfigResult } from '../config/parse-config.js';
import { compilePatches, type PatchError } from '../patches/index.js';

export type { ConfigValidator } from '../config/check-config.js';

const ENDPOINTS_PATCHES = ['sync', 'toHost', 'endpoints', 'patches'];

/**
 * The patch engine's compile check of `sync.toHost.endpoints.patches`: paths, expressions (one
 * expression each), modes, references, duplicates. Runs on the list as written, even when the
 * schema failed elsewhere (a list that is not a list is the schema's to report). Each error is
 * located at the exact character in the file when it is about a position inside a path or an
 * expression, else at its YAML field.
 */
export function validateEndpointsPatches(written: unknown, source: ConfigSource): readonly ConfigError[] {
  const patches = valueAtConfigPath(written, ENDPOINTS_PATCHES);
  if (!Array.isArray(patches)) return [];
  const compiled = compilePatches(patches, { configPath: 'sync.toHost.endpoints.patches' });
  return compiled.ok ? [] : locatePatchErrors(compiled.errors, source);
}

/** The patch compiler's errors as config errors, each with one position in the file. */
export function locatePatchErrors(errors: readonly PatchError[], source: ConfigSource): ConfigError[] {
  return errors.map((error) =>
    locatedConfigError(source, {
      path: error.configPathSegments,
      code: error.code,
      message: error.reason,
      inside: error.column > 0 ? { line: Math.max(error.line, 1), column: error.column } : undefined,
    }),
  );
}

/**
 * The checks vcsync runs beyond the schema, in order; all run, even when the schema failed, and
 * all their errors are reported. Components register theirs here (the patch engine adds its
 * compile check: paths, expressions, references). `vcsync validate`, the daemon's start and
 * every reload run exactly these, through {@link loadCheckedConfig} and {@link checkConfig}.
 */
export const CONFIG_VALIDATORS: readonly ConfigValidator[] = [validateEndpointsPatches];

/**
 * Reads and checks a config file the one way vcsync does everywhere (`validate`, `start`, `dev`,
 * `preview`): YAML, schema, rules and every validator in {@link CONFIG_VALIDATORS}.
 */
export function loadCheckedConfig(path: string): Promise<ConfigResult> {
  return loadConfigFile(path, CONFIG_VALIDATORS);
}

/** {@link loadCheckedConfig} for text already read (the config watcher's re-reads). */
export function checkConfig(text: string, fileName: string): Promise<ConfigResult> {
  return checkConfigText(text, fileName, CONFIG_VALIDATORS);
}

