/**
 * JSON values as the Kubernetes API and vcluster.yaml hand them over: what every layer checks
 * before it reads a field.
 */

/** A JSON object (a Kubernetes object, a map field), owned by whoever holds it. */
export type JsonObject = Record<string, unknown>;

/**
 * Whether `value` is a JSON object: not null, not an array. Class instances (a Date, a Map) pass
 * too; values parsed from JSON or YAML never hold any.
 */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
