import { ApiError, badRequest, isJsonObject } from '../apimachinery/index.js';

/** How a list field is patched. Lists not described are replaced as a whole (atomic). */
export interface ListPatchStrategy {
  /** Key that identifies elements of a list of objects; absent for lists of primitives (set merge). */
  readonly mergeKey?: string;
  /**
   * Server-side apply: the fields that identify an item (`x-kubernetes-list-map-keys`) when they
   * differ from `mergeKey` (Service ports: port and protocol). Default: `[mergeKey]`.
   */
  readonly listMapKeys?: readonly string[];
  /** Server-side apply: the schema defaults of key fields an item may leave out (`protocol: TCP`). Default: none. */
  readonly keyDefaults?: Readonly<Record<string, unknown>>;
  /** Server-side apply: the field (a list or a map) is owned as a whole, whatever its patch strategy. Default false. */
  readonly atomic?: boolean;
}

/**
 * The strategic-merge-patch metadata of one kind: its lists that merge (and by which key) instead
 * of being replaced, by path (field names joined by `.`, list indices left out). These are the
 * `patchStrategy`/`patchMergeKey` tags of the Kubernetes API types; kubectl computes its patches
 * from the same tags, so both sides must agree.
 */
export type PatchStrategyTable = Readonly<Record<string, ListPatchStrategy>>;

/** The merging lists of ObjectMeta, shared by every kind. */
const OBJECT_META: PatchStrategyTable = {
  'metadata.finalizers': {},
  'metadata.ownerReferences': { mergeKey: 'uid' },
};

/** The strategy of the field at `path` of a kind with `strategies`, ObjectMeta's included; undefined for an atomic list. */
export function listStrategyOf(strategies: PatchStrategyTable, path: string): ListPatchStrategy | undefined {
  return OBJECT_META[path] ?? strategies[path];
}

function listStrategy(strategies: PatchStrategyTable, path: string): ListPatchStrategy | undefined {
  const strategy = listStrategyOf(strategies, path);
  return strategy?.atomic === true ? undefined : strategy;
}

type JsonObject = Record<string, unknown>;

const SET_ORDER_PREFIX = '$setElementOrder/';
const DELETE_PRIMITIVES_PREFIX = '$deleteFromPrimitiveList/';

/**
 * Applies a strategic merge patch (`application/strategic-merge-patch+json`) to `original`, an
 * object of a kind with the merging lists `strategies`, and returns a new object; neither argument
 * is mutated. Follows Kubernetes' semantics: maps merge recursively and `null` deletes a key;
 * lists with a merge key (ObjectMeta's and the kind's) merge element-wise by that key, lists of
 * primitives with the merge strategy merge as sets, other lists are replaced; the directives `$patch: replace|delete|merge`,
 * `$retainKeys`, `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>` are honoured.
 * Throws a 400 {@link ApiError} on a malformed patch.
 */
