import { renderConfigJsonSchema, CONFIG_JSON_SCHEMA_PATH } from '../../src/config/json-schema.js';
import { renderConfigValidatorModule } from '../../src/config/config-validator-code.js';
import { registryConfigSchema, SYNCABLE_RESOURCES } from '../../src/syncer/resources.js';
import type { RbacNeeds, ResourceDeclaration } from '../../src/syncer/syncable-resource.js';
import { mergeRbacRules, renderRbacRules } from './rbac-rules.js';

/** The command that rewrites every generated file; failure messages name it. */
export const GENERATE_COMMAND = 'npm run generate';

/** The line that opens a generated block of rules in a manifest. */
export const BEGIN_MARKER = `# Generated from each resource's RBAC needs (its folder under src/syncer/): ${GENERATE_COMMAND}`;
/** The line that closes it. */
export const END_MARKER = '# End of the generated rules.';

/** A file whose content (or part of it) follows from the resource registry. */
export interface GeneratedFile {
  /** Path relative to the repository root. */
  readonly path: string;
  /** The file's content as the registry gives it, from its current content (kept outside generated blocks). */
  render(current: string): string;
}

/** The registry's config validator, compiled ahead of time (see `registryConfigSchema`). */
export const PRECOMPILED_CONFIG_VALIDATOR_PATH = 'src/syncer/precompiled-config-validator.ts';

/** Which side's needs go into which manifest. */
const RBAC_MANIFESTS: readonly { path: string; side: keyof RbacNeeds }[] = [
  { path: 'config/deploy/virtual-rbac.yaml', side: 'virtual' },
  { path: 'config/deploy/host-rbac.yaml', side: 'host' },
  { path: 'config/deploy/host-clusterrole-multi-namespace.yaml', side: 'host' },
  { path: 'charts/vcsync/templates/host-rbac.yaml', side: 'host' },
  { path: 'charts/vcsync/templates/virtual-rbac.yaml', side: 'virtual' },
];

/**
 * Every file generated from `resources` (default: the registry): the
 * published JSON Schema of vcluster.yaml and its precompiled validator, and the resource rules of the deploy manifests and of the
 * chart's RBAC templates (every block between {@link BEGIN_MARKER} and {@link END_MARKER}; the
 * rest of each file is written by hand and kept).
 */
export function registryGeneratedFiles(resources: readonly ResourceDeclaration[] = SYNCABLE_RESOURCES): GeneratedFile[] {
  return [
    { path: CONFIG_JSON_SCHEMA_PATH, render: () => renderConfigJsonSchema(registryConfigSchema(resources)) },
    {
      path: PRECOMPILED_CONFIG_VALIDATOR_PATH,
      render: () => renderConfigValidatorModule(registryConfigSchema(resources), { generateCommand: GENERATE_COMMAND, configSchemaImport: '../config/config-schema.js' }),
    },
    ...RBAC_MANIFESTS.map(({ path, side }) => ({
      path,
      render: (current: string) => replaceGeneratedBlock(path, current, mergeRbacRules(resources.flatMap((resource) => resource.rbac[side]))),
    })),
  ];
}

/** `current` with the rules of every generated block replaced by `rules`; throws when it has none or one is not closed. */
function replaceGeneratedBlock(path: string, current: string, rules: ReturnType<typeof mergeRbacRules>): string {
  const missing = `${path}: no generated block of rules; put the lines "${BEGIN_MARKER}" and "${END_MARKER}" in its rules list, indented as the list items`;
  const lines = current.split('\n');
  const out: string[] = [];
  let blocks = 0;
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index] ?? '';
    out.push(line);
    if (line.trim() !== BEGIN_MARKER) continue;
    const end = lines.findIndex((candidate, at) => at > index && candidate.trim() === END_MARKER);
    if (end === -1) throw new Error(missing);
    const indent = line.length - line.trimStart().length;
    out.push(...renderRbacRules(rules, indent).replace(/\n$/, '').split('\n'));
    index = end - 1;
    blocks += 1;
  }
  if (blocks === 0) throw new Error(missing);
  return out.join('\n');
}
