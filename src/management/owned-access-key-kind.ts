import { isJsonObject, type JsonObject, type StatusCause } from '../apimachinery/index.js';
import { humanDuration, type KindDefinition, type KindStrategy, type StoredObject, type TableColumn } from '../apiserver/index.js';
import { validateAccessScope } from './access-scope.js';
import { generateAccessKey, isKeyHash, weakKeyReason, type AccessKeyHasher } from './access-key-hasher.js';
import { managementGroup, MANAGEMENT_VERSION } from './management-constants.js';
import { ownedAccessKeySchema } from './owned-access-key-schema.js';

/** The `spec` of a stored or written OwnedAccessKey ({} when absent or not an object). */
export function specOf(object: StoredObject | JsonObject | undefined): JsonObject {
  const spec = object?.['spec'];
  return isJsonObject(spec) ? spec : {};
}

/** Who a key belongs to: `spec.user`, else `spec.team`, else `spec.subject`. */
export interface KeyOwner {
  kind: 'user' | 'team' | 'subject';
  name: string;
}

/** The owner of an OwnedAccessKey, or undefined when it names none. */
export function ownerOf(object: StoredObject | JsonObject | undefined): KeyOwner | undefined {
  const spec = specOf(object);
  for (const kind of ['user', 'team', 'subject'] as const) {
    const name = spec[kind];
    if (typeof name === 'string' && name !== '') return { kind, name };
  }
  return undefined;
}

/** Every owner an OwnedAccessKey names, as `user=alice`, `team=ops`, `subject=ci` (the `extra` entry `KEY_OWNERS_EXTRA`). */
export function ownersOf(object: StoredObject | JsonObject | undefined): string[] {
  const spec = specOf(object);
  return (['user', 'team', 'subject'] as const).flatMap((kind) => {
    const name = spec[kind];
    return typeof name === 'string' && name !== '' ? [`${kind}=${name}`] : [];
  });
}

/** When the key expires in ms since the epoch, or undefined when it never does (no or zero ttl). */
export function expiresAtMs(object: StoredObject | JsonObject, lastUseMs?: number): number | undefined {
  const spec = specOf(object);
  const ttl = spec['ttl'];
  if (typeof ttl !== 'number' || ttl <= 0) return undefined;
  const metadata = isJsonObject(object['metadata']) ? object['metadata'] : {};
  const created = Date.parse(String(metadata['creationTimestamp'] ?? ''));
  let from = Number.isNaN(created) ? 0 : created;
  if (spec['ttlAfterLastActivity'] === true) {
    const status = isJsonObject(object['status']) ? object['status'] : {};
    const last = Date.parse(String(status['lastActivity'] ?? ''));
    if (!Number.isNaN(last)) from = Math.max(from, last);
    if (lastUseMs !== undefined) from = Math.max(from, lastUseMs);
  }
  return from + ttl * 1000;
}

function textCell(object: StoredObject, ...path: string[]): string {
  let value: unknown = object;
  for (const step of path) value = isJsonObject(value) ? value[step] : undefined;
  return value === undefined || value === null ? '' : String(value);
}

/** `kubectl get ownedaccesskeys`: name, owner, type, disabled, expires, last activity, age. */
const COLUMNS: readonly TableColumn[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name of the key object.', priority: 0, cell: (object) => object.metadata.name },
  {
    name: 'Owner',
    type: 'string',
    format: '',
    description: 'The user, team or subject the key belongs to.',
    priority: 0,
    cell: (object) => {
      const owner = ownerOf(object);
      return owner === undefined ? '<none>' : `${owner.kind}:${owner.name}`;
    },
  },
  { name: 'Type', type: 'string', format: '', description: 'The key type: User, or Other for the keys vcsync manages.', priority: 0, cell: (object) => textCell(object, 'spec', 'type') },
  { name: 'Disabled', type: 'string', format: '', description: 'Whether the key is disabled.', priority: 0, cell: (object) => String(specOf(object)['disabled'] === true) },
  {
    name: 'Expires',
    type: 'string',
    format: '',
    description: 'When the key expires (from now), or <never>.',
    priority: 0,
    cell: (object, nowMs) => {
      const at = expiresAtMs(object);
      if (at === undefined) return '<never>';
      return at <= nowMs ? 'expired' : humanDuration(at - nowMs);
    },
  },
  {
    name: 'Last Activity',
    type: 'string',
    format: '',
    description: 'How long ago the key was last used.',
    priority: 0,
    cell: (object, nowMs) => {
      const last = Date.parse(textCell(object, 'status', 'lastActivity'));
      return Number.isNaN(last) ? '<never>' : `${humanDuration(nowMs - last)} ago`;
    },
  },
  { name: 'Age', type: 'date', format: '', description: 'Time since creation.', priority: 0, cell: (object, nowMs) => humanDuration(nowMs - Date.parse(String(object.metadata['creationTimestamp'] ?? ''))) },
];

