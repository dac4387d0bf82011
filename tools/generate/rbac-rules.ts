import type { RbacRule } from '../../src/syncer/syncable-resource.js';

/** Kubernetes' verbs in the order manifests list them; others follow in the order first seen. */
const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/**
 * The rules of several resources as one list a Role takes: verbs of the same API group and
 * resource are united (two resources reading Services need one rule), then resources of the same
 * group with the same verbs share a rule. Order: first appearance, so the first resource's rules
 * come first. Pure.
 */
export function mergeRbacRules(rules: readonly RbacRule[]): RbacRule[] {
  const verbsOf = new Map<string, { group: string; resource: string; verbs: string[] }>();
  for (const rule of rules) {
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        const key = `${group}/${resource}`;
        const entry = verbsOf.get(key) ?? { group, resource, verbs: [] };
        for (const verb of rule.verbs) if (!entry.verbs.includes(verb)) entry.verbs.push(verb);
        verbsOf.set(key, entry);
      }
    }
  }
  const merged = new Map<string, { group: string; resources: string[]; verbs: string[] }>();
  for (const { group, resource, verbs } of verbsOf.values()) {
    const ordered = [...verbs].sort((a, b) => rank(a) - rank(b));
    const key = `${group}\u0000${ordered.join(',')}`;
    const rule = merged.get(key) ?? { group, resources: [], verbs: ordered };
    rule.resources.push(resource);
    merged.set(key, rule);
  }
  return [...merged.values()].map((rule) => ({ apiGroups: [rule.group], resources: rule.resources, verbs: rule.verbs }));
}

function rank(verb: string): number {
  const index = VERB_ORDER.indexOf(verb);
  return index === -1 ? VERB_ORDER.length : index;
}

/** `rules` as YAML list items in the manifests' flow style, indented by `indent` spaces. */
export function renderRbacRules(rules: readonly RbacRule[], indent: number): string {
  const pad = ' '.repeat(indent);
  const list = (values: readonly string[]): string => `[${values.map((value) => JSON.stringify(value)).join(', ')}]`;
  return rules
    .map((rule) => `${pad}- apiGroups: ${list(rule.apiGroups)}\n${pad}  resources: ${list(rule.resources)}\n${pad}  verbs: ${list(rule.verbs)}\n`)
    .join('');
}
