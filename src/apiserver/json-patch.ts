import { ApiError, badRequest } from './api-error.js';
import { MAX_BODY_NESTING_DEPTH } from './body-limits.js';
import { isJsonObject } from './kind-strategy.js';
import { utf8Bytes } from './json-size.js';

/**
 * RFC 6902 JSON patch, applied within the limits a Kubernetes API server keeps, so that a small
 * patch cannot grow an object without bound (issue 19 §1): at most
 * {@link MAX_JSON_PATCH_OPERATIONS} operations (kube-apiserver's `maxJSONPatchOperations`), and
 * at most {@link MAX_JSON_PATCH_ADDED_BYTES} added by the values of `add`, `replace` and `copy`
 * together, counted while applying and refused at the operation that passes the bound (the
 * apiserver sets evanphx/json-patch's `AccumulatedCopySizeLimit` to 3 MiB for copies; values
 * of add and replace come from the body, so counting them too costs nothing a valid patch needs),
 * and at most {@link MAX_JSON_PATCH_LIST_SHIFTS} list items shifted by inserts and removals.
 * Each operation works in place on one copy of the document: no operation clones the document
 * (fast-json-patch's validation cloned it for every `copy` and `move`), and every walk is
 * iterative, since copies can nest a value one level deeper per operation.
 */

/** The most operations one JSON patch may have: 10,000, as kube-apiserver (413 beyond). */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/**
 * The most bytes (as JSON) the values of one patch's `add`, `replace` and `copy` operations may
 * add together: 3 MiB, kube-apiserver's `JSONPatchMaxCopyBytes` (twice etcd's request limit).
 */
export const MAX_JSON_PATCH_ADDED_BYTES = 3 * 1024 * 1024;

/**
 * The most list items one patch's inserts and removals may shift along: 32 million. Not a
 * kube-apiserver limit: Go serves other requests on other threads meanwhile, this server's event
 * loop waits. 10,000 removals at the head of a list of 375,000 items (1.5 MiB of one-letter
 * strings) shift 3.7 billion items, about 10 s of a loaded CPU; this budget is about a tenth of a
 * second, and a patch within it can still insert or remove thousands of items of a list of
 * thousands.
 */
export const MAX_JSON_PATCH_LIST_SHIFTS = 32 * 1024 * 1024;

type Container = Record<string, unknown> | unknown[];

/** One operation that cannot apply: answered 422, as kube-apiserver answers evanphx/json-patch's errors. */
function cannotApply(index: number, message: string): ApiError {
  return new ApiError('Invalid', `the server rejected our request due to an error in our request: operation ${index} of the JSON patch: ${message}`);
}

/** The reference tokens of a JSON pointer (`~1` is `/`, `~0` is `~`); `''` is the whole document. */
function tokensOf(pointer: string, index: number, field: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw cannotApply(index, `${field} ${JSON.stringify(pointer)} is not a JSON pointer: it must be empty or start with "/"`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      const unescaped = token.replace(/~1/g, '/').replace(/~0/g, '~');
      // Prototype keys never name data: a plain object's `__proto__` is its prototype.
      if (unescaped === '__proto__') throw cannotApply(index, `${field} ${JSON.stringify(pointer)} names "__proto__", which no Kubernetes object has`);
      return unescaped;
    });
}

/** The array index `token` names in `array` (`-` is one past the end), or undefined when it names none. */
function arrayIndex(array: readonly unknown[], token: string, forAdd: boolean): number | undefined {
  if (forAdd && token === '-') return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
  const position = Number(token);
  return position < array.length || (forAdd && position === array.length) ? position : undefined;
}

/** The value at `tokens` in `document`, or undefined when the path names nothing. */
function valueAt(document: unknown, tokens: readonly string[]): unknown {
  let node = document;
  for (const token of tokens) {
    if (Array.isArray(node)) {
      const position = arrayIndex(node, token, false);
      if (position === undefined) return undefined;
      node = node[position];
    } else if (isJsonObject(node) && Object.hasOwn(node, token)) {
      node = node[token];
    } else {
      return undefined;
    }
  }
  return node;
}

/** The container that holds the last token of a non-empty path, or undefined when it does not exist. */
function parentOf(document: unknown, tokens: readonly string[]): Container | undefined {
  const parent = valueAt(document, tokens.slice(0, -1));
  return Array.isArray(parent) || isJsonObject(parent) ? parent : undefined;
}

