import type { Command } from 'commander';

/**
 * Adds every subcommand to the program. Each subcommand lives in its own file and only wires
 * options to the components that do the work.
 */
export function registerCommands(_program: Command): void {}
