import fastJsonPatch, { type Operation as PatchOperation } from 'fast-json-patch';
import { ApiError, badRequest, isJsonObject } from '../apimachinery/index.js';
import { MAX_BODY_NESTING_DEPTH } from './body-limits.js';
import { utf8Bytes } from './json-size.js';

/**
 * RFC 6902 JSON patch, applied by fast-json-patch within the limits a Kubernetes API server keeps,
 * so that a small patch cannot grow an object without bound. The library applies
 * each operation; this file checks every operation against the document before the library runs
 * it, since the library has no limits: at most {@link MAX_JSON_PATCH_OPERATIONS} operations
 * (kube-apiserver's `maxJSONPatchOperations`), at most {@link MAX_JSON_PATCH_ADDED_BYTES} added
 * by the values of `add`, `replace` and `copy` together, counted while applying and refused at the
 * operation that passes the bound (the apiserver sets evanphx/json-patch's
 * `AccumulatedCopySizeLimit` to 3 MiB for copies; values of add and replace come from the body,
 * so counting them too costs nothing a valid patch needs), and at most
 * {@link MAX_JSON_PATCH_LIST_SHIFTS} list items shifted by inserts and removals. The checks also
 * answer a missing path with its own message, so the library runs without its validation, which
 * cloned the whole document for every `copy` and `move`: the operations work in place on one copy.
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

/** One operation that cannot apply: answered 422, as kube-apiserver answers evanphx/json-patch's errors. */
function cannotApply(index: number, message: string): ApiError {
  return new ApiError('Invalid', `the server rejected our request due to an error in our request: operation ${index} of the JSON patch: ${message}`);
}

/** The reference tokens of a JSON pointer (`~1` is `/`, `~0` is `~`); `''` is the whole document. */
function tokensOf(pointer: string, index: number, field: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw cannotApply(index, `${field} ${JSON.stringify(pointer)} is not a JSON pointer: it must be empty or start with "/"`);
  const tokens = pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
  // Prototype keys never name data (a plain object's `__proto__` is its prototype); the library refuses them too, with a TypeError.
  if (tokens.some((token, position) => token === '__proto__' || (token === 'prototype' && tokens[position - 1] === 'constructor'))) {
    throw cannotApply(index, `${field} ${JSON.stringify(pointer)} names "__proto__" or "constructor/prototype", which no Kubernetes object has`);
  }
  return tokens;
}

/** The array index `token` names in `array` (`-` is one past the end), or undefined when it names none. */
function arrayIndex(array: readonly unknown[], token: string, forAdd: boolean): number | undefined {
  if (forAdd && token === '-') return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
  const position = Number(token);
  return position < array.length || (forAdd && position === array.length) ? position : undefined;
}

/** The value at `tokens` in `document` (own members only), or undefined when the path names nothing. */
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

/**
 * Applies one patch's operations to one document through fast-json-patch, checking each against
 * the document and the limits before the library runs it: the library, run without validation,
 * assumes a path it is given exists.
 */
class JsonPatchRun {
  document: unknown;
  #added = 0;
  #shifted = 0;

  constructor(document: unknown) {
    this.document = document;
  }

