/**
 * Field ownership (`metadata.managedFields`), as k8s.io/apiserver's field manager and
 * structured-merge-diff track it: which manager set which field, in the FieldsV1 encoding
 * (`f:<field>`, `k:<list-map key>`, `v:<set value>`, `.` for a node owned itself), over the field
 * sets of `field-set.ts`. Pure functions over JSON objects; nothing here mutates its inputs.
 */
import { childPath, decodeFieldsV1, difference, encodeFieldsV1, union, type FieldSet } from './field-set.js';
import { isJsonObject, jsonEqual, type JsonObject } from '../apimachinery/index.js';
import type { ResourceType } from './resource-type.js';
import type { Subresource } from './subresource.js';
import { listStrategyOf } from './strategic-merge-patch.js';
import { structFieldsOf } from './schema-pruning.js';

/** One entry of `metadata.managedFields` as stored and served. */
export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  /** RFC 3339; absent when the manager's last operation changed nothing. */
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: JsonObject;
  subresource?: string;
}

/** One manager's ownership while it is computed: the entry's identity plus its field set. */
export interface ManagerFields {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time?: string;
  subresource?: string;
  fields: FieldSet;
}

/** How the lists and maps of a kind are owned: the list-map keys, sets and atomic fields. */
export interface FieldSchema {
  /** How the list at `path` (field names joined by `.`, list indices left out) is owned. */
  list(path: string): ListOwnership;
  /** Whether the map at `path` is owned as a whole (`x-kubernetes-map-type: atomic`). */
  atomicMap(path: string): boolean;
  /** Top-level fields that are structs: present (empty) in a new object of the kind, as in Go. */
  readonly structFields: readonly string[];
  /** Whether `status` is a subresource: then the main resource does not own it, and the reverse. */
  readonly statusSubresource: boolean;
}

/** How one list is owned: as a whole, as a set of values, or item by item by key. */
export type ListOwnership = { kind: 'atomic' } | { kind: 'set' } | { kind: 'map'; keys: readonly string[]; keyDefaults: Readonly<Record<string, unknown>> };

/** Metadata the field manager never tracks (identity and server-owned fields), as StripMetaManager. */
const STRIPPED_METADATA = new Set(['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion']);

/** The path of `metadata`, never owned itself (only fields below it are). */
const METADATA = 'f:metadata';

