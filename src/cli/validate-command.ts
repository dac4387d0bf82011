import type { Command } from 'commander';
import { RequiredOption } from './cli-options.js';

/** Adds `vcsync validate --config FILE`; the exit code is 0 when valid, 1 otherwise. */
export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description('Check a vcluster.yaml: YAML syntax, schema, patches; prints each error with file:line:column')
    .addOption(new RequiredOption('--config <file>', 'path of the vcluster.yaml to check'))
    .action(async (options: { config: string }) => {
      // Loaded when the command runs, so usage errors and --help stay fast.
      const { runValidate } = await import('./run-validate.js');
      process.exitCode = await runValidate({ configPath: options.config });
    });
}
