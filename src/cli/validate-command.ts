import type { Command } from 'commander';
import { RequiredOption } from './cli-options.js';
import { checkConfigText, type ConfigValidator } from '../config/check-config.js';
import { formatConfigError, type ConfigError } from '../config/config-error.js';
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

/** Options of {@link runValidate}. */
export interface ValidateOptions {
  /** Path of the config file to check. */
  readonly configPath: string;
  /** Extra checks; default {@link CONFIG_VALIDATORS}. */
  readonly validators?: readonly ConfigValidator[];
  /** Where `FILE is valid` goes; default process.stdout. */
  readonly out?: { write(text: string): unknown };
  /** Where errors go, one per line as `file:line:column path: message`; default process.stderr. */
  readonly err?: { write(text: string): unknown };
}

/**
 * Checks a config file: YAML, schema and rules, and every validator, in one run. Prints every
 * error once, sorted by position, as `file:line:column path: message`, and returns exit code 1;
 * or prints `<file> is valid` and returns 0.
 */
export async function runValidate(options: ValidateOptions): Promise<number> {
  const out = options.out ?? process.stdout;
  const err = options.err ?? process.stderr;
  const result = await loadConfigFile(options.configPath, options.validators ?? CONFIG_VALIDATORS);
  if (result.ok) {
    out.write(`${options.configPath} is valid\n`);
    return 0;
  }
  const { errors } = result;
  for (const error of errors) err.write(`${formatConfigError(error)}\n`);
  err.write(`${options.configPath}: ${errors.length} ${errors.length === 1 ? 'error' : 'errors'}\n`);
  return 1;
}

/** Adds `vcsync validate --config FILE`; the exit code is 0 when valid, 1 otherwise. */
export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description('Check a vcluster.yaml: YAML syntax, schema, patches; prints each error with file:line:column')
    .addOption(new RequiredOption('--config <file>', 'path of the vcluster.yaml to check'))
    .action(async (options: { config: string }) => {
      process.exitCode = await runValidate({ configPath: options.config });
    });
}
