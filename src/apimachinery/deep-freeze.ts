/**
 * Freezes `value` and everything reachable from it through own enumerable string keys, in place,
 * and returns it. Frozen values can be handed out without copies (the devcluster store's reads,
 * the loaded configuration).
 *
 * - An object that is already frozen is taken as deeply frozen and not walked again: this keeps a
 *   shared frozen part from being walked once per holder, and ends cycles (each object is frozen
 *   before its children are walked).
 * - Primitives are returned as they are.
 * - Meant for plain data (parsed JSON or YAML, objects built from it): a typed array with elements
 *   cannot be frozen (the runtime throws a TypeError), and a class instance's internal state (a
 *   Map's entries) is not reached.
 * - Never for a value a caller still means to change: freezing is not undone.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) {
    deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
