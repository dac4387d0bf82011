import { CommandError, FAILURE_EXIT_CODE } from './command-error.js';

/** What is printed for an error that ended a command, and the process's exit code. */
export interface FatalErrorReport {
  /** The text for stderr, ending in a newline. */
  readonly text: string;
  readonly exitCode: number;
}

/**
 * The report of an error that ends `vcsync <command>` (`command` as typed, e.g. `start` or
 * `token create`): a {@link CommandError} prints its located lines as they are. Another error of
 * a catalogue (a stable string `code`, a message written for the user) prints as
 * `vcsync <command>: <message>`. Anything else is a bug and prints with its stack so it can be
 * reported. Never JSON: this is the text a person reads when the process ends.
 */
export function describeFatalError(error: unknown, command: string): FatalErrorReport {
  const where = command === '' ? 'vcsync' : `vcsync ${command}`;
  if (error instanceof CommandError) return { text: `${error.lines.join('\n')}\n`, exitCode: error.exitCode };
  if (error instanceof Error && typeof (error as { code?: unknown }).code === 'string') {
    return { text: `${where}: ${error.message}\n`, exitCode: FAILURE_EXIT_CODE };
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { text: `${where}: unexpected error: ${detail}\n`, exitCode: FAILURE_EXIT_CODE };
}
