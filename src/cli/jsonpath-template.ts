/**
 * kubectl's `-o jsonpath=TEMPLATE` output, on jsonpath-plus: text outside braces is printed as is,
 * `{.path}` prints the values the JSONPath finds (several joined by spaces, as kubectl does),
 * `{"text"}` prints a quoted literal (`{"\n"}` for a newline), and `{range .path}…{end}` repeats
 * its body for every value found, with paths inside relative to that value. Pure: a template in,
 * a function from object to text out.
 */
import { JSONPath } from 'jsonpath-plus';

type TemplateNode =
  | { kind: 'text'; text: string }
  | { kind: 'path'; path: string }
  | { kind: 'range'; path: string; body: TemplateNode[] };

/** A template that cannot be parsed; the message says where. */
export class JsonPathTemplateError extends Error {
  readonly code = 'JSONPATH_TEMPLATE';
}

/** kubectl's relative path (`.metadata.labels.app\.kubernetes\.io/name`, `.items[*]`) as a JSONPath. */
function toJsonPath(expression: string): string {
  const trimmed = expression.trim();
  if (trimmed === '' || trimmed === '.' || trimmed === '@') return '$';
  if (!trimmed.startsWith('.') && !trimmed.startsWith('[')) {
    throw new JsonPathTemplateError(`"{${expression}}": a path starts with "." (e.g. {.metadata.name})`);
  }
  // kubectl escapes dots inside a key with a backslash; JSONPath writes such keys in brackets.
  return '$' + trimmed.replace(/\.((?:[^.[\\]|\\.)+)/g, (whole, key: string) => (key.includes('\\.') ? `['${key.replace(/\\\./g, '.')}']` : whole));
}

function parseQuoted(body: string): string {
  try {
    return JSON.parse(body) as string;
  } catch {
    throw new JsonPathTemplateError(`{${body}}: not a valid quoted string`);
  }
}

/** Parses a template into nodes; throws {@link JsonPathTemplateError} for unbalanced braces or ranges. */
function parseTemplate(template: string): TemplateNode[] {
  const root: TemplateNode[] = [];
  const stack: { body: TemplateNode[]; path: string }[] = [];
  let current = root;
  let index = 0;
  while (index < template.length) {
    const open = template.indexOf('{', index);
    if (open === -1) {
      current.push({ kind: 'text', text: template.slice(index) });
      break;
    }
    if (open > index) current.push({ kind: 'text', text: template.slice(index, open) });
    const close = template.indexOf('}', open);
    if (close === -1) throw new JsonPathTemplateError(`unclosed "{" at column ${open + 1}`);
    const body = template.slice(open + 1, close).trim();
    index = close + 1;
    if (body.startsWith('"')) {
      current.push({ kind: 'text', text: parseQuoted(body) });
    } else if (body.startsWith('range ')) {
      const range = { body: [] as TemplateNode[], path: toJsonPath(body.slice('range '.length)) };
      stack.push({ body: current, path: range.path });
      current = range.body;
    } else if (body === 'end') {
      const outer = stack.pop();
      if (outer === undefined) throw new JsonPathTemplateError(`{end} at column ${open + 1} closes no {range}`);
      outer.body.push({ kind: 'range', path: outer.path, body: current });
      current = outer.body;
    } else {
      current.push({ kind: 'path', path: toJsonPath(body) });
    }
  }
  if (stack.length > 0) throw new JsonPathTemplateError('{range …} without {end}');
  return root;
}

function find(path: string, value: unknown): unknown[] {
  if (path === '$') return [value];
  // eval 'safe': filter expressions run in jsonpath-plus's own evaluator, never as JavaScript.
  return JSONPath({ path, json: value as object, wrap: true, eval: 'safe' }) as unknown[];
}

function print(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

function render(nodes: readonly TemplateNode[], value: unknown): string {
  let out = '';
  for (const node of nodes) {
    if (node.kind === 'text') out += node.text;
    else if (node.kind === 'path') out += find(node.path, value).map(print).join(' ');
    else for (const item of find(node.path, value)) out += render(node.body, item);
  }
  return out;
}

/** Compiles a kubectl-style JSONPath template once; the result renders any object. */
export function compileJsonPathTemplate(template: string): (value: unknown) => string {
  const nodes = parseTemplate(template);
  return (value) => render(nodes, value);
}