function joinName(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

const schemas = new WeakMap<ResourceType, FieldSchema>();

/** The {@link FieldSchema} of `type`, from its merge strategies and field schemas (cached per type). */
export function fieldSchemaOf(type: ResourceType): FieldSchema {
  const cached = schemas.get(type);
  if (cached !== undefined) return cached;
  const structFields = structFieldsOf(type.schema);
  const schema: FieldSchema = {
    list(path) {
      const strategy = listStrategyOf(type.mergeStrategies, path);
      if (strategy === undefined || strategy.atomic === true) return { kind: 'atomic' };
      const keys = strategy.listMapKeys ?? (strategy.mergeKey !== undefined ? [strategy.mergeKey] : undefined);
      if (keys === undefined) return { kind: 'set' };
      return { kind: 'map', keys, keyDefaults: strategy.keyDefaults ?? {} };
    },
    atomicMap(path) {
      return listStrategyOf(type.mergeStrategies, path)?.atomic === true;
    },
    structFields,
    statusSubresource: type.subresources.includes('status'),
  };
  schemas.set(type, schema);
  return schema;
}

/** A new object of the kind as the Go type has it before any field is set: its struct fields empty. */
export function emptyObjectOf(schema: FieldSchema): JsonObject {
  return Object.fromEntries(schema.structFields.map((name) => [name, {}]));
}

/** The FieldsV1 element of a list item: `k:{…}` by the list-map keys, `v:<json>` for a set, else `i:<index>`. */
export function itemElement(ownership: ListOwnership, item: unknown, index: number): string {
  if (ownership.kind === 'set') return `v:${JSON.stringify(item)}`;
  if (ownership.kind === 'map' && isJsonObject(item)) {
    const key: JsonObject = {};
    for (const name of [...ownership.keys].sort()) {
      const value = item[name] ?? ownership.keyDefaults[name];
      if (value !== undefined) key[name] = value;
    }
    return `k:${JSON.stringify(key)}`;
  }
  return `i:${index}`;
}

/** What a walk visits below one node: the FieldsV1 element, the schema path and the value of each child. */
interface Child {
  element: string;
  schemaPath: string;
  value: unknown;
  /** A list item (owned itself), rather than a field. */
  item: boolean;
}

/** Whether `value` at `schemaPath` is a leaf of ownership: a scalar, null, an atomic list or map. */
function isLeaf(schema: FieldSchema, value: unknown, schemaPath: string): boolean {
  if (Array.isArray(value)) return schema.list(schemaPath).kind === 'atomic';
  if (isJsonObject(value)) return schema.atomicMap(schemaPath);
  return true;
}

function childrenOf(schema: FieldSchema, value: unknown, schemaPath: string): Child[] {
  if (Array.isArray(value)) {
    const ownership = schema.list(schemaPath);
    return value.map((item, index) => ({ element: itemElement(ownership, item, index), schemaPath, value: item, item: true }));
  }
  if (!isJsonObject(value)) return [];
  return Object.entries(value).map(([name, child]) => ({ element: `f:${name}`, schemaPath: joinName(schemaPath, name), value: child, item: false }));
}

/**
 * Which part of the object a write tracks: the main resource leaves status alone when it is a
 * subresource; a subresource leaves the spec alone (the real server's status strategies reset
 * only the spec), so labels written through it are its writer's.
 */
export type Tracked = 'main' | 'status';

/** Whether the top-level element `element` (below `parentPath`) is tracked at all. */
function tracked(schema: FieldSchema, parentPath: string, element: string, part: Tracked): boolean {
  if (parentPath === '') {
    if (element === 'f:apiVersion' || element === 'f:kind') return false;
    if (!schema.statusSubresource) return true;
    return part === 'status' ? element !== 'f:spec' : element !== 'f:status';
  }
  if (parentPath === 'f:metadata') return !STRIPPED_METADATA.has(element.slice(2));
  return true;
}

/**
 * The fields `object` sets, as structured-merge-diff's ToFieldSet: every leaf, every list item, and
 * every map entry that is null or empty; maps and structs themselves are not members.
 */
export function fieldSetOf(schema: FieldSchema, object: JsonObject, part: Tracked = 'main'): FieldSet {
  const set: FieldSet = new Set();
  const walk = (value: unknown, path: string, schemaPath: string): void => {
    for (const child of childrenOf(schema, value, schemaPath)) {
      if (!tracked(schema, path, child.element, part)) continue;
      const next = childPath(path, child.element);
      const leaf = isLeaf(schema, child.value, child.schemaPath);
      if (!leaf) walk(child.value, next, child.schemaPath);
      const empty = isJsonObject(child.value) && Object.keys(child.value).length === 0;
      if ((leaf || child.item || child.value === null || empty) && next !== METADATA) set.add(next);
    }
  };
  walk(object, '', '');
  return set;
}

/** What changed between two objects, by field path, as structured-merge-diff's Compare. */
export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * Compares `before` with `after`: leaves present only after are added, only before removed, in
 * both but different modified; a map, struct or list item present on one side only is added or
 * removed itself too.
 */
export function compareObjects(schema: FieldSchema, before: JsonObject, after: JsonObject, part: Tracked = 'main'): Comparison {
  const result: Comparison = { added: new Set(), modified: new Set(), removed: new Set() };
  const visit = (left: unknown, right: unknown, path: string, schemaPath: string): void => {
    const leftLeaf = left === undefined || isLeaf(schema, left, schemaPath);
    const rightLeaf = right === undefined || isLeaf(schema, right, schemaPath);
    const sameShape = Array.isArray(left) === Array.isArray(right) && isJsonObject(left) === isJsonObject(right);
    if ((leftLeaf && rightLeaf) || (left !== undefined && right !== undefined && !sameShape)) {
      if (left === undefined) result.added.add(path);
      else if (right === undefined) result.removed.add(path);
      else if (!jsonEqual(left, right)) result.modified.add(path);
      return;
    }
    const leftChildren = new Map(childrenOf(schema, left, schemaPath).map((child) => [child.element, child]));
    const rightChildren = new Map(childrenOf(schema, right, schemaPath).map((child) => [child.element, child]));
    for (const [element, child] of leftChildren) {
      if (!tracked(schema, path, element, part)) continue;
      visit(child.value, rightChildren.get(element)?.value, childPath(path, element), child.schemaPath);
    }
    for (const [element, child] of rightChildren) {
      if (leftChildren.has(element) || !tracked(schema, path, element, part)) continue;
      visit(undefined, child.value, childPath(path, element), child.schemaPath);
    }
    if (path === '' || path === METADATA) return;
    if (left === undefined) result.added.add(path);
    else if (right === undefined) result.removed.add(path);
  };
  visit(before, after, '', '');
  return result;
}

/** The identity of a manager's entry: manager, operation, subresource, and the apiVersion of an Update. */
export function managerKey(entry: Pick<ManagerFields, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  return JSON.stringify([entry.manager, entry.operation, entry.subresource ?? '', entry.operation === 'Update' ? entry.apiVersion : '']);
}

/** Whether `value` (a request's `metadata.managedFields`) asks to reset them: `[]` or `[{}]`. */
export function isManagedFieldsReset(value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  if (value.length === 0) return true;
  return value.length === 1 && isJsonObject(value[0]) && Object.keys(value[0]).length === 0;
}

/**
 * Decodes `metadata.managedFields`: the managers by {@link managerKey}, or undefined when the value
 * is not a valid list of entries (unknown operation or fields type, malformed FieldsV1, duplicates).
 */
export function decodeManagedFields(value: unknown): Map<string, ManagerFields> | undefined {
  const managers = new Map<string, ManagerFields>();
  if (value === undefined || value === null) return managers;
  if (!Array.isArray(value)) return undefined;
  for (const entry of value) {
    if (!isJsonObject(entry)) return undefined;
    const { manager, operation, apiVersion, time, fieldsType, fieldsV1, subresource } = entry;
    if (operation !== 'Apply' && operation !== 'Update') return undefined;
    if (fieldsType !== 'FieldsV1') return undefined;
    let fields: FieldSet;
    try {
      fields = fieldsV1 === undefined || fieldsV1 === null ? new Set() : decodeFieldsV1(fieldsV1);
    } catch {
      // Not a FieldsV1 object: the whole list is unusable, as the real decoder says.
      return undefined;
    }
    const decoded: ManagerFields = {
      manager: typeof manager === 'string' ? manager : '',
      operation,
      apiVersion: typeof apiVersion === 'string' ? apiVersion : '',
      fields,
      ...(typeof time === 'string' ? { time } : {}),
      ...(typeof subresource === 'string' && subresource !== '' ? { subresource } : {}),
    };
    const key = managerKey(decoded);
    if (managers.has(key)) return undefined;
    managers.set(key, decoded);
  }
  return managers;
}

function seconds(time: string | undefined): number {
  return time === undefined ? 0 : Math.floor(Date.parse(time) / 1000);
}

/** How many Update entries an object keeps before the oldest are merged, as the real server. */
export const MAX_UPDATE_MANAGERS = 10;
/** The manager of the entry that the oldest Update entries are merged into. */
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';

/**
 * `managers` with at most {@link MAX_UPDATE_MANAGERS} Update entries: past that, the oldest (by
 * time, then manager) are merged, per apiVersion, into one `ancient-changes` entry that takes the
 * time of the latest entry merged into it, as the real server's capManagersManager does.
 */
export function capUpdateManagers(managers: Map<string, ManagerFields>): Map<string, ManagerFields> {
  const updaters = [...managers.entries()].filter(([, entry]) => entry.operation === 'Update');
  if (updaters.length <= MAX_UPDATE_MANAGERS) return managers;
  updaters.sort(([keyA, a], [keyB, b]) => seconds(a.time) - seconds(b.time) || (keyA < keyB ? -1 : keyA > keyB ? 1 : 0));
  const firstByVersion = new Map<string, string>();
  let count = updaters.length;
  for (const [key, entry] of updaters) {
    if (count <= MAX_UPDATE_MANAGERS) break;
    const first = firstByVersion.get(entry.apiVersion);
    if (first === undefined) {
      firstByVersion.set(entry.apiVersion, key);
      continue;
    }
    const identity = { manager: ANCIENT_CHANGES_MANAGER, operation: 'Update' as const, apiVersion: entry.apiVersion };
    const bucketKey = managerKey(identity);
    // The bucket itself never merges into itself.
    if (bucketKey === key) continue;
    let bucket = managers.get(bucketKey);
    if (bucket === undefined) {
      bucket = { ...identity, fields: managers.get(first)?.fields ?? new Set() };
      managers.delete(first);
    }
    managers.set(bucketKey, { ...bucket, fields: union(bucket.fields, entry.fields), ...(entry.time !== undefined ? { time: entry.time } : {}) });
    managers.delete(key);
    count -= 1;
  }
  return managers;
}

/**
 * The managers as `metadata.managedFields`, in the real server's order (Apply before Update, then
 * by time, manager, apiVersion, subresource), empty ones left out; undefined when none is left.
 */
export function encodeManagedFields(managers: Iterable<ManagerFields>): ManagedFieldsEntry[] | undefined {
  const entries = [...managers]
    .filter((entry) => entry.fields.size > 0)
    .sort(
      (p, q) =>
        p.operation.localeCompare(q.operation) ||
        seconds(p.time) - seconds(q.time) ||
        (p.manager < q.manager ? -1 : p.manager > q.manager ? 1 : 0) ||
        p.apiVersion.localeCompare(q.apiVersion) ||
        (p.subresource ?? '').localeCompare(q.subresource ?? ''),
    )
    .map((entry): ManagedFieldsEntry => ({
      manager: entry.manager,
      operation: entry.operation,
      apiVersion: entry.apiVersion,
      ...(entry.time !== undefined ? { time: entry.time } : {}),
      fieldsType: 'FieldsV1',
      fieldsV1: encodeFieldsV1(entry.fields),
      ...(entry.subresource !== undefined ? { subresource: entry.subresource } : {}),
    }));
  return entries.length > 0 ? entries : undefined;
}

/** What {@link updateManagedFields} needs. */
export interface ManagedUpdate {
  schema: FieldSchema;
  /** The stored object; undefined on create. */
  live: JsonObject | undefined;
  /** The object about to be stored (its `metadata.managedFields` are not read). */
  next: JsonObject;
  /** The `metadata.managedFields` the request left on the object (a body's, a patch's result). */
  requested: unknown;
  manager: string;
  apiVersion: string;
  /** The subresource written (`status`, `approval`): its entry owns only status. Undefined for the object itself. */
  subresource?: Subresource | undefined;
  /** RFC 3339 time of the write. */
  now: string;
}

/**
 * The `metadata.managedFields` after an Update operation (create, update, non-apply patch), as the
 * real field manager computes them: the request's own managedFields when it set valid ones (reset
 * by `[]` or `[{}]`), else the live ones; the fields the write added or changed move to the
 * writer's entry (merged with its earlier Update entry, whose time moves), fields it removed leave
 * every entry, empty entries are dropped. Undefined when no entry is left.
 */
export function updateManagedFields(update: ManagedUpdate): ManagedFieldsEntry[] | undefined {
  const { schema, next } = update;
  const part: Tracked = update.subresource === undefined ? 'main' : 'status';
  const requested = update.requested;
  const liveManaged = (): Map<string, ManagerFields> => decodeManagedFields(isJsonObject(update.live?.['metadata']) ? update.live['metadata']['managedFields'] : undefined) ?? new Map();
  let managers: Map<string, ManagerFields>;
  if (update.subresource !== undefined) managers = liveManaged();
  else if (isManagedFieldsReset(requested)) managers = new Map();
  else {
    const fromRequest = decodeManagedFields(requested);
    managers = fromRequest === undefined || fromRequest.size === 0 ? liveManaged() : fromRequest;
  }
  const compared = compareObjects(schema, update.live ?? emptyObjectOf(schema), next, part);
  const taken = union(compared.added, compared.modified);
  for (const entry of managers.values()) entry.fields = difference(difference(entry.fields, taken), compared.removed);
  if (taken.size > 0) {
    const identity = { manager: update.manager, operation: 'Update' as const, apiVersion: update.apiVersion, ...(update.subresource !== undefined ? { subresource: update.subresource } : {}) };
    const key = managerKey(identity);
    const previous = managers.get(key);
    managers.set(key, { ...identity, fields: union(previous?.fields ?? new Set(), taken), time: update.now });
  }
  return encodeManagedFields(capUpdateManagers(managers).values());
}

