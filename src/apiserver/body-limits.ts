import { CST, Lexer, Parser } from 'yaml';

/**
 * What a request body may cost the server, and the checks that bound it before a body becomes
 * values. Parsing runs on the event loop, so one costly body stalls every other request; and the
 * YAML composer recurses once per nesting level, where V8 aborts the whole process (uncatchably:
 * `RegExpCompiler Allocation failed - process out of memory`) if a regular expression happens to
 * be compiled on the exhausted stack. Size is bounded by the HTTP layer (413), nesting, tokens and
 * aliases here (400); time follows from those bounds.
 *
 * Pure and free of any server's types: a violation is data that the caller answers as a Status.
 */

/** The largest request body: 3 MiB, the real API server's limit. Larger bodies are answered 413. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/**
 * How deeply objects and arrays may nest in a body: 100 levels (a Kubernetes object rarely nests
 * 15 deep). The real API server allows 10,000; this server's code recurses per level (the YAML
 * composer, validation, patches, serialisation), and the YAML composer exhausts Node's default
 * stack at fewer than 800 levels.
 */
export const MAX_BODY_NESTING_DEPTH = 100;

/**
 * How many lexical tokens a YAML body may have, as yaml's lexer yields them (indicators, scalars,
 * comments, spaces, line breaks): 10,000, about 1,200 lines of a typical manifest (`  key: value`
 * is 8 tokens). yaml spends tens of microseconds per token when the machine is busy, so this
 * keeps a YAML body's parse to a fraction of a second; JSON, parsed natively, needs no such limit.
 */
export const MAX_YAML_TOKENS = 10_000;

/**
 * How many lines a YAML body may have: 100,000 (3 MiB of lines of 31 characters on average).
 * A block scalar (`|`) is one token however many lines it spans, but yaml still spends a
 * microsecond or more on each of its lines.
 */
export const MAX_YAML_LINES = 100_000;

/**
 * How many aliases (`*name`) a YAML body may hold, and how often yaml may expand one anchor
 * (its `maxAliasCount`, which also counts the aliases inside the anchored node): 100. Bounds
 * alias expansion ("billion laughs").
 */
export const MAX_YAML_ALIASES = 100;

/** A limit a request body exceeded: the Status reason to answer with and a message naming the limit. */
export interface BodyLimitViolation {
  readonly reason: 'BadRequest' | 'RequestEntityTooLarge';
  readonly message: string;
}

/** 413: the body is larger than {@link MAX_REQUEST_BODY_BYTES}. */
export function bodyTooLarge(): BodyLimitViolation {
  return { reason: 'RequestEntityTooLarge', message: `the request body is too large: limit is ${MAX_REQUEST_BODY_BYTES} bytes (3 MiB)` };
}

/** Where `offset` is in `text`, for messages: `line L, column C`, both counted from 1. */
export function positionOf(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let newline = text.indexOf('\n'); newline !== -1 && newline < offset; newline = text.indexOf('\n', newline + 1)) {
    line += 1;
    lineStart = newline + 1;
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
}

function nestedTooDeep(where: string): BodyLimitViolation {
  return {
    reason: 'BadRequest',
    message: `the request body nests objects and arrays more than ${MAX_BODY_NESTING_DEPTH} levels deep (${where}); the limit is ${MAX_BODY_NESTING_DEPTH} levels`,
  };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** The index of the quote that closes the JSON string opened at `open` (text.length when none does). */
export function endOfJsonString(text: string, open: number): number {
  for (let quote = text.indexOf('"', open + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
  }
  return text.length;
}

/**
 * Checks a JSON body's nesting in one pass over its text, before `JSON.parse`: the depth of `[`
 * and `{` outside strings. Exact for valid JSON; for invalid JSON any answer is safe, since
 * `JSON.parse` rejects it without recursing.
 */
export function jsonNestingViolation(text: string): BodyLimitViolation | undefined {
  let depth = 0;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (char === QUOTE) {
      index = endOfJsonString(text, index);
    } else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      depth += 1;
      if (depth > MAX_BODY_NESTING_DEPTH) return nestedTooDeep(`at ${positionOf(text, index)}`);
    } else if (char === CLOSE_BRACKET || char === CLOSE_BRACE) {
      depth -= 1;
    }
  }
  return undefined;
}

/** A YAML body's concrete syntax tree, read within the limits: what yaml's `Composer` builds values from. */
export interface YamlSyntax {
  readonly tokens: readonly CST.Token[];
}

function tooManyYamlTokens(): BodyLimitViolation {
  return {
    reason: 'BadRequest',
    message: `the YAML request body has more than ${MAX_YAML_TOKENS} tokens; the limit is ${MAX_YAML_TOKENS} (about 1,200 lines): send a large object as JSON`,
  };
}

function tooManyYamlLines(): BodyLimitViolation {
  return { reason: 'BadRequest', message: `the YAML request body has more than ${MAX_YAML_LINES} lines; the limit is ${MAX_YAML_LINES}: send a large object as JSON` };
}

