/**
 * The strategies of the kinds that carry configuration data, ConfigMaps and Secrets, as
 * kube-apiserver's: `immutable` freezes the data (and itself) once set, a Secret's stringData is
 * write-only input merged into data, and a Secret's type never changes.
 */
import { isJsonObject, jsonEqual, type JsonObject, type StatusCause } from '../apimachinery/index.js';
import { forbiddenValue, invalidValue, type KindStrategy, requiredValue } from '../apiserver/index.js';

const IMMUTABLE_WHEN_SET = 'field is immutable when `immutable` is set';

/** Once the stored object is immutable: the flag must stay true and `fields` must not change. */
function immutableCauses(object: JsonObject, old: JsonObject | undefined, fields: readonly string[]): StatusCause[] {
  if (old?.['immutable'] !== true) return [];
  const causes: StatusCause[] = [];
  if (object['immutable'] !== true) causes.push(forbiddenValue('immutable', IMMUTABLE_WHEN_SET));
  for (const field of fields) {
    if (!jsonEqual(object[field], old[field])) causes.push(forbiddenValue(field, IMMUTABLE_WHEN_SET));
  }
  return causes;
}

/** Merges stringData into data, base64-encoded (a stringData key wins), and drops stringData. */
function mergeStringData(object: JsonObject): void {
  const stringData = object['stringData'];
  delete object['stringData'];
  if (!isJsonObject(stringData)) return;
  const data: JsonObject = isJsonObject(object['data']) ? { ...object['data'] } : {};
  for (const [key, value] of Object.entries(stringData)) {
    if (typeof value === 'string') data[key] = Buffer.from(value, 'utf8').toString('base64');
  }
  object['data'] = data;
}

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const CONFIG_KEY_MESSAGE =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/** Why `key` may not name a file of a ConfigMap or Secret volume (`IsConfigMapKey`), every reason. */
function configKeyErrors(key: string): string[] {
  const errors: string[] = [];
  if (key.length > 253) errors.push('must be no more than 253 characters');
  if (!CONFIG_KEY.test(key)) errors.push(CONFIG_KEY_MESSAGE);
  if (key === '.') errors.push("must not be '.'");
  else if (key === '..') errors.push("must not be '..'");
  else if (key.startsWith('..')) errors.push("must not start with '..'");
  return errors;
}

function keysOf(value: unknown): string[] {
  return isJsonObject(value) ? Object.keys(value) : [];
}

function validateConfigMapKeys(object: JsonObject, causes: StatusCause[]): void {
  const binary = new Set(keysOf(object['binaryData']));
  for (const key of keysOf(object['data'])) {
    for (const why of configKeyErrors(key)) causes.push(invalidValue(`data[${key}]`, key, why));
    if (binary.has(key)) causes.push(invalidValue(`data[${key}]`, key, 'duplicate of key present in binaryData'));
  }
  for (const key of binary) {
    for (const why of configKeyErrors(key)) causes.push(invalidValue(`binaryData[${key}]`, key, why));
  }
}

/** The data keys a Secret of each built-in type must have (any of them for basic-auth; non-empty for ssh-auth). */
const REQUIRED_SECRET_KEYS: Readonly<Record<string, { keys: readonly string[]; anyOf?: boolean; nonEmpty?: boolean }>> = {
  'kubernetes.io/dockercfg': { keys: ['.dockercfg'] },
  'kubernetes.io/dockerconfigjson': { keys: ['.dockerconfigjson'] },
  'kubernetes.io/basic-auth': { keys: ['username', 'password'], anyOf: true },
  'kubernetes.io/ssh-auth': { keys: ['ssh-privatekey'], nonEmpty: true },
  'kubernetes.io/tls': { keys: ['tls.crt', 'tls.key'] },
};

function validateSecretData(object: JsonObject, causes: StatusCause[]): void {
  const data = object['data'];
  if (data !== undefined && data !== null && !isJsonObject(data)) {
    causes.push(invalidValue('data', data, 'must be a map of keys to base64 strings'));
    return;
  }
  const entries = isJsonObject(data) ? Object.entries(data) : [];
  for (const [key, value] of entries) {
    for (const why of configKeyErrors(key)) causes.push(invalidValue(`data[${key}]`, key, why));
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) {
      causes.push(invalidValue(`data[${key}]`, '<secret contents redacted>', 'must be base64-encoded'));
    }
  }
  const required = REQUIRED_SECRET_KEYS[String(object['type'])];
  if (required !== undefined) {
    const missing = required.keys.filter((key) => !entries.some(([present, value]) => present === key && (required.nonEmpty !== true || value !== '')));
    const refused = required.anyOf === true ? (missing.length === required.keys.length ? missing : []) : missing;
    for (const key of refused) causes.push(requiredValue(`data[${key}]`));
  }
  if (object['type'] === 'kubernetes.io/service-account-token') {
    const metadata = isJsonObject(object['metadata']) ? object['metadata'] : {};
    const annotations = isJsonObject(metadata['annotations']) ? metadata['annotations'] : {};
    const account = annotations['kubernetes.io/service-account.name'];
    if (typeof account !== 'string' || account === '') causes.push(requiredValue('metadata.annotations[kubernetes.io/service-account.name]'));
  }
}

/**
 * ConfigMaps: keys of data and binaryData are file names (`[-._a-zA-Z0-9]+`, not `.`/`..`), not
 * in both; once `immutable` is set, data, binaryData and the flag itself cannot change.
 */
export const CONFIG_MAP_STRATEGY: KindStrategy = Object.freeze({
  validate(object: JsonObject, old: JsonObject | undefined): StatusCause[] {
    const causes = immutableCauses(object, old, ['data', 'binaryData']);
    validateConfigMapKeys(object, causes);
    return causes;
  },
});

/**
 * Secrets: type defaults to Opaque; stringData is merged into data and never stored; data keys
 * are file names and values base64 (never echoed in errors); the built-in types have their
 * required keys; the type never changes; once `immutable` is set, data and the flag cannot change.
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
