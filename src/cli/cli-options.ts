/**
 * Option kinds commander lacks, and the one hook that checks them before a command's action runs
 * (so before any I/O). Commander reports a missing mandatory option before an unknown one, which
 * hides a misspelt flag (`--nmae x`) behind "required option '--name' not specified"; and it
 * treats any value of a boolean flag's environment variable as true, so `VCSYNC_NO_LEADER_ELECT=false`
 * turned leader election off. Both kinds are checked here instead, after commander has parsed the
 * command line and reported unknown options.
 */
import { CommanderError, InvalidArgumentError, Option, type Command } from 'commander';
import { parseBoolean } from './option-parsers.js';

/** Exit code of a command-line usage error (bad, unknown or missing option), as BSD's EX_USAGE-style tools use 2. */
export const USAGE_EXIT_CODE = 2;

/** `vcsync <command> <subcommand>` as typed, e.g. `token create`; `''` for the program itself. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let current: Command | null = command; current?.parent != null; current = current.parent) names.unshift(current.name());
  return names.join(' ');
}

/** An option the command cannot run without; checked after unknown options are reported. */
export class RequiredOption extends Option {
  readonly requiredAfterParse = true;
}

/**
 * A boolean flag whose environment variable is parsed strictly (`true`/`false`/`1`/`0`): the
 * variable sets the flag's value when the flag is not on the command line. For a negated flag
 * (`--no-leader-elect`) the variable names the negation, so `VCSYNC_NO_LEADER_ELECT=true` turns
 * leader election off and `=false` leaves it on.
 */
export class BooleanEnvOption extends Option {
  readonly booleanEnv: string;

  constructor(flags: string, description: string, envName: string) {
    super(flags, `${description} [env: ${envName}=true|false]`);
    this.booleanEnv = envName;
  }
}

function checkCommandOptions(command: Command): void {
  for (const option of command.options) {
    const key = option.attributeName();
    if (option instanceof BooleanEnvOption) {
      const raw = process.env[option.booleanEnv];
      if (raw === undefined || command.getOptionValueSource(key) === 'cli') continue;
      let value: boolean;
      try {
        value = parseBoolean(raw);
      } catch (error) {
        const reason = error instanceof InvalidArgumentError ? error.message : String(error);
        command.error(`error: option '${option.flags}' value from env '${option.booleanEnv}' is invalid: ${reason}`, { exitCode: USAGE_EXIT_CODE, code: 'commander.invalidArgument' });
      }
      // A negated flag stores the positive value: NO_X=true means x=false.
      command.setOptionValueWithSource(key, option.negate ? !value : value, 'env');
    }
    if (option instanceof RequiredOption && command.getOptionValue(key) === undefined) {
      const env = option.envVar !== undefined ? ` (or set ${option.envVar})` : '';
      command.error(`error: required option '${option.flags}' not specified${env}`, { exitCode: USAGE_EXIT_CODE, code: 'commander.missingMandatoryOptionValue' });
    }
  }
}

/**
 * Installs the checks on `program`: every command's {@link RequiredOption}s and
 * {@link BooleanEnvOption}s are checked after parsing, before its action; and every usage error
 * (commander's own or these) exits with {@link USAGE_EXIT_CODE} after its one-line message.
 * Call before adding subcommands, so they inherit the exit behaviour.
 */
export function installOptionChecks(program: Command): void {
  program.exitOverride((error: CommanderError) => {
    // Help and --version end with code 0; everything else commander reports is a usage error.
    const exitCode = error.exitCode === 0 ? 0 : USAGE_EXIT_CODE;
    throw new CommanderError(exitCode, error.code, error.message);
  });
  program.hook('preAction', (_program, actionCommand) => checkCommandOptions(actionCommand));
}

/**
 * Makes every usage error of `program` and its subcommands read like every other fatal error:
 * located by the command typed (`vcsync start: unknown option '--nmae'`) instead of commander's
 * bare `error: `. Call after adding subcommands.
 */
export function locateUsageErrors(program: Command): void {
  const visit = (command: Command): void => {
    const where = ['vcsync', commandPath(command)].filter((part) => part !== '').join(' ');
    command.configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, `${where}: `)) });
    command.commands.forEach(visit);
  };
  visit(program);
}
