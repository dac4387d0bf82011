import { readFile } from 'node:fs/promises';
import { checkConfigText } from './check-config.js';
import type { ConfigValidator } from './config-section.js';
import type { ConfigSchema } from './config-schema.js';
import { ConfigErrorCode, type ConfigError } from './config-error.js';
import type { ConfigResult } from './parse-config.js';

/**
 * Reads a config file and checks it with `schema` and `validators` (see {@link checkConfigText};
 * `validators` default none beyond the sections' own). A file that cannot be read is not an exception but a
 * result with one `CONFIG_READ_FAILED` error (no line or column), so callers handle every failure
 * of a config in one place. The error's `file` is `path` as given.
 */
export async function loadConfigFile(path: string, schema: ConfigSchema, validators: readonly ConfigValidator[] = []): Promise<ConfigResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error: unknown) {
    return { ok: false, errors: [readFailure(path, error)] };
  }
  return checkConfigText(text, path, schema, validators);
}

/**
 * Why a file could not be read, for a person: `the file does not exist`, `the path is a directory,
 * not a file`, `permission denied`, or the system's message.
 */
export function describeReadError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'the file does not exist';
  if (code === 'EISDIR') return 'the path is a directory, not a file';
  if (code === 'EACCES') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}

/** The error reported when the file cannot be read: says why (see {@link describeReadError}). */
export function readFailure(path: string, error: unknown): ConfigError {
  return {
    code: ConfigErrorCode.READ_FAILED,
    path: '',
    file: path,
    line: 0,
    column: 0,
    message: `cannot read the config file: ${describeReadError(error)}`,
  };
}
