#!/usr/bin/env node
import { Command } from 'commander';
import { registerCommands } from './commands.js';
import { describeFatalError } from './fatal-error.js';

const program = new Command('vcsync')
  .description('Virtual-cluster syncer: syncs Endpoints from a virtual cluster into a host namespace')
  .showHelpAfterError();
registerCommands(program);
try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(describeFatalError(error));
  // Servers a command had started may still hold the event loop open.
  process.exit(1);
}