/** Structural equality of two JSON values (iterative: a document may nest deep). */
function jsonEqual(left: unknown, right: unknown): boolean {
  const pending: [unknown, unknown][] = [[left, right]];
  for (let pair = pending.pop(); pair !== undefined; pair = pending.pop()) {
    const [a, b] = pair;
    if (a === b) continue;
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) return false;
      a.forEach((item, position) => pending.push([item, b[position]]));
    } else if (isJsonObject(a) && isJsonObject(b)) {
      const keys = Object.keys(a);
      if (keys.length !== Object.keys(b).length) return false;
      for (const key of keys) {
        if (!Object.hasOwn(b, key)) return false;
        pending.push([a[key], b[key]]);
      }
    } else {
      return false;
    }
  }
  return true;
}

/** One checked operation: its kind, its path's tokens and the rest of what it names. */
interface Operation {
  op: string;
  path: string;
  tokens: string[];
  raw: Record<string, unknown>;
}

/** Reads the patch's operations: 400 when it is not a list of objects with `op` and `path`, 413 past the count limit. */
function operationsOf(patch: unknown): Record<string, unknown>[] {
  if (!Array.isArray(patch)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new ApiError('RequestEntityTooLarge', `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
  }
  for (const [index, operation] of patch.entries()) {
    if (!isJsonObject(operation) || typeof operation['op'] !== 'string' || typeof operation['path'] !== 'string') {
      throw badRequest(`invalid JSON patch operation at index ${index}: each operation needs "op" and "path"`);
    }
  }
  return patch as Record<string, unknown>[];
}

/** Applies JSON patches to one document, counting what they add. */
class JsonPatchRun {
  document: unknown;
  #added = 0;
  #shifted = 0;

  constructor(document: unknown) {
    this.document = document;
  }

  /**
   * Counts `json` (a value's serialisation) towards {@link MAX_JSON_PATCH_ADDED_BYTES}; throws once
   * the total passes it. The value is within what the document and the body already hold, so
   * serialising it to measure is bounded by the limits themselves.
   */
  #count(index: number, operation: Operation, json: string): void {
    this.#added += utf8Bytes(json);
    if (this.#added <= MAX_JSON_PATCH_ADDED_BYTES) return;
    const what = operation.op === 'copy' ? `copying ${JSON.stringify(operation.raw['from'])} to ${JSON.stringify(operation.path)}` : `the value of this ${operation.op} at ${JSON.stringify(operation.path)}`;
    throw cannotApply(
      index,
      `${what} brings the bytes the patch adds to ${this.#added}, past the limit of ${MAX_JSON_PATCH_ADDED_BYTES} bytes (3 MiB): the values of a patch's add, replace and copy operations may add at most that much together; send a smaller patch, or fewer or smaller copies`,
    );
  }

  /** Counts `items` list items shifted by an insert or a removal; throws once the total passes {@link MAX_JSON_PATCH_LIST_SHIFTS}. */
  #shift(index: number, items: number): void {
    this.#shifted += items;
    if (this.#shifted <= MAX_JSON_PATCH_LIST_SHIFTS) return;
    throw cannotApply(
      index,
      `the patch's inserts into and removals from lists shift more than ${MAX_JSON_PATCH_LIST_SHIFTS} list items in all, the limit of this server; replace the list instead, or split the patch`,
    );
  }

  #add(index: number, tokens: readonly string[], value: unknown): void {
    if (tokens.length === 0) {
      this.document = value;
      return;
    }
    const parent = parentOf(this.document, tokens);
    const last = tokens[tokens.length - 1] as string;
    if (Array.isArray(parent)) {
      const position = arrayIndex(parent, last, true);
      if (position === undefined) throw cannotApply(index, `the array index ${JSON.stringify(last)} is out of range (the array has ${parent.length} items)`);
      this.#shift(index, parent.length - position);
      parent.splice(position, 0, value);
    } else if (parent !== undefined) {
      parent[last] = value;
    } else {
      throw cannotApply(index, `the path's parent /${tokens.slice(0, -1).join('/')} does not exist`);
    }
  }

  /** Removes and returns the value at `tokens` (a non-empty path that exists). */
  #remove(index: number, tokens: readonly string[], path: string): unknown {
    if (tokens.length === 0) throw cannotApply(index, 'the whole document cannot be removed');
    const parent = parentOf(this.document, tokens);
    const last = tokens[tokens.length - 1] as string;
    if (Array.isArray(parent)) {
      const position = arrayIndex(parent, last, false);
      if (position !== undefined) {
        this.#shift(index, parent.length - position - 1);
        return parent.splice(position, 1)[0];
      }
    } else if (parent !== undefined && Object.hasOwn(parent, last)) {
      const removed = parent[last];
      delete parent[last];
      return removed;
    }
    throw cannotApply(index, `the path ${JSON.stringify(path)} does not exist`);
  }

  #existing(index: number, tokens: readonly string[], pointer: string): unknown {
    const value = valueAt(this.document, tokens);
    if (value === undefined) throw cannotApply(index, `the path ${JSON.stringify(pointer)} does not exist`);
    return value;
  }

  #value(index: number, operation: Operation): unknown {
    if (!Object.hasOwn(operation.raw, 'value')) throw cannotApply(index, `the ${operation.op} operation has no "value"`);
    return operation.raw['value'];
  }

  #from(index: number, operation: Operation): { pointer: string; tokens: string[] } {
    const pointer = operation.raw['from'];
    if (typeof pointer !== 'string') throw cannotApply(index, `the ${operation.op} operation has no "from"`);
    return { pointer, tokens: tokensOf(pointer, index, 'from') };
  }

  apply(index: number, operation: Operation): void {
    const { tokens } = operation;
    switch (operation.op) {
      case 'add': {
        const value = this.#value(index, operation);
        this.#count(index, operation, JSON.stringify(value));
        this.#add(index, tokens, value);
        return;
      }
      case 'remove':
        this.#remove(index, tokens, operation.path);
        return;
      case 'replace': {
        const value = this.#value(index, operation);
        this.#existing(index, tokens, operation.path);
        this.#count(index, operation, JSON.stringify(value));
        if (tokens.length === 0) {
          this.document = value;
          return;
        }
        // The path exists, so its parent is a container and its last token names an item of it.
        const parent = parentOf(this.document, tokens) as Container;
        const last = tokens[tokens.length - 1] as string;
        if (Array.isArray(parent)) parent[Number(last)] = value;
        else parent[last] = value;
        return;
      }
      case 'move': {
        const from = this.#from(index, operation);
        const inside = tokens.length > from.tokens.length && from.tokens.every((token, position) => tokens[position] === token);
        if (inside) throw cannotApply(index, `${JSON.stringify(operation.path)} is inside ${JSON.stringify(from.pointer)}: a value cannot move into itself`);
        this.#existing(index, from.tokens, from.pointer);
        if (from.tokens.length === 0) return; // moving the document onto itself (a path inside it was refused above)
        const value = this.#remove(index, from.tokens, from.pointer);
        this.#add(index, tokens, value);
        return;
      }
      case 'copy': {
        const from = this.#from(index, operation);
        // Measured and copied through one serialisation (native, and far faster than structuredClone);
        // counted before the copy is built, so a copy past the limit never is.
        const json = JSON.stringify(this.#existing(index, from.tokens, from.pointer));
        this.#count(index, operation, json);
        this.#add(index, tokens, JSON.parse(json));
        return;
      }
      case 'test': {
        const expected = this.#value(index, operation);
        const actual = valueAt(this.document, tokens);
        if (actual === undefined || !jsonEqual(actual, expected)) throw cannotApply(index, `testing the value at ${JSON.stringify(operation.path)} failed`);
        return;
      }
      default:
        throw cannotApply(index, `unknown operation ${JSON.stringify(operation.op)}: it must be add, remove, replace, move, copy or test`);
    }
  }
}

