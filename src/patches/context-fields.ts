import { parseExpressionAt, type Node } from 'acorn';
import { PARSE_OPTIONS } from './expression-check.js';

/** The parts of `context` that are per object (`context.vcluster` is loaded once per plan). */
export type ContextField = 'hostObject' | 'virtualObject' | 'path';

/** Which per-object parts of `context` an expression (or a set of them) can read. */
export type ContextReads = Readonly<Record<ContextField, boolean>>;

/** Every part: what an expression that uses `context` in a way the analysis cannot follow gets. */
export const ALL_CONTEXT: ContextReads = Object.freeze({ hostObject: true, virtualObject: true, path: true });
const NO_CONTEXT: ContextReads = Object.freeze({ hostObject: false, virtualObject: false, path: false });

const FIELDS = new Set<string>(['hostObject', 'virtualObject', 'path']);

type AnyNode = Node & Record<string, unknown>;

/**
 * Finds, at compile time, which of `context.hostObject`, `context.virtualObject` and
 * `context.path` an expression reads, so that only those cross into the sandbox per object.
 * Correctness first: any use of `context` other than a static member read of a known field
 * (`context.x`, `context?.x`, `context["x"]`; `context.vcluster` needs nothing) - passing it whole,
 * destructuring it, a computed member, any other member (`context.valueOf()` returns it whole) -
 * and any use of `arguments` (which reaches `context` too) reads everything. A name `context`
 * bound inside the expression is treated as the parameter (at worst more is sent). An expression
 * that does not parse reads everything (compilePatches rejects it anyway).
 */
export function contextReads(expression: string): ContextReads {
  let root: Node;
  try {
    root = parseExpressionAt(expression, 0, PARSE_OPTIONS);
  } catch {
    return ALL_CONTEXT;
  }
  const read = { hostObject: false, virtualObject: false, path: false };
  let everything = false;
  const visit = (node: AnyNode, parent: AnyNode | undefined, key: string): void => {
    if (everything) return;
    if (node.type === 'Identifier') {
      const name = node['name'];
      if (name === 'arguments') everything = true;
      else if (name === 'context' && (parent === undefined || isReference(parent, key))) {
        const field = parent === undefined ? undefined : memberRead(parent, key);
        if (field === undefined) everything = true;
        else if (FIELDS.has(field)) read[field as ContextField] = true;
      }
      return;
    }
    for (const [childKey, value] of Object.entries(node)) {
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) visit(item, node, childKey);
      } else if (isNode(value)) {
        visit(value, node, childKey);
      }
    }
  };
  visit(root as AnyNode, undefined, '');
  return everything ? ALL_CONTEXT : Object.freeze(read);
}

/** The union of what each expression reads. */
export function unionReads(list: readonly ContextReads[]): ContextReads {
  return list.reduce<ContextReads>(
    (all, one) => Object.freeze({
      hostObject: all.hostObject || one.hostObject,
      virtualObject: all.virtualObject || one.virtualObject,
      path: all.path || one.path,
    }),
    NO_CONTEXT,
  );
}

// Whether the identifier at parent[key] is a variable reference, not a property name or key.
function isReference(parent: AnyNode, key: string): boolean {
  if (parent.type === 'MemberExpression' && key === 'property') return parent['computed'] === true;
  if ((parent.type === 'Property' || parent.type === 'MethodDefinition' || parent.type === 'PropertyDefinition') && key === 'key') {
    // `{ context }` is shorthand for `{ context: context }`: a reference.
    return parent['computed'] === true || parent['shorthand'] === true;
  }
  return true;
}

// The field of `context.<field>` / `context["<field>"]` when the reference is the object of a
// static member read; undefined for any other use.
function memberRead(parent: AnyNode, key: string): string | undefined {
  if (parent.type !== 'MemberExpression' || key !== 'object') return undefined;
  const property = parent['property'] as AnyNode;
  let field: unknown;
  if (parent['computed'] !== true) field = property['name'];
  else if (property.type === 'Literal') field = property['value'];
  return typeof field === 'string' && (FIELDS.has(field) || field === 'vcluster') ? field : undefined;
}

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
