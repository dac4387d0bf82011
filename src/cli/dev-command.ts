import { Option, type Command } from 'commander';
import { dnsLabel, parseLogLevel } from './option-parsers.js';
import type { DevFlags } from './run-dev.js';

/**
 * Adds `vcsync dev`, the embedded default (`npm start`): a virtual and a host devcluster
 * persisted under `--dir`, the syncer on `--config` between them, kubeconfigs written next to
 * the data, and the next commands to type printed.
 */
export function registerDevCommand(program: Command): void {
  program
    .command('dev')
    .description('Run a virtual and a host devcluster with the syncer between them (the embedded default)')
    .addOption(new Option('--dir <dir>', 'where cluster data and kubeconfigs live').default('.vcsync/dev'))
    .addOption(new Option('--config <file>', 'vcluster.yaml of the virtual cluster').default('config/vcluster.yaml'))
    .addOption(new Option('--name <name>', 'name of the virtual cluster (a DNS-1123 label)').default('dev').argParser(dnsLabel))
    .addOption(new Option('--new-ports', 'pick new ports instead of those kept in <dir>/ports.json (tokens and kube configs issued for the old addresses stop working)'))
    .addOption(new Option('--log-level <level>', 'fatal, error, warn, info, debug, trace or silent (default: info)').env('VCSYNC_LOG_LEVEL').argParser(parseLogLevel))
    .action(async (flags: DevFlags) => {
      // Loaded when the command runs, so usage errors and --help stay fast.
      const { runDev } = await import('./run-dev.js');
      await runDev(flags);
    });
}
