import { LABEL_MANAGED_BY, LABEL_NAMESPACE } from './keys.js';
import { hostLabelKey } from './label-keys.js';
import type { StringMap } from './object-metadata.js';

/** One `matchExpressions` entry of a Kubernetes label selector. */
export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

/** A Kubernetes `LabelSelector`. */
export interface LabelSelector {
  readonly matchLabels?: StringMap;
  readonly matchExpressions?: readonly LabelSelectorRequirement[];
}

/**
 * When set, the translated selector also requires the labels every host object synced from that
 * virtual namespace carries (`managed-by` = the vcluster, `namespace` = the virtual namespace), so
 * in a shared host namespace it selects only objects from the same virtual namespace.
 */
export interface SelectorScope {
  readonly vclusterName: string;
  readonly virtualNamespace: string;
}

/**
 * Translates a label selector to the host: every key in `matchLabels` and `matchExpressions`
 * rewritten as {@link hostLabelKey} (values and operators unchanged), plus the scope labels when
 * `scope` is given. Returns a new selector; fields absent in the input stay absent unless the
 * scope adds `matchLabels`. Pure.
 */
export function hostLabelSelector(selector: LabelSelector, vclusterName: string, scope?: SelectorScope): LabelSelector {
  const out: { matchLabels?: Record<string, string>; matchExpressions?: LabelSelectorRequirement[] } = {};
  if (selector.matchLabels !== undefined || scope !== undefined) {
    out.matchLabels = hostSelectorMap(selector.matchLabels ?? {}, vclusterName, scope);
  }
  if (selector.matchExpressions !== undefined) {
    out.matchExpressions = selector.matchExpressions.map((requirement) => ({
      ...requirement,
      key: hostLabelKey(requirement.key, vclusterName),
      ...(requirement.values !== undefined ? { values: [...requirement.values] } : {}),
    }));
  }
  return out;
}

/**
 * Translates a plain selector map (e.g. a Service's `spec.selector`) to the host: keys rewritten as
 * {@link hostLabelKey}, plus the scope labels when `scope` is given. Pure.
 */
export function hostSelectorMap(map: StringMap, vclusterName: string, scope?: SelectorScope): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map)) out[hostLabelKey(key, vclusterName)] = value;
  if (scope !== undefined) {
    out[LABEL_MANAGED_BY] = scope.vclusterName;
    out[LABEL_NAMESPACE] = scope.virtualNamespace;
  }
  return out;
}
