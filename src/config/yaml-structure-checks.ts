import { isMap, isNode, isScalar, isSeq, visit, type Document, type LineCounter } from 'yaml';

/**
 * Checks of a parsed YAML document's structure that the YAML library does not make, or makes at a
 * cost that grows with the square of a mapping's size. Each returns the first problem's 1-based
 * position, or undefined. Pure apart from CPU.
 */

/**
 * The position of the first key written twice in one mapping (scalar keys with the same value, as
 * the YAML library's `uniqueKeys` compares them), in one pass over each mapping.
 */
export function duplicateKey(document: Document, lineCounter: LineCounter): { line: number; column: number } | undefined {
  let found: { line: number; column: number } | undefined;
  visit(document, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (!seen.has(pair.key.value)) {
          seen.add(pair.key.value);
          continue;
        }
        const { line, col } = lineCounter.linePos(pair.key.range?.[0] ?? 0);
        found = { line, column: col };
        return visit.BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** The first alias that lies inside the node its anchor names (`a: &a [*a]`), with its position. */
export function selfReferencingAlias(document: Document, lineCounter: LineCounter): { name: string; line: number; column: number } | undefined {
  let found: { name: string; line: number; column: number } | undefined;
  visit(document, {
    Alias(_key, alias) {
      const target: unknown = alias.resolve(document);
      const [start, end] = isNode(target) ? (target.range ?? []) : [];
      const at = alias.range?.[0];
      if (start === undefined || end === undefined || at === undefined || at < start || at >= end) return undefined;
      const { line, col } = lineCounter.linePos(at);
      found = { name: alias.source, line, column: col };
      return visit.BREAK;
    },
  });
  return found;
}

/** Levels of nesting a config may have; vcluster.yaml needs about ten. */
export const MAX_NESTING_DEPTH = 100;

/**
 * Whether a collection of the parsed document (aliases not followed) lies more than `limit`
 * levels deep. Iterative, so a document the parser could just read cannot overflow it.
 */
export function nestingDeeperThan(document: Document, limit: number): boolean {
  return deeperThan(document.contents, limit, (node) => {
    if (isMap(node)) return node.items.flatMap((pair) => [pair.key, pair.value]);
    if (isSeq(node)) return node.items;
    return [];
  });
}

/** Whether plain data (as read, aliases expanded) nests lists or mappings more than `limit` levels deep. Iterative. */
export function dataDeeperThan(data: unknown, limit: number): boolean {
  return deeperThan(data, limit, (value) => (typeof value === 'object' && value !== null ? Object.values(value) : []));
}

function deeperThan(root: unknown, limit: number, children: (node: unknown) => readonly unknown[]): boolean {
  const pending: { node: unknown; depth: number }[] = [{ node: root, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > limit) return true;
    for (const child of children(next.node)) pending.push({ node: child, depth: next.depth + 1 });
  }
  return false;
}
