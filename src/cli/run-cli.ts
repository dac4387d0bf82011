import { Command, CommanderError } from 'commander';
import { readBuildInfo } from '../observe/build-info.js';
import { commandPath, installOptionChecks, locateUsageErrors, USAGE_EXIT_CODE } from './cli-options.js';
import { registerCommands } from './commands.js';
import { FAILURE_EXIT_CODE } from './command-error.js';
import { describeFatalError } from './fatal-error.js';

const EXIT_CODES_HELP = `
Exit codes:
  0  done
  ${FAILURE_EXIT_CODE}  an input is wrong (config file, kubeconfig, data directory) or the daemon failed while running
  ${USAGE_EXIT_CODE}  the command line is wrong (unknown, missing or invalid option, or its environment variable)
Errors are printed on stderr, one located line each (file:line:column path, a file, or the command).`;

/**
 * Parses `argv` and runs the chosen command. Returns the exit code: 0, the command's own code,
 * 2 for a usage error (commander has printed its located line), or 1 for an error that ended the
 * command (printed here: located lines for an expected error, a stack for a bug). A process that
 * still has servers open after a failure is ended by the caller's exit.
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  const program = new Command('vcsync')
    .description('Virtual-cluster syncer: syncs Endpoints from a virtual cluster into a host namespace')
    .version(readBuildInfo().version, '-V, --version', 'print the vcsync version')
    .addHelpText('after', EXIT_CODES_HELP);
  installOptionChecks(program);
  registerCommands(program);
  locateUsageErrors(program);
  let running = '';
  program.hook('preAction', (_program, actionCommand) => {
    running = commandPath(actionCommand);
  });
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    const report = describeFatalError(error, running);
    process.stderr.write(report.text);
    // Servers a command had started may still hold the event loop open.
    process.exit(report.exitCode);
  }
}
