/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`), as k8s.io/apiserver's field
 * manager and structured-merge-diff do it: the applied configuration is merged into the live
 * object (maps by key, list maps by their keys, sets by value, everything else replaced), fields
 * the manager applied before and no longer applies are removed unless another manager owns them,
 * and a change to a field another manager owns is a conflict unless forced. Pure.
 */
import { ApiError, badRequest, isJsonObject, jsonEqual, type JsonObject, type StatusCause } from '../apimachinery/index.js';
import { difference, displayPath, intersection, orderedPaths, pathElements, pathOf, union, type FieldSet } from './field-set.js';
import { capUpdateManagers, compareObjects, decodeManagedFields, emptyObjectOf, encodeManagedFields, fieldSetOf, itemElement, managerKey, type FieldSchema, type ManagerFields } from './managed-fields.js';
import type { Subresource } from './subresource.js';

/** The media type of server-side apply. */
export const APPLY_PATCH_MEDIA_TYPE = 'application/apply-patch+yaml';

/** One server-side apply. */
export interface ApplyRequest {
  schema: FieldSchema;
  /** The kind's `apiVersion` (`v1`, `<group>/<version>`) and `kind`, which the configuration must name. */
  apiVersion: string;
  kind: string;
  /** The stored object; undefined when the apply creates it. */
  live: JsonObject | undefined;
  /** The applied configuration (the request body). */
  config: unknown;
  /** The `fieldManager` (required for apply, checked by the caller). */
  manager: string;
  /** `force=true`: take conflicting fields over from their managers. */
  force: boolean;
  /** RFC 3339 time of the write. */
  now: string;
  /** The subresource applied to (`status`, `approval`): its own entry, owning only status. */
  subresource?: Subresource | undefined;
}

/** The Go spelling of a group-version-kind, as the real server names it in errors: `/v1, Kind=ConfigMap`. */
function gvkString(apiVersion: unknown, kind: unknown): string {
  const version = typeof apiVersion === 'string' ? apiVersion : '';
  const groupVersion = version.includes('/') ? version : `/${version}`;
  return `${groupVersion}, Kind=${typeof kind === 'string' ? kind : ''}`;
}

/**
 * Throws the real server's 400 unless `config` is an object naming `apiVersion` and `kind` (an
 * applied configuration must name both, there is no defaulting from the URL).
 */
export function assertAppliedKind(config: unknown, apiVersion: string, kind: string): asserts config is JsonObject {
  if (!isJsonObject(config)) throw badRequest('error decoding YAML: the applied configuration must be an object');
  if (config['apiVersion'] !== apiVersion || config['kind'] !== kind) {
    throw badRequest(`invalid object type: ${gvkString(config['apiVersion'], config['kind'])}`);
  }
}

/**
 * The object `request` applies, with its `metadata.managedFields` updated: the manager's Apply
 * entry holds exactly the applied fields, other managers lose what was forced away or removed.
 * Throws a 400 {@link ApiError} for a configuration of another kind or one that sets
 * managedFields, a 409 Conflict naming each conflicting field and manager unless `force`. The
 * name is not checked here (the caller compares it with the URL's).
 */
export function applyConfiguration(request: ApplyRequest): JsonObject {
  const { schema, config } = request;
  assertAppliedKind(config, request.apiVersion, request.kind);
  const configMeta = config['metadata'];
  if (isJsonObject(configMeta) && configMeta['managedFields'] !== undefined && configMeta['managedFields'] !== null) {
    throw badRequest('metadata.managedFields must be nil');
  }
  const live = request.live === undefined ? emptyObjectOf(schema) : withoutManagedFields(request.live);
  const managers = (request.live !== undefined ? decodeManagedFields(metadataOf(request.live)['managedFields']) : undefined) ?? new Map<string, ManagerFields>();
  const identity = { manager: request.manager, operation: 'Apply' as const, apiVersion: request.apiVersion, ...(request.subresource !== undefined ? { subresource: request.subresource } : {}) };
  const part = request.subresource === undefined ? 'main' : 'status';
  const key = managerKey(identity);
  const previous = managers.get(key);
  const applied = fieldSetOf(schema, config, part);
  const others = [...managers.entries()].filter(([other]) => other !== key).map(([, entry]) => entry);

  let merged = mergeValue(schema, live, config, '') as JsonObject;
  if (previous !== undefined) {
    const kept = others.reduce((owned, entry) => union(owned, entry.fields), applied);
    merged = prune(schema, merged, difference(previous.fields, applied), kept);
  }

  const compared = compareObjects(schema, live, merged, part);
  const changed = union(compared.added, compared.modified);
  const conflicts = others.map((entry) => ({ entry, fields: intersection(entry.fields, changed) })).filter((conflict) => conflict.fields.size > 0);
  if (conflicts.length > 0 && !request.force) throw applyConflict(conflicts);
  for (const entry of others) entry.fields = difference(difference(entry.fields, changed), compared.removed);

  const time = jsonEqual(merged, live) ? previous?.time : request.now;
  managers.set(key, { ...identity, fields: applied, ...(time !== undefined ? { time } : {}) });
  const metadata = { ...metadataOf(merged) };
  const entries = encodeManagedFields(capUpdateManagers(managers).values());
  if (entries === undefined) delete metadata['managedFields'];
  else metadata['managedFields'] = entries;
  return { ...merged, metadata };
}

function metadataOf(object: JsonObject): JsonObject {
  return isJsonObject(object['metadata']) ? object['metadata'] : {};
}

function withoutManagedFields(object: JsonObject): JsonObject {
  const metadata = { ...metadataOf(object) };
  delete metadata['managedFields'];
  return { ...object, metadata };
}

/** How Kubernetes names a manager in a conflict: `"one"`, or `"kubectl-edit" using v1` for an Update. */
function printManager(entry: ManagerFields): string {
  let printed = JSON.stringify(entry.manager);
  if (entry.subresource !== undefined) printed = `${printed} with subresource ${JSON.stringify(entry.subresource)}`;
  return entry.operation === 'Update' ? `${printed} using ${entry.apiVersion}` : printed;
}

/** The 409 of an apply that would change fields other managers own, with one cause per field. */
function applyConflict(conflicts: readonly { entry: ManagerFields; fields: FieldSet }[]): ApiError {
  const sorted = [...conflicts].sort((a, b) => (a.entry.manager < b.entry.manager ? -1 : a.entry.manager > b.entry.manager ? 1 : 0));
  const causes: StatusCause[] = [];
  const lines: string[] = [];
  for (const { entry, fields } of sorted) {
    const manager = printManager(entry);
    lines.push(`conflicts with ${manager}:`);
    for (const path of orderedPaths(fields)) {
      causes.push({ reason: 'FieldManagerConflict', message: `conflict with ${manager}`, field: displayPath(path) });
      lines.push(`- ${displayPath(path)}`);
    }
  }
  const first = causes[0];
  const message =
    causes.length === 1 && first !== undefined
      ? `Apply failed with 1 conflict: ${first.message}: ${first.field ?? ''}`
      : `Apply failed with ${causes.length} conflicts: ${lines.join('\n')}`;
  return new ApiError('Conflict', message, { causes });
}

/** The FieldsV1 element of each item of the list at `schemaPath`, by index. */
function itemElements(schema: FieldSchema, list: readonly unknown[], schemaPath: string): string[] {
  const ownership = schema.list(schemaPath);
  return list.map((item, index) => itemElement(ownership, item, index));
}

function joinName(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

/**
 * The applied value `config` merged into the live value `live`: maps merge by key (a `null` in the
 * configuration removes the field), list maps by item key and sets by value (live order, new
 * items appended), everything else (scalars, atomic lists and maps) is the configuration's.
 */
function mergeValue(schema: FieldSchema, live: unknown, config: unknown, schemaPath: string): unknown {
  if (isJsonObject(config) && isJsonObject(live) && !schema.atomicMap(schemaPath)) {
    const out: JsonObject = { ...live };
    for (const [name, value] of Object.entries(config)) {
      if (value === null) delete out[name];
      else out[name] = mergeValue(schema, live[name], value, joinName(schemaPath, name));
    }
    return out;
  }
  if (Array.isArray(config) && Array.isArray(live) && schema.list(schemaPath).kind !== 'atomic') {
    const out = [...live];
    const liveElements = itemElements(schema, live, schemaPath);
    const configElements = itemElements(schema, config, schemaPath);
    config.forEach((item, index) => {
      const at = liveElements.indexOf(configElements[index] ?? '');
      if (at < 0) out.push(item);
      else out[at] = mergeValue(schema, live[at], item, schemaPath);
    });
    return out;
  }
  if (isJsonObject(config) && !isJsonObject(live) && !schema.atomicMap(schemaPath)) return mergeValue(schema, {}, config, schemaPath);
  return structuredClone(config);
}

/**
 * `object` without the fields of `dropped` (what the manager applied before and no longer does),
 * except those `kept` (applied now or owned by another manager) or holding kept fields; maps and
 * lists emptied by the removal go too.
 */
function prune(schema: FieldSchema, object: JsonObject, dropped: ReadonlySet<string>, kept: ReadonlySet<string>): JsonObject {
  const keptPrefixes = new Set<string>();
  for (const path of kept) {
    const elements = pathElements(path);
    for (let length = 1; length <= elements.length; length += 1) keptPrefixes.add(pathOf(elements.slice(0, length)));
  }
  const result = structuredClone(object);
  const paths = [...dropped].filter((path) => !keptPrefixes.has(path)).sort((a, b) => pathElements(a).length - pathElements(b).length);
  for (const path of paths) removePath(schema, result, pathElements(path));
  return result;
}

/** Removes the field at `elements` from `root` (in place), then every container the removal emptied. */
function removePath(schema: FieldSchema, root: JsonObject, elements: readonly string[]): void {
  // Each step down: the container and where the next element sits in it (a key or an index).
  const chain: { container: JsonObject | unknown[]; at: string | number }[] = [];
  let node: unknown = root;
  let schemaPath = '';
  for (const element of elements) {
    if (isJsonObject(node) && element.startsWith('f:')) {
      const name = element.slice(2);
      if (!(name in node)) return;
      chain.push({ container: node, at: name });
      schemaPath = joinName(schemaPath, name);
      node = node[name];
    } else if (Array.isArray(node)) {
      const at = itemElements(schema, node, schemaPath).indexOf(element);
      if (at < 0) return;
      chain.push({ container: node, at });
      node = node[at];
    } else {
      return;
    }
  }
  // Never the object itself, nor a top-level field merely because it became empty.
  for (let depth = chain.length - 1; depth >= 0; depth -= 1) {
    const { container, at } = chain[depth] as { container: JsonObject | unknown[]; at: string | number };
    if (Array.isArray(container)) container.splice(at as number, 1);
    else delete container[at as string];
    const empty = Array.isArray(container) ? container.length === 0 : Object.keys(container).length === 0;
    if (!empty || depth === 0) return;
  }
}
