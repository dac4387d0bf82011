#!/usr/bin/env -S node --no-node-snapshot
import { hasRequiredNodeFlag, missingNodeFlagMessage } from './node-flags.js';
import { USAGE_EXIT_CODE } from './cli-options.js';

if (!hasRequiredNodeFlag(process.execArgv, process.env['NODE_OPTIONS'])) {
  process.stderr.write(missingNodeFlagMessage());
  process.exit(USAGE_EXIT_CODE);
}

// Loaded only after the check: the commands pull in isolated-vm.
const { runCli } = await import('./run-cli.js');
process.exitCode = await runCli(process.argv);
