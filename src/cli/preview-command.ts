import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parseAllDocuments, stringify } from 'yaml';
import { formatConfigError } from '../config/config-error.js';
import { PatchSandbox } from '../patches/index.js';
import { desiredHostObject } from '../syncer/desired-host.js';
import { endpointsResource } from '../syncer/endpoints/endpoints-resource.js';
import type { Endpoints } from '../syncer/endpoints/endpoints-types.js';
import { buildEndpointsSyncState } from '../syncer/sync-state.js';
import { loadCheckedConfig } from './validate-command.js';

interface PreviewFlags {
  config: string;
  filename: string;
  name: string;
  hostNamespace?: string;
}

/** Options of {@link runPreview}. */
export interface PreviewOptions {
  configPath: string;
  /** YAML file with one or more virtual Endpoints documents. */
  objectPath: string;
  vclusterName: string;
  hostNamespace: string;
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
}

/**
 * Prints, as YAML documents, the host object the syncer would write for each virtual Endpoints
 * in the file: translation and patches exactly as the controller runs them (it assumes the
 * Endpoints' Service exists without a selector, and that no host copy exists yet). Returns the
 * exit code: 0, or 1 with every problem printed.
 */
export async function runPreview(options: PreviewOptions): Promise<number> {
  const { err } = options;
  const loaded = await loadCheckedConfig(options.configPath);
  if (!loaded.ok) {
    for (const error of loaded.errors) err.write(`${formatConfigError(error)}\n`);
    return 1;
  }
  let text: string;
  try {
    text = await readFile(options.objectPath, 'utf8');
  } catch (error) {
    err.write(`${options.objectPath}: cannot read: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const documents = parseAllDocuments(text);
  const sandbox = new PatchSandbox();
  try {
    const built = buildEndpointsSyncState({ vclusterName: options.vclusterName, hostNamespace: options.hostNamespace, config: loaded.config, sandbox });
    if (!built.ok) {
      for (const error of built.errors) err.write(`${options.configPath}: ${error.message}\n`);
      return 1;
    }
    const resource = endpointsResource({ get: () => ({ spec: {} }) });
    let failed = false;
    for (const [index, document] of (Array.isArray(documents) ? documents : [documents]).entries()) {
      if (document.errors.length > 0) {
        err.write(`${options.objectPath}: document ${index + 1}: ${document.errors[0]?.message ?? 'invalid YAML'}\n`);
        failed = true;
        continue;
      }
      const object = document.toJS() as Endpoints | null;
      if (object === null) continue;
      if (object.kind !== 'Endpoints') {
        err.write(`${options.objectPath}: document ${index + 1}: skipped ${String(object.kind)} (vcsync syncs Endpoints)\n`);
        continue;
      }
      if (typeof object.metadata?.name !== 'string') {
        err.write(`${options.objectPath}: document ${index + 1}: an Endpoints needs metadata.name\n`);
        failed = true;
        continue;
      }
      const virtual: Endpoints = { ...object, metadata: { namespace: 'default', ...object.metadata } };
      try {
        const { object: host, imports } = await desiredHostObject(resource, built.state, virtual, undefined);
        for (const item of imports) {
          options.out.write(`# imports ${item.kind} ${item.namespace}/${item.name} as ${item.hostNamespace}/${item.hostName}\n`);
        }
        options.out.write(`---\n${stringify(host)}`);
      } catch (error) {
        err.write(`${options.objectPath}: document ${index + 1}: ${error instanceof Error ? error.message : String(error)}\n`);
        failed = true;
      }
    }
    return failed ? 1 : 0;
  } finally {
    sandbox.dispose();
  }
}

/** Adds `vcsync preview --config FILE -f OBJECT.yaml`. */
export function registerPreviewCommand(program: Command): void {
  program
    .command('preview')
    .description('Print the host object the syncer would write for virtual Endpoints in a YAML file')
    .requiredOption('--config <file>', 'vcluster.yaml (patches are applied)')
    .requiredOption('-f, --filename <file>', 'YAML file with one or more virtual Endpoints')
    .option('--name <name>', 'name of the virtual cluster', 'my-vcluster')
    .option('--host-namespace <namespace>', 'host namespace (default: vcluster-<name>)')
    .action(async (flags: PreviewFlags) => {
      process.exitCode = await runPreview({
        configPath: flags.config,
        objectPath: flags.filename,
        vclusterName: flags.name,
        hostNamespace: flags.hostNamespace ?? `vcluster-${flags.name}`,
        out: process.stdout,
        err: process.stderr,
      });
    });
}
