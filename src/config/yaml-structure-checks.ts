import { isNode, isScalar, visit, type Document, type LineCounter } from 'yaml';

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
