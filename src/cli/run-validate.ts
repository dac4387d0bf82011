import type { ConfigValidator } from '../config/check-config.js';
import { loadConfigFile } from '../config/load-config-file.js';
import { registryConfigSchema, SYNCABLE_RESOURCES } from '../syncer/resources.js';
import { resourceValidators, type SyncableResource } from '../syncer/syncable-resource.js';
import { configErrorLines } from './command-error.js';

/** Options of {@link runValidate}. */
export interface ValidateOptions {
  /** Path of the config file to check. */
  readonly configPath: string;
  /** The resources whose sections and checks run. Default {@link SYNCABLE_RESOURCES}. */
  readonly resources?: readonly SyncableResource[];
  /**
   * Checks instead of the resources' own `validators` (tests); their config sections' validators
   * (compiling their patches) run either way. Default the validators of `resources`.
   */
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
  const resources = options.resources ?? SYNCABLE_RESOURCES;
  const result = await loadConfigFile(options.configPath, registryConfigSchema(resources), options.validators ?? resourceValidators(resources));
  if (result.ok) {
    out.write(`${options.configPath} is valid\n`);
    return 0;
  }
  err.write(`${configErrorLines(options.configPath, result.errors).join('\n')}\n`);
  return 1;
}

