#!/usr/bin/env node
import { Command } from 'commander';
import { registerCommands } from './commands.js';

const program = new Command('vcsync')
  .description('Virtual-cluster syncer: syncs Endpoints from a virtual cluster into a host namespace')
  .showHelpAfterError();
registerCommands(program);
await program.parseAsync(process.argv);
