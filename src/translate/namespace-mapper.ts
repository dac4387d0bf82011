import {
  checkNamespaceMappings,
  isNamespacePattern,
  isValidNamespaceName,
  substituteVclusterName,
} from '../config/namespace-mapping-rules.js';
import { TranslateError, TranslateErrorCode } from './translate-error.js';

/** Outcome of mapping one namespace: the other side's name, or why there is none. */
export type NamespaceMapping =
  | { readonly mapped: true; readonly namespace: string }
  | { readonly mapped: false; readonly reason: string };

/**
 * Applies `sync.toHost.namespaces.mappings.byName` (rules in
 * `config/namespace-mapping-rules.ts`). Exact entries win over patterns; among patterns the
 * longest prefix wins, then the entry that comes first in the file.
 */
export interface NamespaceMapper {
  /** The host namespace of a virtual namespace. */
  toHost(virtualNamespace: string): NamespaceMapping;
  /** The virtual namespace of a host namespace (the inverse of `toHost`). */
  toVirtual(hostNamespace: string): NamespaceMapping;
}

interface Rule {
  readonly virtual: string;
  readonly host: string;
  readonly pattern: boolean;
  readonly order: number;
}

/**
 * Compiles the mappings for one virtual cluster: `${name}` is replaced by `vclusterName`. Throws a
 * {@link TranslateError} (`TRANSLATE_INVALID_NAMESPACE_MAPPING`) listing every broken rule, or
 * when an entry maps onto `reservedHostNamespace` (the virtual cluster's own host namespace).
 */
export function createNamespaceMapper(options: {
  readonly byName: Readonly<Record<string, string>>;
  readonly vclusterName: string;
  readonly reservedHostNamespace: string;
}): NamespaceMapper {
  const { byName, vclusterName, reservedHostNamespace } = options;
  const problems = checkNamespaceMappings(byName, vclusterName).map(
    (problem) => `byName["${problem.virtualKey}"]: ${problem.message}`,
  );
  const rules: Rule[] = Object.entries(byName).map(([virtual, host], order) => ({
    virtual: substituteVclusterName(virtual, vclusterName),
    host: substituteVclusterName(host, vclusterName),
    pattern: isNamespacePattern(virtual),
    order,
  }));
  for (const rule of rules) {
    const hits = rule.pattern ? reservedHostNamespace.startsWith(prefixOf(rule.host)) : rule.host === reservedHostNamespace;
    if (hits) {
      problems.push(
        `byName: host side "${rule.host}" covers the virtual cluster's own host namespace "${reservedHostNamespace}"; map to other namespaces`,
      );
    }
  }
  if (problems.length > 0) {
    throw new TranslateError(
      TranslateErrorCode.INVALID_NAMESPACE_MAPPING,
      `invalid sync.toHost.namespaces.mappings: ${problems.join('; ')}`,
    );
  }
  const exact = rules.filter((rule) => !rule.pattern);
  const patterns = rules
    .filter((rule) => rule.pattern)
    .sort((a, b) => prefixOf(b.virtual).length - prefixOf(a.virtual).length || a.order - b.order);
  const patternsByHost = [...patterns].sort(
    (a, b) => prefixOf(b.host).length - prefixOf(a.host).length || a.order - b.order,
  );

  const map = (name: string, from: 'virtual' | 'host'): NamespaceMapping => {
    const to = from === 'virtual' ? 'host' : 'virtual';
    const exactRule = exact.find((rule) => rule[from] === name);
    if (exactRule !== undefined) return { mapped: true, namespace: exactRule[to] };
    for (const rule of from === 'virtual' ? patterns : patternsByHost) {
      const prefix = prefixOf(rule[from]);
      if (!name.startsWith(prefix)) continue;
      const namespace = prefixOf(rule[to]) + name.slice(prefix.length);
      if (!isValidNamespaceName(namespace)) {
        return {
          mapped: false,
          reason: `namespace "${name}" maps through "${rule[from]}" to "${namespace}", which is not a valid namespace name (at most 63 characters)`,
        };
      }
      return { mapped: true, namespace };
    }
    return { mapped: false, reason: `namespace "${name}" matches no entry of sync.toHost.namespaces.mappings.byName` };
  };

  return {
    toHost: (virtualNamespace) => map(virtualNamespace, 'virtual'),
    toVirtual: (hostNamespace) => map(hostNamespace, 'host'),
  };
}

function prefixOf(pattern: string): string {
  return pattern.endsWith('*') ? pattern.slice(0, -1) : pattern;
}
