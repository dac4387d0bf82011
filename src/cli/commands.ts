import type { Command } from 'commander';
import { registerAccessKeyCommand } from './accesskey-command.js';
import { registerCredentialCommands } from './credentials-command.js';
import { registerDevClusterCommand } from './devcluster-command.js';
import { registerDevCommand } from './dev-command.js';
import { registerPreviewCommand } from './preview-command.js';
import { registerStartCommand } from './start-command.js';
import { registerValidateCommand } from './validate-command.js';

/**
 * Adds every subcommand to the program. Each subcommand lives in its own file and only wires
 * options to the components that do the work.
 */
export function registerCommands(program: Command): void {
  registerDevCommand(program);
  registerStartCommand(program);
  registerDevClusterCommand(program);
  registerValidateCommand(program);
  registerPreviewCommand(program);
  registerAccessKeyCommand(program);
  registerCredentialCommands(program);
}
