import { formatConfigError, type ConfigError } from '../config/config-error.js';

/**
 * The exit codes of every vcsync command: 0 done; {@link FAILURE_EXIT_CODE} when an input the
 * command read is wrong (config file, kubeconfig, data directory) or the daemon failed while
 * running; `USAGE_EXIT_CODE` (2, in cli-options) when the command line or an environment
 * variable standing for a flag is wrong.
 */
export const FAILURE_EXIT_CODE = 1;

/**
 * An expected error that ends a command, already written for the user as located lines: each
 * line starts with where the problem is (`file:line:column path`, a file, or `vcsync <command>`
 * for the command line) and says what is wrong and what to do. Printed as is on stderr, without a
 * stack, and the process exits with {@link exitCode}.
 */
export class CommandError extends Error {
  /** Stable code of the catalogue of CLI errors. */
  readonly code = 'VCSYNC_COMMAND_FAILED';
  /** The lines printed, without newlines. */
  readonly lines: readonly string[];
  /** The process's exit code: {@link FAILURE_EXIT_CODE} or the usage code. */
  readonly exitCode: number;

  constructor(lines: readonly string[], options: { exitCode?: number; cause?: unknown } = {}) {
    super(lines.join('\n'), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CommandError';
    this.lines = lines;
    this.exitCode = options.exitCode ?? FAILURE_EXIT_CODE;
  }
}

/**
 * The lines `vcsync validate` prints for an invalid config, which every command that reads one
 * prints the same way: each error as `file:line:column path: message`, then `file: N errors`.
 */
export function configErrorLines(file: string, errors: readonly ConfigError[]): string[] {
  return [...errors.map(formatConfigError), `${file}: ${errors.length} ${errors.length === 1 ? 'error' : 'errors'}`];
}

/** A {@link CommandError} carrying {@link configErrorLines}. */
export function invalidConfigError(file: string, errors: readonly ConfigError[]): CommandError {
  return new CommandError(configErrorLines(file, errors));
}
