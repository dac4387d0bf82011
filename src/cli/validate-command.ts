import type { Command } from 'commander';
import { RequiredOption } from './cli-options.js';
import { compareConfigErrors, formatConfigError, type ConfigError } from '../config/config-error.js';
import type { ConfigSource } from '../config/config-source.js';
import { loadConfigFile } from '../config/load-config-file.js';
import { configErrorAt } from '../config/parse-config.js';
import type { VclusterConfig } from '../config/schema.js';
import { compilePatches, type PatchError } from '../patches/index.js';

/**
 * A check that runs after the config parsed and passed the schema: returns every problem it finds,
 * located with `configErrorAt(source, path, code, message)` from `config/parse-config.ts`. An
 * empty list means no problems. It must not throw for a bad config (return errors instead).
 */
export type ConfigValidator = (
  config: VclusterConfig,
  source: ConfigSource,
) => readonly ConfigError[] | Promise<readonly ConfigError[]>;

/**
 * The patch engine's compile check of `sync.toHost.endpoints.patches`: paths, expressions (one
 * expression each, with the column inside the expression), references, duplicates. Each error is
 * located at its YAML field; the message keeps the position inside the string.
 */
export function validateEndpointsPatches(config: VclusterConfig, source: ConfigSource): readonly ConfigError[] {
  const compiled = compilePatches(config.sync?.toHost?.endpoints?.patches ?? [], {
    configPath: 'sync.toHost.endpoints.patches',
  });
  return compiled.ok ? [] : locatePatchErrors(compiled.errors, source);
}

/** The patch compiler's errors as config errors, each located at its YAML field. */
export function locatePatchErrors(errors: readonly PatchError[], source: ConfigSource): ConfigError[] {
  return errors.map((error) =>
    configErrorAt(source, error.configPathSegments, error.code, error.message.slice(error.configPath.length + 2)),
  );
}

/**
 * The checks `vcsync validate` runs beyond the schema, in order; all run and all their errors are
 * printed. Components register theirs here (the patch engine adds its compile check: paths,
 * expressions, references).
 */
export const CONFIG_VALIDATORS: readonly ConfigValidator[] = [validateEndpointsPatches];

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
 * Checks a config file: YAML, schema, then every validator. Prints every error (sorted by
 * position) and returns exit code 1, or prints `<file> is valid` and returns 0.
 */
export async function runValidate(options: ValidateOptions): Promise<number> {
  const out = options.out ?? process.stdout;
  const err = options.err ?? process.stderr;
  const validators = options.validators ?? CONFIG_VALIDATORS;
  const result = await loadConfigFile(options.configPath);
  let errors: ConfigError[];
  if (!result.ok) {
    errors = [...result.errors];
  } else {
    errors = [];
    for (const validator of validators) {
      errors.push(...(await validator(result.config, result.source)));
    }
  }
  if (errors.length === 0) {
    out.write(`${options.configPath} is valid\n`);
    return 0;
  }
  for (const error of errors.sort(compareConfigErrors)) err.write(`${formatConfigError(error)}\n`);
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
