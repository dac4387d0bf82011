import { renderConfigJsonSchema, CONFIG_JSON_SCHEMA_PATH } from '../../src/config/json-schema.js';
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

/** Which side's needs go into which manifest. */
const RBAC_MANIFESTS: readonly { path: string; side: keyof RbacNeeds }[] = [
  { path: 'config/deploy/virtual-rbac.yaml', side: 'virtual' },
  { path: 'config/deploy/host-rbac.yaml', side: 'host' },
  { path: 'config/deploy/host-clusterrole-multi-namespace.yaml', side: 'host' },
];

/**
 * Every file generated from `resources` (default: the registry): the
 * published JSON Schema of vcluster.yaml, and the resource rules of the deploy manifests (the
 * block between {@link BEGIN_MARKER} and {@link END_MARKER}; the rest of each manifest is written
 * by hand and kept).
 */
export function registryGeneratedFiles(resources: readonly ResourceDeclaration[] = SYNCABLE_RESOURCES): GeneratedFile[] {
  return [
    { path: CONFIG_JSON_SCHEMA_PATH, render: () => renderConfigJsonSchema(registryConfigSchema(resources)) },
    ...RBAC_MANIFESTS.map(({ path, side }) => ({
      path,
      render: (current: string) => replaceGeneratedBlock(path, current, mergeRbacRules(resources.flatMap((resource) => resource.rbac[side]))),
    })),
  ];
}

function replaceGeneratedBlock(path: string, current: string, rules: ReturnType<typeof mergeRbacRules>): string {
  const lines = current.split('\n');
  const begin = lines.findIndex((line) => line.trim() === BEGIN_MARKER);
  const end = lines.findIndex((line, index) => index > begin && line.trim() === END_MARKER);
  if (begin === -1 || end === -1) {
    throw new Error(`${path}: no generated block of rules; put the lines "${BEGIN_MARKER}" and "${END_MARKER}" in its rules list, indented as the list items`);
  }
  const indent = (lines[begin] ?? '').length - (lines[begin] ?? '').trimStart().length;
  const block = renderRbacRules(rules, indent).replace(/\n$/, '').split('\n');
  return [...lines.slice(0, begin + 1), ...block, ...lines.slice(end)].join('\n');
}
