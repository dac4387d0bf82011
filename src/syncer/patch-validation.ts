import type { ConfigValidator } from '../config/config-section.js';
import type { ConfigError } from '../config/config-error.js';
import { valueAtConfigPath } from '../config/config-path.js';
import type { ConfigSource } from '../config/config-source.js';
import { locatedConfigError } from '../config/parse-config.js';
import { compilePatches, type PatchError } from '../patches/index.js';

/**
 * The patch engine's compile check of the patch list at `path` (e.g. `sync.toHost.endpoints.patches`):
 * paths, expressions (one expression each), modes, references, duplicates. Runs on the list as
 * written, even when the schema failed elsewhere (a list that is not a list is the schema's to
 * report). Each error is located at the exact character in the file when it is about a position
 * inside a path or an expression, else at its YAML field.
 */
export function patchesValidator(path: readonly string[]): ConfigValidator {
  return (written: unknown, source: ConfigSource): readonly ConfigError[] => {
    const patches = valueAtConfigPath(written, [...path]);
    if (!Array.isArray(patches)) return [];
    const compiled = compilePatches(patches, { configPath: path.join('.') });
    return compiled.ok ? [] : locatePatchErrors(compiled.errors, source);
  };
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
