/**
 * The rules of `sync.toHost.namespaces.mappings.byName`, as vcluster defines them:
 *
 * - An entry maps a virtual namespace to a host namespace. Either both sides are exact names, or
 *   both are patterns; mixing is an error.
 * - A pattern has exactly one `*`, at its end (`team-a-*`). The part of the virtual namespace the
 *   `*` matched replaces the `*` on the host side: `team-a-*: h-team-a-*` maps `team-a-dev` to
 *   `h-team-a-dev`. A pattern needs a literal prefix of at most 32 characters.
 * - `${name}` (at most once per side) stands for the virtual cluster's name, on either side:
 *   with vcluster `my-vc`, `datasets-*: ${name}-data-*` maps `datasets-raw` to `my-vc-data-raw`.
 *   No other `${…}` placeholder exists.
 * - Every name, after substitution, is a valid namespace name (RFC 1123 label, ≤ 63 chars).
 * - Two entries may not map to the same host namespace (or host pattern).
 *
 * This module checks the rules; `translate/namespace-mapper.ts` applies them.
 */

/** The placeholder for the virtual cluster's name. */
export const NAME_PLACEHOLDER = '${name}';

/** The wildcard of pattern mappings. */
export const WILDCARD = '*';

/** Longest literal prefix of a pattern (vcluster's limit, leaving room for the matched part). */
export const MAX_PATTERN_PREFIX_LENGTH = 32;

/**
 * Stand-in for the vcluster name when it is not known yet (config parsing): the shortest valid
 * name, so anything invalid with it is invalid with every name.
 */
const STAND_IN_NAME = 'v';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** True when `name` is a valid namespace name (RFC 1123 label, at most 63 characters). */
export function isValidNamespaceName(name: string): boolean {
  return name.length <= 63 && DNS1123_LABEL.test(name);
}

/** True when a mapping key or value is a pattern (contains `*`). */
export function isNamespacePattern(value: string): boolean {
  return value.includes(WILDCARD);
}

/** Replaces `${name}` with the vcluster name. */
export function substituteVclusterName(value: string, vclusterName: string): string {
  return value.split(NAME_PLACEHOLDER).join(vclusterName);
}

/** One broken rule: the `byName` key of the entry and what is wrong with it. */
export interface NamespaceMappingProblem {
  /** The virtual-side key of the offending entry. */
  readonly virtualKey: string;
  /** What is wrong and what is allowed. */
  readonly message: string;
}

/**
 * Checks every entry of `byName`. Without `vclusterName` (while parsing the file, before the name
 * is known) names are checked with the shortest possible stand-in, so only entries invalid for
 * every vcluster name are reported; with it, the substituted names are checked exactly.
 * Returns all problems, in entry order.
 */
export function checkNamespaceMappings(
  byName: Readonly<Record<string, string>>,
  vclusterName?: string,
): NamespaceMappingProblem[] {
  const name = vclusterName ?? STAND_IN_NAME;
  const problems: NamespaceMappingProblem[] = [];
  const hostOwners = new Map<string, string>();
  for (const [virtualKey, host] of Object.entries(byName)) {
    const report = (message: string): void => {
      problems.push({ virtualKey, message });
    };
    const virtualIsPattern = isNamespacePattern(virtualKey);
    const hostIsPattern = isNamespacePattern(host);
    if (virtualIsPattern !== hostIsPattern) {
      report(
        `"${virtualKey}": "${host}" mixes an exact name with a pattern; map exact names to exact names and patterns (one trailing *) to patterns`,
      );
      continue;
    }
    const sides: [string, string][] = [
      ['virtual namespace', virtualKey],
      ['host namespace', host],
    ];
    for (const [side, value] of sides) {
      const problem = virtualIsPattern ? checkPattern(value, name) : checkExact(value, name);
      if (problem !== undefined) report(`${side} ${problem}`);
    }
    const resolvedHost = substituteVclusterName(host, name);
    const owner = hostOwners.get(resolvedHost);
    if (owner !== undefined) {
      report(`host namespace "${host}" is already the target of "${owner}"; each host namespace may be mapped once`);
    } else {
      hostOwners.set(resolvedHost, virtualKey);
    }
  }
  return problems;
}

function checkPlaceholders(value: string): string | undefined {
  const withoutName = value.split(NAME_PLACEHOLDER);
  if (withoutName.length > 2) return `"${value}" uses ${NAME_PLACEHOLDER} more than once; it may appear at most once`;
  if (/\$\{[^}]*\}/.test(withoutName.join(''))) {
    return `"${value}" uses an unknown placeholder; only ${NAME_PLACEHOLDER} (the virtual cluster name) is allowed`;
  }
  return undefined;
}

function checkExact(value: string, vclusterName: string): string | undefined {
  if (value === '') return 'must not be empty';
  const placeholderProblem = checkPlaceholders(value);
  if (placeholderProblem !== undefined) return placeholderProblem;
  const resolved = substituteVclusterName(value, vclusterName);
  if (!isValidNamespaceName(resolved)) {
    return `"${value}" is not a valid namespace name (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)`;
  }
  return undefined;
}

function checkPattern(value: string, vclusterName: string): string | undefined {
  const wildcards = value.split(WILDCARD).length - 1;
  if (wildcards !== 1) return `pattern "${value}" must contain exactly one * (found ${wildcards})`;
  if (!value.endsWith(WILDCARD)) return `pattern "${value}" must end with its *, e.g. "team-*"`;
  const prefix = value.slice(0, -1);
  const placeholderProblem = checkPlaceholders(prefix);
  if (placeholderProblem !== undefined) return placeholderProblem;
  const literal = substituteVclusterName(prefix, vclusterName);
  if (literal === '') return `pattern "${value}" needs a prefix before the *, e.g. "team-*"`;
  if (literal.length > MAX_PATTERN_PREFIX_LENGTH) {
    return `pattern "${value}" has a prefix of ${literal.length} characters; at most ${MAX_PATTERN_PREFIX_LENGTH} are allowed`;
  }
  // The prefix may end with '-': it is completed by the matched part.
  if (!isValidNamespaceName(`${literal}a`)) {
    return `pattern "${value}" has an invalid prefix (lowercase letters, digits and '-', starting with a letter or digit)`;
  }
  return undefined;
}
