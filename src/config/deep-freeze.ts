/**
 * Freezes a plain data value and everything reachable from it, in place, and returns it typed as
 * read-only. Meant for values this module built itself (parsed YAML, merged defaults), never for
 * objects a caller still owns.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const key of Reflect.ownKeys(value)) {
    deepFreeze((value as Record<string | symbol, unknown>)[key]);
  }
  return Object.freeze(value);
}
