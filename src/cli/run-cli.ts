import { Command, CommanderError } from 'commander';
import { readBuildInfo } from '../observe/build-info.js';
import { installOptionChecks } from './cli-options.js';
import { registerCommands } from './commands.js';
import { describeFatalError } from './fatal-error.js';

/**
 * Parses `argv` and runs the chosen command. Returns the exit code: 0, the command's own code,
 * 2 for a usage error (commander has printed its one line), or 1 for an error that ended the
 * command (printed here: a user-facing message, or a stack for a bug). A process that still has
 * servers open after a failure is ended by the caller's exit.
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = new Command('vcsync')
    .description('Virtual-cluster syncer: syncs Endpoints from a virtual cluster into a host namespace')
    .version(readBuildInfo().version, '-V, --version', 'print the vcsync version');
  installOptionChecks(program);
  registerCommands(program);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(describeFatalError(error));
    // Servers a command had started may still hold the event loop open.
    process.exit(1);
  }
}