  /** Runs `operation` (checked) in place through the library; returns the value it removed, if any. */
  #run(index: number, operation: PatchOperation): unknown {
    const result = fastJsonPatch.applyOperation(this.document, operation, false, true, true, index);
    this.document = result.newDocument;
    return result.removed;
  }

  /**
   * Counts `json` (a value's serialisation) towards {@link MAX_JSON_PATCH_ADDED_BYTES}; throws once
   * the total passes it. The value is within what the document and the body already hold, so
   * serialising it to measure is bounded by the limits themselves.
   */
  #count(index: number, what: string, json: string): void {
    this.#added += utf8Bytes(json);
    if (this.#added <= MAX_JSON_PATCH_ADDED_BYTES) return;
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

  /** Checks that a value can be added at `tokens` (its parent exists, an index is in range) and counts the items the insert shifts. */
  #checkAdd(index: number, tokens: readonly string[]): void {
    if (tokens.length === 0) return;
    const parent = valueAt(this.document, tokens.slice(0, -1));
    const last = tokens[tokens.length - 1] as string;
    if (Array.isArray(parent)) {
      const position = arrayIndex(parent, last, true);
      if (position === undefined) throw cannotApply(index, `the array index ${JSON.stringify(last)} is out of range (the array has ${parent.length} items)`);
      this.#shift(index, parent.length - position);
    } else if (!isJsonObject(parent)) {
      throw cannotApply(index, `the path's parent /${tokens.slice(0, -1).join('/')} does not exist`);
    }
  }

  /** The value at `tokens` (the pointer `pointer`); throws when there is none. */
  #existing(index: number, tokens: readonly string[], pointer: string): unknown {
    const value = valueAt(this.document, tokens);
    if (value === undefined) throw cannotApply(index, `the path ${JSON.stringify(pointer)} does not exist`);
    return value;
  }

  /** Checks that the value at `tokens` exists and is not the whole document, and counts the items its removal shifts. */
  #checkRemove(index: number, tokens: readonly string[], pointer: string): void {
    if (tokens.length === 0) throw cannotApply(index, 'the whole document cannot be removed');
    this.#existing(index, tokens, pointer);
    const parent = valueAt(this.document, tokens.slice(0, -1));
    if (Array.isArray(parent)) this.#shift(index, parent.length - Number(tokens[tokens.length - 1]) - 1);
  }

  apply(index: number, raw: Record<string, unknown>): void {
    const op = raw['op'] as string;
    const path = raw['path'] as string;
    const tokens = tokensOf(path, index, 'path');
    const value = (): unknown => {
      if (!Object.hasOwn(raw, 'value')) throw cannotApply(index, `the ${op} operation has no "value"`);
      return raw['value'];
    };
    const from = (): { pointer: string; tokens: string[] } => {
      const pointer = raw['from'];
      if (typeof pointer !== 'string') throw cannotApply(index, `the ${op} operation has no "from"`);
      return { pointer, tokens: tokensOf(pointer, index, 'from') };
    };
    switch (op) {
      case 'add':
      case 'replace': {
        const added = value();
        if (op === 'add') this.#checkAdd(index, tokens);
        else this.#existing(index, tokens, path);
        this.#count(index, `the value of this ${op} at ${JSON.stringify(path)}`, JSON.stringify(added));
        this.#run(index, { op, path, value: added });
        return;
      }
      case 'remove':
        this.#checkRemove(index, tokens, path);
        this.#run(index, { op, path });
        return;
      case 'move': {
        // A remove and an add, as RFC 6902 defines it (the library's own move clones the value it overwrites).
        const source = from();
        const inside = tokens.length > source.tokens.length && source.tokens.every((token, position) => tokens[position] === token);
        if (inside) throw cannotApply(index, `${JSON.stringify(path)} is inside ${JSON.stringify(source.pointer)}: a value cannot move into itself`);
        this.#existing(index, source.tokens, source.pointer);
        if (source.tokens.length === 0) return; // moving the document onto itself (a path inside it was refused above)
        this.#checkRemove(index, source.tokens, source.pointer);
        const moved = this.#run(index, { op: 'remove', path: source.pointer });
        this.#checkAdd(index, tokens);
        this.#run(index, { op: 'add', path, value: moved });
        return;
      }
      case 'copy': {
        // Measured and copied through one serialisation (the library's copy would serialise the value again),
        // counted before the copy is built, so a copy past the limit never is.
        const source = from();
        const json = JSON.stringify(this.#existing(index, source.tokens, source.pointer));
        this.#count(index, `copying ${JSON.stringify(source.pointer)} to ${JSON.stringify(path)}`, json);
        this.#checkAdd(index, tokens);
        this.#run(index, { op: 'add', path, value: JSON.parse(json) as unknown });
        return;
      }
      case 'test': {
        const expected = value();
        // The library walks the path unchecked, so a missing path fails here.
        if (valueAt(this.document, tokens) !== undefined) {
          try {
            this.#run(index, { op, path, value: expected });
            return;
          } catch (error: unknown) {
            if (!(error instanceof fastJsonPatch.JsonPatchError) || error.name !== 'TEST_OPERATION_FAILED') throw error;
          }
        }
        throw cannotApply(index, `testing the value at ${JSON.stringify(path)} failed`);
      }
      default:
        throw cannotApply(index, `unknown operation ${JSON.stringify(op)}: it must be add, remove, replace, move, copy or test`);
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
      run.apply(index, raw);
      index += 1;
    }
  } catch (error: unknown) {
    // Copies can nest a value inside itself one level per operation, until serialising or comparing it overflows the stack.
    if (error instanceof RangeError) throw cannotApply(index, `the document nests too deep to copy, measure or compare (${error.message}); the limit is ${MAX_BODY_NESTING_DEPTH} levels`);
    throw error;
  }
  return run.document;
}
