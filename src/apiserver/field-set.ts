/**
 * Sets of field paths, the unit of field ownership (`metadata.managedFields`): a path is its
 * FieldsV1 elements (`f:<field>`, `k:<list-map key>`, `v:<set value>`, `i:<index>`) joined by
 * {@link SEPARATOR}. Set algebra, the FieldsV1 encoding, and paths as Kubernetes prints them. Pure.
 */
import { isJsonObject, type JsonObject } from '../apimachinery/index.js';

/** Joins the FieldsV1 elements of one path. Cannot occur in a field name, a key or a value of JSON text. */
const SEPARATOR = '\u0000';

/** A set of field paths (elements joined by {@link SEPARATOR}). */
export type FieldSet = Set<string>;

/** The path of `element` below `path` ('' is the root). */
export function childPath(path: string, element: string): string {
  return path === '' ? element : `${path}${SEPARATOR}${element}`;
}

/** `a ∪ b` as a new set. */
export function union(a: ReadonlySet<string>, b: ReadonlySet<string>): FieldSet {
  const out = new Set(a);
  for (const path of b) out.add(path);
  return out;
}

/** `a − b` as a new set. */
export function difference(a: ReadonlySet<string>, b: ReadonlySet<string>): FieldSet {
  const out: FieldSet = new Set();
  for (const path of a) if (!b.has(path)) out.add(path);
  return out;
}

/** `a ∩ b` as a new set. */
export function intersection(a: ReadonlySet<string>, b: ReadonlySet<string>): FieldSet {
  const out: FieldSet = new Set();
  for (const path of a) if (b.has(path)) out.add(path);
  return out;
}

/** The FieldsV1 elements of a path. */
export function pathElements(path: string): string[] {
  return path === '' ? [] : path.split(SEPARATOR);
}

/** Joins FieldsV1 elements into a path. */
export function pathOf(elements: readonly string[]): string {
  return elements.join(SEPARATOR);
}

interface Node {
  member: boolean;
  children: Map<string, Node>;
}

function treeOf(set: ReadonlySet<string>): Node {
  const root: Node = { member: false, children: new Map() };
  for (const path of set) {
    let node = root;
    for (const element of pathElements(path)) {
      let next = node.children.get(element);
      if (next === undefined) {
        next = { member: false, children: new Map() };
        node.children.set(element, next);
      }
      node = next;
    }
    node.member = true;
  }
  return root;
}

const ELEMENT_RANK: Readonly<Record<string, number>> = { f: 0, k: 1, v: 2, i: 3 };

/** structured-merge-diff's order of path elements: fields, then keys, values, indices. */
function compareElements(a: string, b: string): number {
  const rank = (ELEMENT_RANK[a[0] ?? ''] ?? 4) - (ELEMENT_RANK[b[0] ?? ''] ?? 4);
  if (rank !== 0) return rank;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `set` as a FieldsV1 object: nested elements, `{}` for a member leaf, `".": {}` for a member with children. */
export function encodeFieldsV1(set: ReadonlySet<string>): JsonObject {
  const encode = (node: Node): JsonObject => {
    const out: JsonObject = {};
    if (node.member && node.children.size > 0) out['.'] = {};
    for (const element of [...node.children.keys()].sort()) out[element] = encode(node.children.get(element) as Node);
    return out;
  };
  return encode(treeOf(set));
}

/** The field set a FieldsV1 object encodes; throws a TypeError when it is not one. */
export function decodeFieldsV1(fields: unknown): FieldSet {
  const set: FieldSet = new Set();
  const walk = (node: unknown, path: string): void => {
    if (!isJsonObject(node)) throw new TypeError('a FieldsV1 node must be an object');
    const keys = Object.keys(node);
    if (keys.length === 0 && path !== '') set.add(path);
    for (const key of keys) {
      if (key === '.') {
        if (path !== '') set.add(path);
        continue;
      }
      if (!/^[fkvi]:/.test(key)) throw new TypeError(`unknown FieldsV1 element ${JSON.stringify(key)}`);
      walk(node[key], childPath(path, key));
    }
  };
  walk(fields, '');
  return set;
}

/**
 * The paths of `set` in structured-merge-diff's iteration order: at each level the members first,
 * then the children's paths, each group in element order.
 */
export function orderedPaths(set: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const walk = (node: Node, prefix: readonly string[]): void => {
    const elements = [...node.children.keys()].sort(compareElements);
    for (const element of elements) if (node.children.get(element)?.member === true) out.push(pathOf([...prefix, element]));
    for (const element of elements) {
      const child = node.children.get(element) as Node;
      if (child.children.size > 0) walk(child, [...prefix, element]);
    }
  };
  walk(treeOf(set), []);
  return out;
}

/** A path as Kubernetes prints it in conflicts: `.spec.ports[port=80,protocol="TCP"]`, `.metadata.finalizers[="a"]`. */
export function displayPath(path: string): string {
  return pathElements(path)
    .map((element) => {
      const body = element.slice(2);
      switch (element[0]) {
        case 'f':
          return `.${body}`;
        case 'k': {
          const key = JSON.parse(body) as JsonObject;
          return `[${Object.entries(key)
            .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
            .join(',')}]`;
        }
        case 'v':
          return `[=${body}]`;
        default:
          return `[${body}]`;
      }
    })
    .join('');
}