export function applyStrategicMergePatch(strategies: PatchStrategyTable, original: JsonObject, patch: unknown): JsonObject {
  if (!isJsonObject(patch)) throw badRequest('a strategic merge patch must be a JSON object');
  const result = mergeMap(strategies, original, patch, '');
  if (result === undefined) throw new ApiError('Invalid', 'a strategic merge patch may not delete the whole object');
  return result;
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function mergeMap(strategies: PatchStrategyTable, original: JsonObject, patch: JsonObject, path: string): JsonObject | undefined {
  const directive = patch['$patch'];
  if (directive === 'delete') return undefined;
  if (directive === 'replace') {
    const rest = Object.fromEntries(Object.entries(patch).filter(([key]) => key !== '$patch'));
    return mergeMap(strategies, {}, rest, path);
  }
  if (directive !== undefined && directive !== 'merge') throw badRequest(`unknown patch directive ${JSON.stringify(directive)} at ${path || '<root>'}`);

  let result: JsonObject = { ...original };
  const retainKeys = patch['$retainKeys'];
  if (retainKeys !== undefined) {
    if (!Array.isArray(retainKeys) || retainKeys.some((key) => typeof key !== 'string')) throw badRequest(`$retainKeys at ${path || '<root>'} must be a list of strings`);
    const keep = new Set<string>(retainKeys as string[]);
    result = Object.fromEntries(Object.entries(result).filter(([key]) => keep.has(key)));
  }

  const orders: [string, unknown[]][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key === '$patch' || key === '$retainKeys') continue;
    if (key.startsWith(SET_ORDER_PREFIX)) {
      if (!Array.isArray(value)) throw badRequest(`${key} must be a list`);
      orders.push([key.slice(SET_ORDER_PREFIX.length), value]);
      continue;
    }
    if (key.startsWith(DELETE_PRIMITIVES_PREFIX)) {
      const field = key.slice(DELETE_PRIMITIVES_PREFIX.length);
      if (!Array.isArray(value)) throw badRequest(`${key} must be a list`);
      const current = result[field];
      const removed = new Set(value.map(canonicalJson));
      if (Array.isArray(current)) result[field] = current.filter((item) => !removed.has(canonicalJson(item)));
      continue;
    }
    if (key.startsWith('$')) throw badRequest(`unknown patch directive ${key} at ${path || '<root>'}`);
    if (value === null) {
      delete result[key];
      continue;
    }
    const fieldPath = join(path, key);
    if (isJsonObject(value)) {
      const base = result[key];
      const merged = mergeMap(strategies, isJsonObject(base) ? base : {}, value, fieldPath);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else if (Array.isArray(value)) {
      result[key] = mergeList(strategies, result[key], value, fieldPath);
    } else {
      result[key] = value;
    }
  }
  for (const [field, order] of orders) {
    const list = result[field];
    if (Array.isArray(list)) result[field] = applyOrder(strategies, list, order, original[field], join(path, field));
  }
  return result;
}

function cleanElement(strategies: PatchStrategyTable, element: unknown, path: string): unknown {
  if (isJsonObject(element)) return mergeMap(strategies, {}, element, path);
  if (Array.isArray(element)) return element.map((item) => cleanElement(strategies, item, path));
  return element;
}

function mergeList(strategies: PatchStrategyTable, original: unknown, patch: unknown[], path: string): unknown[] {
  const strategy = listStrategy(strategies, path);
  const replaceMarker = patch.findIndex((element) => isJsonObject(element) && element['$patch'] === 'replace' && Object.keys(element).length === 1);
  if (strategy === undefined || replaceMarker >= 0) {
    return patch
      .filter((_, index) => index !== replaceMarker)
      .map((element) => cleanElement(strategies, element, path))
      .filter((element) => element !== undefined);
  }
  const base = Array.isArray(original) ? [...(original as unknown[])] : [];
  const mergeKey = strategy.mergeKey;
  // Items are found by their identity through a map, never by a scan per patch item: a patch and a
  // list of tens of thousands of items each took over a minute of the event loop compared pairwise.
  if (mergeKey === undefined) {
    const present = new Set(base.map(canonicalJson));
    for (const element of patch) {
      if (isJsonObject(element)) throw badRequest(`the list at ${path} holds primitives; it cannot be patched with objects`);
      const identity = canonicalJson(element);
      if (present.has(identity)) continue;
      present.add(identity);
      base.push(element);
    }
    return normalizeElementOrder(base, patch, Array.isArray(original) ? original : [], undefined);
  }
  const items = new KeyedItems(base, mergeKey);
  for (const element of patch) {
    if (!isJsonObject(element)) throw badRequest(`the list at ${path} is merged by "${mergeKey}"; every element must be an object`);
    const key = element[mergeKey];
    if (key === undefined) throw badRequest(`an element of the list at ${path} has no merge key "${mergeKey}"`);
    const index = items.first(key);
    if (element['$patch'] === 'delete') {
      if (index !== undefined) items.remove(index);
      continue;
    }
    if (index !== undefined) {
      const existing = items.at(index);
      const merged = mergeMap(strategies, isJsonObject(existing) ? existing : {}, element, path);
      if (merged === undefined) items.remove(index);
      else items.replace(index, merged);
    } else {
      const created = mergeMap(strategies, {}, element, path);
      if (created !== undefined) items.push(created);
    }
  }
  const kept = patch.filter((element) => !(isJsonObject(element) && element['$patch'] === 'delete'));
  return normalizeElementOrder(items.list(), kept, Array.isArray(original) ? original : [], mergeKey);
}

/** A JSON value as text that is the same for values {@link jsonEqual} calls equal (object keys sorted): a map key. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isJsonObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/**
 * The items of a list merged by `mergeKey`, found by key in constant time: removals leave holes
 * (compacted by {@link KeyedItems.list}), so positions stay valid; as a scan from the front
 * would, a key finds the first item that still has it.
 */
class KeyedItems {
  readonly #items: unknown[];
  readonly #removed = new Set<number>();
  readonly #positions = new Map<string, number[]>();
  readonly #mergeKey: string;

  constructor(items: unknown[], mergeKey: string) {
    this.#items = items;
    this.#mergeKey = mergeKey;
    items.forEach((item, index) => this.#index(item, index));
  }

  #index(item: unknown, index: number): void {
    if (!isJsonObject(item)) return;
    const key = canonicalJson(item[this.#mergeKey]);
    const positions = this.#positions.get(key);
    if (positions === undefined) this.#positions.set(key, [index]);
    else positions.push(index);
  }

  /** The position of the first item whose merge key is `key`. */
  first(key: unknown): number | undefined {
    return this.#positions.get(canonicalJson(key))?.[0];
  }

  at(index: number): unknown {
    return this.#items[index];
  }

  replace(index: number, item: JsonObject): void {
    this.#items[index] = item;
  }

  remove(index: number): void {
    const item = this.#items[index];
    this.#removed.add(index);
    if (!isJsonObject(item)) return;
    const positions = this.#positions.get(canonicalJson(item[this.#mergeKey]));
    positions?.splice(positions.indexOf(index), 1);
  }

  push(item: JsonObject): void {
    this.#items.push(item);
    this.#index(item, this.#items.length - 1);
  }

  list(): unknown[] {
    return this.#items.filter((_, index) => !this.#removed.has(index));
  }
}

function applyOrder(strategies: PatchStrategyTable, list: unknown[], order: unknown[], original: unknown, path: string): unknown[] {
  return normalizeElementOrder(list, order, Array.isArray(original) ? original : [], listStrategy(strategies, path)?.mergeKey);
}

/**
 * The order Kubernetes gives a merged list: the items the patch (or a `$setElementOrder`) names,
 * in that order, interleaved with the items only the server had, in their original order; a
 * server-only item goes before a named one only when both were in the original list and it came
 * first there. So items new in the patch come before the server's remaining ones.
 */
function normalizeElementOrder(merged: readonly unknown[], order: readonly unknown[], original: readonly unknown[], mergeKey: string | undefined): unknown[] {
  const identity = (item: unknown): string => canonicalJson(mergeKey !== undefined && isJsonObject(item) ? item[mergeKey] : item);
  /** Each identity's first position in `list`, as a scan from the front would find it. */
  const positionsIn = (list: readonly unknown[]): Map<string, number> => {
    const positions = new Map<string, number>();
    list.forEach((item, index) => {
      const key = identity(item);
      if (!positions.has(key)) positions.set(key, index);
    });
    return positions;
  };
  const inOrder = positionsIn(order);
  const inOriginal = positionsIn(original);
  const keyed = merged.map((item) => ({ item, key: identity(item) }));
  const named = keyed.filter(({ key }) => inOrder.has(key)).sort((a, b) => (inOrder.get(a.key) as number) - (inOrder.get(b.key) as number));
  const serverOnly = keyed.filter(({ key }) => !inOrder.has(key));
  const result: unknown[] = [];
  let left = 0;
  let right = 0;
  while (left < serverOnly.length || right < named.length) {
    const server = serverOnly[left];
    const patched = named[right];
    if (patched === undefined) {
      result.push(server?.item);
      left += 1;
    } else if (server === undefined) {
      result.push(patched.item);
      right += 1;
    } else {
      const serverAt = inOriginal.get(server.key);
      const patchedAt = inOriginal.get(patched.key);
      if (serverAt !== undefined && patchedAt !== undefined && serverAt < patchedAt) {
        result.push(server.item);
        left += 1;
      } else {
        result.push(patched.item);
        right += 1;
      }
    }
  }
  return result;
}
