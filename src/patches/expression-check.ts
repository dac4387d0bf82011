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
      /** `syntax`: not a single expression; `forbidden`: parses, but uses `import()`. */
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
  const forbidden = findForbidden(node);
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

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}
