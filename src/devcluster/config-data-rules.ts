/**
 * The strategies of the kinds that carry configuration data, ConfigMaps and Secrets, as
 * kube-apiserver's: `immutable` freezes the data (and itself) once set, a Secret's stringData is
 * write-only input merged into data, and a Secret's type never changes.
 */
import type { StatusCause } from '../apiserver/api-error.js';
import type { JsonObject, KindStrategy } from '../apiserver/kind-strategy.js';
import { forbiddenValue, invalidValue } from '../apiserver/metadata-validation.js';
import { deepEqual } from '../apiserver/strategic-merge-patch.js';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const IMMUTABLE_WHEN_SET = 'field is immutable when `immutable` is set';

/** Once the stored object is immutable: the flag must stay true and `fields` must not change. */
function immutableCauses(object: JsonObject, old: JsonObject | undefined, fields: readonly string[]): StatusCause[] {
  if (old?.['immutable'] !== true) return [];
  const causes: StatusCause[] = [];
  if (object['immutable'] !== true) causes.push(forbiddenValue('immutable', IMMUTABLE_WHEN_SET));
  for (const field of fields) {
    if (!deepEqual(object[field], old[field])) causes.push(forbiddenValue(field, IMMUTABLE_WHEN_SET));
  }
  return causes;
}

/** Merges stringData into data, base64-encoded (a stringData key wins), and drops stringData. */
function mergeStringData(object: JsonObject): void {
  const stringData = object['stringData'];
  delete object['stringData'];
  if (!isObject(stringData)) return;
  const data: JsonObject = isObject(object['data']) ? { ...object['data'] } : {};
  for (const [key, value] of Object.entries(stringData)) {
    if (typeof value === 'string') data[key] = Buffer.from(value, 'utf8').toString('base64');
  }
  object['data'] = data;
}

function validateSecretData(object: JsonObject, causes: StatusCause[]): void {
  const data = object['data'];
  if (data === undefined || data === null) return;
  if (!isObject(data)) {
    causes.push(invalidValue('data', data, 'must be a map of keys to base64 strings'));
    return;
  }
  for (const [key, value] of Object.entries(data)) {
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) {
      causes.push(invalidValue(`data[${key}]`, '<secret contents redacted>', 'must be base64-encoded'));
    }
  }
}

/** ConfigMaps: once `immutable` is set, data, binaryData and the flag itself cannot change. */
export const CONFIG_MAP_STRATEGY: KindStrategy = Object.freeze({
  validate(object: JsonObject, old: JsonObject | undefined): StatusCause[] {
    return immutableCauses(object, old, ['data', 'binaryData']);
  },
});

/**
 * Secrets: type defaults to Opaque; stringData is merged into data and never stored; data values
 * must be base64 (never echoed in errors); the type never changes; once `immutable` is set, data
 * and the flag cannot change.
 */
export const SECRET_STRATEGY: KindStrategy = Object.freeze({
  prepareForWrite(object: JsonObject): StatusCause[] {
    object['type'] ??= 'Opaque';
    mergeStringData(object);
    return [];
  },
  validate(object: JsonObject, old: JsonObject | undefined): StatusCause[] {
    const causes: StatusCause[] = [];
    if (old !== undefined && object['type'] !== old['type']) causes.push(invalidValue('type', object['type'], 'field is immutable'));
    causes.push(...immutableCauses(object, old, ['data']));
    validateSecretData(object, causes);
    return causes;
  },
});
