import { isJsonObject, jsonEqual } from '../apimachinery/index.js';
import { formatPatchPath, type CompiledPath, type PathSegment } from './patch-path.js';

/**
 * Matching compiled paths against plain JSON objects, on the host side of the sandbox (reference
 * and label patches, reverse write-back). The sandbox runtime carries its own copy of these rules
 * (it cannot import host code); tests run one table against both.
 *
 * Rules ("if the path is not found in the object, the patch is not applied"):
 * - a key segment matches an own property of a (non-array) object; an index segment an existing
 *   element of an array; a wildcard every element of an array or every own key of an object, in
 *   order;
 * - anything else (a missing key, the last one included, an index out of range, a key on an
 *   array, any step into a primitive) ends that branch: a location matches only when every
 *   segment of the path exists there, so a forward patch never creates the field its path names
 *   (a reverse patch writes back only where the path exists in the host object).
 */

/** A concrete location: map keys as strings, array indexes as numbers. */
export type ConcretePath = readonly (string | number)[];

/** One location a compiled path matched: it always holds a value. */
export interface PathMatch {
  /** The concrete location, e.g. `['subsets', 0, 'addresses', 2, 'ip']`. */
  readonly path: ConcretePath;
  /** The value there. */
  readonly value: unknown;
}

/** Every location of `root` that `path` matches, in document order. Never throws. */
export function matchPath(root: unknown, path: CompiledPath): PathMatch[] {
  const matches: PathMatch[] = [];
  walk(root, path, 0, [], matches);
  return matches;
}

// `at` is one array pushed and popped along the walk; each match gets a copy.
function walk(node: unknown, path: CompiledPath, depth: number, at: (string | number)[], out: PathMatch[]): void {
  const segment = path[depth];
  if (segment === undefined) {
    out.push({ path: at.slice(), value: node });
    return;
  }
  if (segment.kind === 'wildcard') {
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index += 1) {
        at.push(index);
        walk(node[index], path, depth + 1, at, out);
        at.pop();
      }
    } else if (isJsonObject(node)) {
      for (const key of Object.keys(node)) {
        at.push(key);
        walk(node[key], path, depth + 1, at, out);
        at.pop();
      }
    }
    return;
  }
  let step: string | number;
  if (segment.kind === 'index') {
    if (!Array.isArray(node) || segment.index >= node.length) return;
    step = segment.index;
  } else {
    if (!isJsonObject(node) || !Object.hasOwn(node, segment.key)) return;
    step = segment.key;
  }
  at.push(step);
  walk((node as Record<string | number, unknown>)[step], path, depth + 1, at, out);
  at.pop();
}

/** Reads one concrete location. */
export function getAtPath(root: unknown, path: ConcretePath): { exists: boolean; value: unknown } {
  let node: unknown = root;
  for (const step of path) {
    if (typeof step === 'number') {
      if (!Array.isArray(node) || step >= node.length) return { exists: false, value: undefined };
      node = node[step];
    } else {
      if (!isJsonObject(node) || !Object.hasOwn(node, step)) return { exists: false, value: undefined };
      node = node[step];
    }
  }
  return { exists: true, value: node };
}

/**
 * Writes `value` at a concrete location of a mutable `root`, creating missing intermediate maps
 * for key steps. Returns false (and writes nothing) when a step needs an array element that does
 * not exist or crosses a primitive.
 */
export function setAtPath(root: unknown, path: ConcretePath, value: unknown): boolean {
  if (path.length === 0) return false;
  let node: unknown = root;
  for (let depth = 0; depth < path.length - 1; depth += 1) {
    const step = path[depth];
    const next = path[depth + 1];
    if (step === undefined) return false;
    if (typeof step === 'number') {
      if (!Array.isArray(node) || step >= node.length) return false;
      node = node[step];
    } else {
      if (!isJsonObject(node)) return false;
      if (!Object.hasOwn(node, step)) {
        if (typeof next === 'number') return false;
        defineValue(node, step, {});
      }
      node = node[step];
    }
  }
  const leaf = path[path.length - 1];
  if (typeof leaf === 'number') {
    if (!Array.isArray(node) || leaf >= node.length) return false;
    node[leaf] = value;
    return true;
  }
  if (leaf === undefined || !isJsonObject(node)) return false;
  defineValue(node, leaf, value);
  return true;
}

/** Renders a concrete location in the path syntax, e.g. `metadata.annotations["a.b/c"]`. */
export function formatConcretePath(path: ConcretePath): string {
  return formatPatchPath(
    path.map((step): PathSegment => (typeof step === 'number' ? { kind: 'index', index: step } : { kind: 'key', key: step })),
  );
}

/**
 * True when `root` holds a value equal to `value` at `path`; false when `root` is null/undefined
 * or has nothing there. Reverse patches use it against the last synced host object: a location
 * that still holds what was last synced is not a host-side change.
 */
export function holdsSameValue(root: unknown, path: ConcretePath, value: unknown): boolean {
  if (root === null || root === undefined) return false;
  const previous = getAtPath(root, path);
  return previous.exists && jsonEqual(previous.value, value);
}


/**
 * Sets an own enumerable data property. Assignment would invoke the `__proto__` setter for a key
 * named "__proto__"; defining the property keeps such keys plain data, as JSON.parse does.
 */
export function defineValue(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
