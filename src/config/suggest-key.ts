/**
 * The edit distance between two strings in the optimal-string-alignment form of
 * Damerau-Levenshtein: insertions, deletions, substitutions and transpositions of two adjacent
 * characters each cost 1 (`toHots` → `toHost` is 1, `endpoint` → `endpoints` is 1). Case counts:
 * compare lowercased strings to ignore it. Pure; O(a·b) time.
 */
export function editDistance(a: string, b: string): number {
  // Three rolling rows: the one before the previous is needed for transpositions.
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (beforePrevious[j - 2] ?? 0) + 1);
      }
      current.push(best);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The known key a misspelt `key` most likely meant, for "did you mean …?" hints: the candidate
 * with the smallest edit distance ({@link editDistance}, case ignored), if that distance is at most
 * 2 (at most 1 for keys of up to 3 characters, where 2 edits make anything look alike). Ties go to
 * the earlier candidate. `undefined` when nothing is close or `key` is itself a candidate.
 */
export function suggestKey(key: string, candidates: readonly string[]): string | undefined {
  if (candidates.includes(key)) return undefined;
  const wanted = key.toLowerCase();
  const limit = wanted.length <= 3 ? 1 : 2;
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}