function tooManyYamlAliases(where: string): BodyLimitViolation {
  return { reason: 'BadRequest', message: `the YAML request body has more than ${MAX_YAML_ALIASES} aliases (${where}); the limit is ${MAX_YAML_ALIASES}` };
}

/** The deepest nesting of collections in `tokens`, walked with an explicit stack (the tree may be deep); stops past the limit. */
function deepestCollection(tokens: readonly CST.Token[]): { depth: number; offset: number } {
  const pending: { token: CST.Token; depth: number }[] = tokens.map((token) => ({ token, depth: 0 }));
  let deepest = { depth: 0, offset: 0 };
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { token, depth } = next;
    if (token.type === 'document') {
      if (token.value !== undefined) pending.push({ token: token.value, depth });
    } else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      const inner = depth + 1;
      if (inner > deepest.depth) deepest = { depth: inner, offset: token.offset };
      if (inner > MAX_BODY_NESTING_DEPTH) return deepest;
      for (const item of token.items as CST.CollectionItem[]) {
        if (item.key !== undefined && item.key !== null) pending.push({ token: item.key, depth: inner });
        if (item.value !== undefined) pending.push({ token: item.value, depth: inner });
      }
    }
  }
  return deepest;
}

/**
 * Reads a YAML body into its concrete syntax tree with yaml's own lexer and parser (both
 * iterative), once its lines are within {@link MAX_YAML_LINES}, counting as it goes: it stops at
 * the first token past {@link MAX_YAML_TOKENS}, the
 * first alias past {@link MAX_YAML_ALIASES}, or the first flow collection (`[`, `{`) nested past
 * {@link MAX_BODY_NESTING_DEPTH}; then it measures the nesting of block and flow collections
 * together in the tree. A tree this returns composes into values without deep recursion and in
 * time bounded by the token limit. Pure.
 */
export function readYamlSyntax(text: string): YamlSyntax | BodyLimitViolation {
  let lines = 0; // line breaks: a body of N lines, each ending in one, has N
  for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', newline + 1)) {
    lines += 1;
    if (lines > MAX_YAML_LINES) return tooManyYamlLines();
  }
  const parser = new Parser();
  const tokens: CST.Token[] = [];
  let count = 0;
  let aliases = 0;
  let flowDepth = 0;
  for (const lexeme of new Lexer().lex(text)) {
    count += 1;
    if (count > MAX_YAML_TOKENS) return tooManyYamlTokens();
    switch (CST.tokenType(lexeme)) {
      case 'alias':
        aliases += 1;
        if (aliases > MAX_YAML_ALIASES) return tooManyYamlAliases(`the alias ${lexeme} at ${positionOf(text, parser.offset)}`);
        break;
      case 'flow-map-start':
      case 'flow-seq-start':
        flowDepth += 1;
        if (flowDepth > MAX_BODY_NESTING_DEPTH) return nestedTooDeep(`at ${positionOf(text, parser.offset)}`);
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        flowDepth = Math.max(0, flowDepth - 1);
        break;
      case 'flow-error-end':
        flowDepth = 0;
        break;
      default:
        break;
    }
    for (const token of parser.next(lexeme)) tokens.push(token);
  }
  for (const token of parser.end()) tokens.push(token);
  const deepest = deepestCollection(tokens);
  if (deepest.depth > MAX_BODY_NESTING_DEPTH) return nestedTooDeep(`at ${positionOf(text, deepest.offset)}`);
  return { tokens };
}

/**
 * Checks the nesting of a value built from YAML, whose aliases can nest one anchored collection
 * inside another, or inside itself (a cycle, which no JSON can express and every serialiser
 * chokes on). Objects shared through aliases are measured once. Recurses at most
 * {@link MAX_BODY_NESTING_DEPTH} levels. Pure.
 */
export function resolvedNestingViolation(value: unknown): BodyLimitViolation | undefined {
  const heights = new Map<object, number>();
  const open = new Set<object>();
  /** The value's height (1 for a collection of scalars), or undefined when it does not fit in `room` levels. */
  const heightWithin = (node: unknown, room: number): number | undefined => {
    if (typeof node !== 'object' || node === null) return 0;
    if (open.has(node)) return undefined;
    const known = heights.get(node);
    if (known !== undefined) return known <= room ? known : undefined;
    if (room === 0) return undefined;
    open.add(node);
    let height = 0;
    for (const child of Object.values(node)) {
      const childHeight = heightWithin(child, room - 1);
      if (childHeight === undefined) return undefined;
      height = Math.max(height, childHeight);
    }
    open.delete(node);
    heights.set(node, height + 1);
    return height + 1;
  };
  if (heightWithin(value, MAX_BODY_NESTING_DEPTH) !== undefined) return undefined;
  return {
    reason: 'BadRequest',
    message: `the YAML request body's aliases nest it more than ${MAX_BODY_NESTING_DEPTH} levels deep or make it contain itself; the limit is ${MAX_BODY_NESTING_DEPTH} levels`,
  };
}
