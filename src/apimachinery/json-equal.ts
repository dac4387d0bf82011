/**
 * Structural equality of JSON data, the question every "did anything change?" asks (generation
 * bumps, no-op writes, patch results).
 *
 * - Object key order is ignored; array order is significant; an array never equals an object.
 * - A key that is present with `undefined` differs from a missing key (the caller decides whether
 *   they mean the same; JSON text drops such keys).
 * - Numbers compare as SameValueZero: `-0` equals `0` (both are `0` in JSON text) and `NaN` equals
 *   `NaN` (so a value always equals itself; JSON cannot carry `NaN`).
 * - Cyclic values terminate: a pair of objects met again while it is still being compared further
 *   up is taken as equal, so the rest of the walk decides (two cycles of the same shape are equal).
 * - Only own enumerable string keys count; prototypes are not compared.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return equalValues(a, b, []);
}

/** `comparing` holds the object pairs being compared on the way down, flattened: a0, b0, a1, b1, … */
function equalValues(a: unknown, b: unknown, comparing: unknown[]): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const isArray = Array.isArray(a);
  if (isArray !== Array.isArray(b)) return false;
  for (let index = 0; index < comparing.length; index += 2) {
    if (comparing[index] === a && comparing[index + 1] === b) return true;
  }
  comparing.push(a, b);
  const equal = isArray ? equalArrays(a as unknown[], b as unknown[], comparing) : equalObjects(a as Record<string, unknown>, b as Record<string, unknown>, comparing);
  comparing.length -= 2;
  return equal;
}

function equalArrays(a: readonly unknown[], b: readonly unknown[], comparing: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) {
    if (!equalValues(a[index], b[index], comparing)) return false;
  }
  return true;
}

function equalObjects(a: Record<string, unknown>, b: Record<string, unknown>, comparing: unknown[]): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key) || !equalValues(a[key], b[key], comparing)) return false;
  }
  return true;
}