/** The access-key rules of OwnedAccessKey: key strength and format, ttl, an owner. */
function validate(object: JsonObject, old: JsonObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = specOf(object);
  const key = spec['key'];
  if (key !== undefined && key !== null && key !== '') {
    if (typeof key !== 'string') causes.push({ reason: 'FieldValueInvalid', field: 'spec.key', message: 'Invalid value: spec.key must be a string' });
    else if (isKeyHash(key)) {
      if (key !== specOf(old)['key']) {
        causes.push({ reason: 'FieldValueInvalid', field: 'spec.key', message: 'Invalid value: a key hash cannot be written; omit spec.key to keep the key, or give a new key' });
      }
    } else {
      const weak = weakKeyReason(key);
      if (weak !== undefined) causes.push({ reason: 'FieldValueInvalid', field: 'spec.key', message: `Invalid value: ${weak}` });
    }
  }
  const ttl = spec['ttl'];
  if (ttl !== undefined && ttl !== null && (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0)) {
    causes.push({ reason: 'FieldValueInvalid', field: 'spec.ttl', message: `Invalid value: ${JSON.stringify(ttl)}: spec.ttl is a number of seconds, 0 or more` });
  }
  causes.push(...validateAccessScope(spec['scope'], 'spec.scope'));
  if (ownerOf(object) === undefined) {
    causes.push({ reason: 'FieldValueRequired', field: 'spec.user', message: 'Required value: one of spec.user, spec.team or spec.subject names who the key belongs to' });
  }
  return causes;
}

/** The key kept (hashed) and hidden connector data kept from `old` when a write omits them. */
function seal(hasher: AccessKeyHasher, object: JsonObject, old: JsonObject | undefined): ((stored: JsonObject) => JsonObject) | undefined {
  const spec = specOf(object);
  object['spec'] = spec;
  const oldSpec = specOf(old);
  const oldConnectorData = isJsonObject(oldSpec['identity']) ? oldSpec['identity']['connectorData'] : undefined;
  if (oldConnectorData !== undefined) {
    const identity = isJsonObject(spec['identity']) ? spec['identity'] : {};
    if (identity['connectorData'] === undefined) spec['identity'] = { ...identity, connectorData: oldConnectorData };
  }
  const key = spec['key'];
  if (typeof key === 'string' && isKeyHash(key)) return undefined;
  if (typeof key !== 'string' || key === '') {
    if (old !== undefined) {
      if (oldSpec['key'] === undefined) delete spec['key'];
      else spec['key'] = oldSpec['key'];
      return undefined;
    }
    const generated = generateAccessKey();
    spec['key'] = hasher.hash(generated);
    return reveal(generated);
  }
  spec['key'] = hasher.hash(key);
  return old === undefined ? reveal(key) : undefined;
}

/** Shows `key` in the create response only. */
function reveal(key: string): (stored: JsonObject) => JsonObject {
  return (stored) => ({ ...stored, spec: { ...specOf(stored), key } });
}

/** Every response shows an OwnedAccessKey without its key hash and connector data. */
function present(object: JsonObject): JsonObject {
  const spec = specOf(object);
  const hidesKey = isKeyHash(spec['key']);
  const identity = isJsonObject(spec['identity']) ? spec['identity'] : undefined;
  const hidesConnectorData = identity !== undefined && 'connectorData' in identity;
  if (!hidesKey && !hidesConnectorData) return object;
  const shown: JsonObject = { ...spec };
  if (hidesKey) delete shown['key'];
  if (identity !== undefined && hidesConnectorData) {
    const rest = { ...identity };
    delete rest['connectorData'];
    shown['identity'] = rest;
  }
  return { ...object, spec: shown };
}

/** Options of {@link ownedAccessKeyKind}. */
export interface OwnedAccessKeyKindOptions {
  /** The platform word of the group `management.<platform>.sh`. */
  platform: string;
  /** Hashes keys for storage (the installation's secret). */
  hasher: AccessKeyHasher;
}

/**
 * OwnedAccessKey (as the vCluster Platform defines it), cluster-scoped `ownedaccesskeys` in `management.<platform>.sh/v1`:
 * every seed field in its schema; `spec.key` generated (256 bits) when absent or checked
 * ({@link weakKeyReason}) when given, stored only as its HMAC, shown only in the create response;
 * a write that omits it (or `identity.connectorData`, never shown) keeps the stored one;
 * generation follows the spec; `status` is a subresource (lastActivity is the server's).
 */
export function ownedAccessKeyKind(options: OwnedAccessKeyKindOptions): KindDefinition {
  const group = managementGroup(options.platform);
  const strategy: KindStrategy = {
    validate,
    seal: (object, old) => seal(options.hasher, object, old),
    present,
  };
  return {
    group,
    version: MANAGEMENT_VERSION,
    kind: 'OwnedAccessKey',
    plural: 'ownedaccesskeys',
    namespaced: false,
    subresources: ['status'],
    columns: COLUMNS,
    schema: ownedAccessKeySchema(group, MANAGEMENT_VERSION),
    validatesSchemaTypes: true,
    strategy,
    generation: 'spec',
  };
}
