import type { SchemaObject } from './schema-object.js';
import { isJsonObject } from '../apimachinery/index.js';

/**
 * A kind's OpenAPI v3 schema: the name of its component and the components its `$ref`s
 * (`#/components/schemas/<name>`) resolve in. Several kinds may share one `components` object.
 */
export interface KindSchema {
  readonly name: string;
  readonly components: Readonly<Record<string, SchemaObject>>;
}

/**
 * The schema extension that makes an object and everything below it refuse the fields it does not
 * know instead of dropping them: for values whose meaning would change if a part the server does
 * not understand were dropped (an access key's scope, where dropping a restriction widens it).
 */
export const REFUSE_UNKNOWN_FIELDS = 'x-vcsync-refuse-unknown-fields';

/** What one walk over a written object found (see {@link pruneObject}). */
export interface PruneOutcome {
  /** Paths of the fields the schema does not know, in document order, e.g. `spec.ports[0].bogus`. */
  readonly unknown: string[];
  /**
   * Paths of the unknown fields under a {@link REFUSE_UNKNOWN_FIELDS} object, in document order,
   * each with the fields its object knows; they are left in place (the write is to be refused).
   */
  readonly refused: { path: string; known: string[] }[];
}

/** A schema compiled for walking: `$ref` and single-`allOf` wrappers resolved, one shape per node. */
type Node =
  | { readonly shape: 'struct'; readonly properties: ReadonlyMap<string, Node>; readonly required: ReadonlySet<string>; readonly refusesUnknown: boolean }
  | { readonly shape: 'list'; items: Node }
  | { readonly shape: 'map'; values: Node }
  /** Kept as sent: scalars, int-or-string, `x-kubernetes-preserve-unknown-fields`, objects without properties. */
  | { readonly shape: 'free' };

const FREE: Node = { shape: 'free' };
const REF_PREFIX = '#/components/schemas/';

/** Compiled nodes by component name, per components object (the devcluster's kinds share one). */
const compiledComponents = new WeakMap<object, Map<string, Node>>();

/** The component a schema stands for when it is only a `$ref`, or an `allOf` of one `$ref` (how v3 adds a description). */
function referenceOf(schema: SchemaObject): string | undefined {
  const ref = schema['$ref'];
  if (typeof ref === 'string') return ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : undefined;
  const allOf = schema['allOf'];
  if (Array.isArray(allOf) && allOf.length === 1 && isJsonObject(allOf[0])) return referenceOf(allOf[0]);
  return undefined;
}

function compile(schema: SchemaObject, components: Readonly<Record<string, SchemaObject>>, named: Map<string, Node>): Node {
  const name = referenceOf(schema);
  if (name !== undefined) return compileNamed(name, components, named);
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) return FREE;
  if (schema['type'] === 'array') {
    const node: { shape: 'list'; items: Node } = { shape: 'list', items: FREE };
    if (isJsonObject(schema['items'])) node.items = compile(schema['items'], components, named);
    return node;
  }
  const properties = schema['properties'];
  if (isJsonObject(properties)) {
    const compiled = new Map<string, Node>();
    for (const [field, property] of Object.entries(properties)) compiled.set(field, isJsonObject(property) ? compile(property, components, named) : FREE);
    const required = Array.isArray(schema['required']) ? schema['required'].filter((field): field is string => typeof field === 'string') : [];
    return { shape: 'struct', properties: compiled, required: new Set(required), refusesUnknown: schema[REFUSE_UNKNOWN_FIELDS] === true };
  }
  const additional = schema['additionalProperties'];
  if (isJsonObject(additional)) return { shape: 'map', values: compile(additional, components, named) };
  return FREE;
}

function compileNamed(name: string, components: Readonly<Record<string, SchemaObject>>, named: Map<string, Node>): Node {
  const known = named.get(name);
  if (known !== undefined) return known;
  const schema = components[name];
  if (schema === undefined) return FREE;
  // A placeholder first, so that recursive schemas end; filled in below.
  const placeholder = { shape: 'list', items: FREE } as { shape: string };
  named.set(name, placeholder as Node);
  const node = compile(schema, components, named);
  Object.assign(placeholder, node);
  return placeholder as Node;
}

/** The compiled root of `schema`, compiled once per components object and name. */
function rootOf(schema: KindSchema): Node {
  let named = compiledComponents.get(schema.components);
  if (named === undefined) {
    named = new Map();
    compiledComponents.set(schema.components, named);
  }
  return compileNamed(schema.name, schema.components, named);
}

function isEmptyCollection(node: Node, value: unknown): boolean {
  if (node.shape === 'list') return Array.isArray(value) && value.length === 0;
  if (node.shape === 'map') return isJsonObject(value) && Object.keys(value).length === 0;
  return false;
}

/** What a walk collects, and whether it is below an object that refuses unknown fields. */
interface Walk {
  readonly found: PruneOutcome;
  readonly refusing: boolean;
}

function walk(node: Node, value: unknown, path: string, state: Walk): void {
  switch (node.shape) {
    case 'struct': {
      if (!isJsonObject(value)) return;
      const inner: Walk = node.refusesUnknown && !state.refusing ? { ...state, refusing: true } : state;
      for (const field of Object.keys(value)) {
        const property = node.properties.get(field);
        const at = path === '' ? field : `${path}.${field}`;
        if (property === undefined) {
          if (inner.refusing) {
            inner.found.refused.push({ path: at, known: [...node.properties.keys()] });
            continue;
          }
          state.found.unknown.push(at);
          delete value[field];
          continue;
        }
        const child = value[field];
        const required = node.required.has(field);
        // What the real server stores comes back through Go's encoding: a nil or empty optional
        // list or map is omitted, a required one (no omitempty) is written as null.
        if (child === null) {
          if (!required) delete value[field];
          continue;
        }
        walk(property, child, at, inner);
        if (isEmptyCollection(property, child)) {
          if (required) value[field] = null;
          else delete value[field];
        }
      }
      return;
    }
    case 'list':
      if (!Array.isArray(value) || node.items.shape === 'free') return;
      for (let index = 0; index < value.length; index += 1) walk(node.items, value[index], `${path}[${index}]`, state);
      return;
    case 'map':
      if (!isJsonObject(value) || node.values.shape === 'free') return;
      for (const [key, item] of Object.entries(value)) walk(node.values, item, `${path}.${key}`, state);
      return;
    case 'free':
      return;
  }
}

/**
 * Prunes `object` (changed in place) in one walk over its schema, as the real server's decoding
 * and storage do: drops the fields the schema does not know, at every depth, and reporting their
 * paths; drops null and empty optional lists and maps (`labels: {}`, `finalizers: []`) and turns
 * empty required ones into null, as Go's encoding of the stored object does. Below an object
 * marked {@link REFUSE_UNKNOWN_FIELDS}, unknown fields are reported as `refused` and kept.
 */
export function pruneObject(schema: KindSchema, object: Record<string, unknown>): PruneOutcome {
  const found: PruneOutcome = { unknown: [], refused: [] };
  walk(rootOf(schema), object, '', { found, refusing: false });
  return found;
}

/**
 * The top-level fields of a kind that are structs in its schema (`spec`, `status`, …; not
 * metadata): a new Go object of the kind has them, empty. None for a kind without a schema.
 */
export function structFieldsOf(schema: KindSchema | undefined): string[] {
  if (schema === undefined) return [];
  const root = rootOf(schema);
  if (root.shape !== 'struct') return [];
  return [...root.properties].filter(([field, node]) => field !== 'metadata' && node.shape === 'struct').map(([field]) => field);
}
