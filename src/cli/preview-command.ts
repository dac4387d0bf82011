import { setFlagsFromString } from 'node:v8';
import type { Command } from 'commander';
import { RequiredOption } from './cli-options.js';
import { dnsLabel } from './option-parsers.js';

interface PreviewFlags {
  config: string;
  filename: string;
  name: string;
  hostNamespace?: string;
  output: string;
}

/** Adds `vcsync preview --config FILE -f OBJECT.yaml|- [-o yaml|json|jsonpath=…]`. */
export function registerPreviewCommand(program: Command): void {
  program
    .command('preview')
    .description('Print the host object the syncer would write for virtual Endpoints (YAML documents or a List, from a file or -); objects it skips are named on stderr with the reason')
    .addOption(new RequiredOption('--config <file>', 'vcluster.yaml (patches are applied)'))
    .addOption(new RequiredOption('-f, --filename <file>', 'YAML or JSON with virtual Endpoints (and their Services, which the rules read) or Lists of them; - reads standard input'))
    .option('--name <name>', 'name of the virtual cluster', dnsLabel, 'my-vcluster')
    .option('--host-namespace <namespace>', 'host namespace (default: vcluster-<name>)', dnsLabel)
    .option('-o, --output <format>', 'yaml, json, or jsonpath=TEMPLATE (kubectl syntax)', 'yaml')
    .action(async (flags: PreviewFlags) => {
      // Loaded when the command runs, so usage errors and --help stay fast.
      const { runPreview } = await import('./run-preview.js');
      process.exitCode = await runPreview({
        configPath: flags.config,
        objectPath: flags.filename,
        vclusterName: flags.name,
        hostNamespace: flags.hostNamespace ?? `vcluster-${flags.name}`,
        output: flags.output,
        out: process.stdout,
        err: process.stderr,
        // A preview is one short process. With JSON in and out its work is our code on each
        // object, and TurboFan compiling that code (on V8's threads) costs more CPU than its faster
        // code saves before the process ends: V8's baseline tier only (Sparkplug) took 40-55% less
        // CPU for the patch path of 12,000 objects. The yaml library's loops need TurboFan: a
        // YAML preview keeps it.
        onJsonOnly: () => setFlagsFromString('--max-opt=1'),
      });
    });
}
