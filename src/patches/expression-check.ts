import { parseExpressionAt, type Node, type Options } from 'acorn';

/**
 * The authoring check of patch expressions: a text passes only if it is exactly one JavaScript
 * (ES2020 and later) expression, parsed as strict-mode script code, followed by nothing but
 * whitespace and comments. This check, not the way the sandbox invokes expressions, is what
 * guarantees that no statement, declaration or trailing code ever reaches the sandbox.
 */

/** Result of {@link checkExpression}; `line` and `column` are 1-based within the text. */
export type ExpressionCheckResult =
  | { readonly ok: true }
  | {
      readonly ok: false;
      /**
       * `syntax`: not a single expression; `forbidden`: parses, but uses `import()` or assigns to a
       * name every evaluation shares (a helper or a global, see {@link PER_EVALUATION_NAMES}).
       */
      readonly kind: 'syntax' | 'forbidden';
      readonly line: number;
      readonly column: number;
      readonly reason: string;
    };

/** Appended to syntax errors so the reader knows what is expected. */
export const EXPRESSION_HINT = 'an expression must be a single JavaScript expression such as value + "-suffix"';

/**
 * How expressions are parsed. Strict script code: the sandbox runs expressions inside a
 * strict-mode function of a classic script, so the check parses with the same grammar (HTML-like
 * comments included) and rejects what strict mode rejects (octal literals, `with`, reserved words).
 */
export const PARSE_OPTIONS: Options = {
  ecmaVersion: 'latest',
  sourceType: 'script',
  strict: true,
  allowHashBang: false,
  allowReturnOutsideFunction: false,
  allowImportExportEverywhere: false,
  allowAwaitOutsideFunction: false,
  locations: false,
  // Without this, `(a)` yields the inner node and its end, and the closing parenthesis would look
  // like trailing code.
  preserveParens: true,
};

/** Checks one expression text; never throws. */
export function checkExpression(text: string): ExpressionCheckResult {
  let node: Node;
  try {
    node = parseExpressionAt(text, 0, PARSE_OPTIONS);
  } catch (error: unknown) {
    const pos = error instanceof SyntaxError && typeof (error as { pos?: unknown }).pos === 'number'
      ? (error as unknown as { pos: number }).pos
      : 0;
    const message = error instanceof Error ? error.message.replace(/\s*\(\d+:\d+\)$/, '') : String(error);
    return failure('syntax', text, pos, `${message}; ${EXPRESSION_HINT}`);
  }
  const trailing = findTrailingCode(text, node.end);
  if (trailing !== undefined) {
    const what = text[trailing] === ';' ? 'Unexpected ";" (statements are not allowed)' : 'Unexpected code after the expression';
    return failure('syntax', text, trailing, `${what}; ${EXPRESSION_HINT}`);
  }
  const forbidden = findForbidden(node) ?? findSharedAssignment(node);
  if (forbidden !== undefined) {
    return failure('forbidden', text, forbidden.start, forbidden.reason);
  }
  return { ok: true };
}

function failure(kind: 'syntax' | 'forbidden', text: string, offset: number, reason: string): ExpressionCheckResult {
  const { line, column } = lineAndColumn(text, offset);
  return { ok: false, kind, line, column, reason };
}

/** 1-based line and column of a character offset (CR, LF, CRLF, U+2028 and U+2029 end lines). */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i += 1) {
    const char = text[i];
    if (char === '\r' && text[i + 1] === '\n') continue;
    if (char === '\n' || char === '\r' || char === '\u2028' || char === '\u2029') {
      line += 1;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Offset of the first character after `from` that is not whitespace or a `//` / `/* *\/`
 * comment, or undefined. Deliberately stricter than the language: HTML-like comments (`<!--`,
 * `-->`) after the expression count as code, so nothing the sandbox might read differently can
 * follow an accepted expression.
 */
function findTrailingCode(text: string, from: number): number | undefined {
  let pos = from;
  while (pos < text.length) {
    const char = text[pos] ?? '';
    if (/\s/.test(char)) {
      pos += 1;
    } else if (text.startsWith('//', pos)) {
      const end = text.slice(pos).search(/[\n\r\u2028\u2029]/);
      pos = end === -1 ? text.length : pos + end;
    } else if (text.startsWith('/*', pos)) {
      const end = text.indexOf('*/', pos + 2);
      if (end === -1) return pos;
      pos = end + 2;
    } else {
      return pos;
    }
  }
  return undefined;
}

/** The first `import(…)` in the tree: it would reach for a module loader the sandbox does not have. */
function findForbidden(root: Node): { start: number; reason: string } | undefined {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isNode(node)) continue;
    if (node.type === 'ImportExpression') {
      return { start: node.start, reason: 'import() is not available in patch expressions; they cannot load modules' };
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === 'type' || key === 'start' || key === 'end') continue;
      if (Array.isArray(child)) stack.push(...(child as unknown[]));
      else if (isNode(child)) stack.push(child);
    }
  }
  return undefined;
}

