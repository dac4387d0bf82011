/**
 * Freezes a value and everything it contains; returns the same value. The store freezes each
 * object once, when it is written, so that reads (`get`, `list`, watch events) hand out the same
 * object without copying: on a 50-address Endpoints object a deep freeze costs about one JSON
 * copy, and an API server reads far more often than it writes (docs/adr/0001-devcluster-storage.md).
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) {
      deepFreeze((value as Record<string, unknown>)[key]);
    }
  }
  return value;
}
