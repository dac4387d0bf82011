/** Test helper: a deep-frozen structured clone, so a translation that mutates its input throws. */
export function deepFrozen<T>(value: T): T {
  const copy = structuredClone(value);
  const freeze = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    for (const child of Object.values(node)) freeze(child);
    Object.freeze(node);
  };
  freeze(copy);
  return copy;
}