/**
 * The names an expression may assign without reaching beyond its own evaluation: the parameters
 * of the function the sandbox wraps it in, fresh on every call. Every other free name is shared by
 * all evaluations (the helpers `atob`, `btoa`, `virtualToHostDNS`, the built-ins, `globalThis`) or
 * does not exist; an assignment to one could carry one object's data into the next object's
 * evaluation. The sandbox refuses it at run time too (const helpers, a frozen global
 * object); this check says so at load, with the location.
 */
export const PER_EVALUATION_NAMES: ReadonlySet<string> = new Set(['value', 'valueExists', 'context']);

type AnyNode = Node & Record<string, unknown>;

/**
 * The first assignment (`=`, `+=`, `++`, destructuring, `for (x of …)`) to a name that is neither
 * a parameter of the expression's wrapper nor bound anywhere inside the expression. Conservative:
 * a name bound anywhere in the expression (a parameter, a declaration in an arrow function's body)
 * counts as local everywhere in it, so a shadowing trick passes this check and fails at run time.
 */
function findSharedAssignment(root: Node): { start: number; reason: string } | undefined {
  const bound = new Set<string>(PER_EVALUATION_NAMES);
  const targets: AnyNode[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isNode(node)) continue;
    const any = node as AnyNode;
    switch (any.type) {
      case 'FunctionExpression':
      case 'ArrowFunctionExpression':
      case 'FunctionDeclaration':
        if (isNode(any['id'])) patternNames(any['id'], (name) => bound.add(name.name as string));
        for (const param of any['params'] as unknown[]) patternNames(param, (name) => bound.add(name.name as string));
        break;
      case 'ClassExpression':
      case 'ClassDeclaration':
        if (isNode(any['id'])) patternNames(any['id'], (name) => bound.add(name.name as string));
        break;
      case 'VariableDeclarator':
        patternNames(any['id'], (name) => bound.add(name.name as string));
        break;
      case 'CatchClause':
        patternNames(any['param'], (name) => bound.add(name.name as string));
        break;
      case 'AssignmentExpression':
        patternNames(any['left'], (name) => targets.push(name));
        break;
      case 'UpdateExpression':
        patternNames(any['argument'], (name) => targets.push(name));
        break;
      case 'ForInStatement':
      case 'ForOfStatement':
        if (isNode(any['left']) && any['left'].type !== 'VariableDeclaration') patternNames(any['left'], (name) => targets.push(name));
        break;
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === 'type' || key === 'start' || key === 'end') continue;
      if (Array.isArray(child)) stack.push(...(child as unknown[]));
      else if (isNode(child)) stack.push(child);
    }
  }
  const shared = targets.filter((target) => !bound.has(target.name as string)).sort((a, b) => a.start - b.start)[0];
  if (shared === undefined) return undefined;
  const name = shared.name as string;
  return {
    start: shared.start,
    reason: `assigns to ${name}, which is not the expression's own: every evaluation shares the helpers and globals (value, valueExists and context are per evaluation); compute the result instead of assigning ${name}`,
  };
}

// Calls `found` with each identifier a binding or assignment target names (patterns included;
// member expressions such as `a.b = 1` name no variable).
function patternNames(node: unknown, found: (identifier: AnyNode) => void): void {
  if (!isNode(node)) return;
  const any = node as AnyNode;
  switch (any.type) {
    case 'Identifier':
      found(any);
      return;
    case 'ParenthesizedExpression':
      patternNames(any['expression'], found);
      return;
    case 'ObjectPattern':
      for (const property of any['properties'] as AnyNode[]) patternNames(property.type === 'RestElement' ? property : property['value'], found);
      return;
    case 'ArrayPattern':
      for (const element of any['elements'] as unknown[]) patternNames(element, found);
      return;
    case 'RestElement':
      patternNames(any['argument'], found);
      return;
    case 'AssignmentPattern':
      patternNames(any['left'], found);
      return;
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