/**
 * Applies the JSON patch `patch` to a copy of `original` and returns the result; `original` is not
 * mutated. A patch that is not a list of operations with `op` and `path` is answered 400, one
 * with more than {@link MAX_JSON_PATCH_OPERATIONS} operations 413, an operation that cannot apply
 * (a missing path, a failed `test`) or that brings the bytes added past
 * {@link MAX_JSON_PATCH_ADDED_BYTES} 422. Time and memory are linear in the document, the patch
 * and the limit.
 */
export function applyJsonPatch(original: Record<string, unknown>, patch: unknown): unknown {
  const operations = operationsOf(patch);
  const run = new JsonPatchRun(JSON.parse(JSON.stringify(original)));
  let index = 0;
  try {
    for (const raw of operations) {
      const path = raw['path'] as string;
      run.apply(index, { op: raw['op'] as string, path, tokens: tokensOf(path, index, 'path'), raw });
      index += 1;
    }
  } catch (error: unknown) {
    // Copies can nest a value inside itself one level per operation, until serialising it overflows the stack.
    if (error instanceof RangeError) throw cannotApply(index, `the document nests too deep to copy or measure (${error.message}); the limit is ${MAX_BODY_NESTING_DEPTH} levels`);
    throw error;
  }
  return run.document;
}
