import { createHash } from 'node:crypto';
import { isAlias, isMap, isNode, isScalar, isSeq, type Document, type LineCounter, type Node, type YAMLMap } from 'yaml';
import type { ConfigPath } from './config-path.js';
import { offsetOfLineColumn, scalarPositions, type ScalarStyle } from './scalar-positions.js';

/** A 1-based position in the config text. */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

/**
 * The text a config was parsed from, with a map from config paths to positions. The patch engine
 * uses it to report its own errors (`…patches[2].expression`) at the right line.
 */
export interface ConfigSource {
  /** The file name as given to the parser. */
  readonly fileName: string;
  /** The full text. */
  readonly text: string;
  /** Hex SHA-256 of `text`; equal hashes mean identical content (used by the file watcher). */
  readonly hash: string;
  /**
   * Position of the value at `path` (for a map entry whose value is empty, the position of its
   * key), or `undefined` when the path does not exist in the text (e.g. a default).
   */
  locate(path: ConfigPath): SourcePosition | undefined;
  /**
   * Position of the key that names the last segment of `path` (for a list item: the item), or
   * `undefined` when the path does not exist in the text.
   */
  locateKey(path: ConfigPath): SourcePosition | undefined;
  /**
   * Position of the deepest part of `path` that exists in the text (the whole document's start
   * when nothing does). Never undefined: use it for problems about absent keys.
   */
  locateNearest(path: ConfigPath): SourcePosition;
  /**
   * Position of the character at 1-based `inner.line`/`inner.column` inside the string value at
   * `path` (how the patch engine locates a problem inside a path or an expression), following the
   * value's quotes, escapes, folding and block indentation; so an error names one position, in
   * the file. `undefined` when `path` holds no string scalar, or its writing cannot be mapped
   * exactly (then use {@link locate}).
   */
  locateInside(path: ConfigPath, inner: SourcePosition): SourcePosition | undefined;
}

interface Step {
  readonly node: Node | null;
  readonly key: Node | null;
}

/** Hex SHA-256 of a config text: the identity the watcher compares. */
export function hashConfigText(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Builds the {@link ConfigSource} of a parsed document. The document must not be mutated later. */
export function createConfigSource(options: {
  fileName: string;
  text: string;
  document: Document;
  lineCounter: LineCounter;
}): ConfigSource {
  const { fileName, text, document, lineCounter } = options;

  const position = (node: Node | null): SourcePosition | undefined => {
    const offset = node?.range?.[0];
    if (offset === undefined) return undefined;
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };

  const resolve = (node: unknown): Node | null => {
    if (isAlias(node)) {
      const target: unknown = node.resolve(document);
      return isNode(target) ? target : null;
    }
    return isNode(node) ? node : null;
  };

  /**
   * Each mapping's entries by key as a string (the first entry wins), built on first use: locating
   * every error of a mapping with thousands of keys must not scan the mapping once per error.
   */
  const entries = new WeakMap<YAMLMap, Map<string, Step>>();
  const entriesOf = (map: YAMLMap): Map<string, Step> => {
    let byKey = entries.get(map);
    if (byKey === undefined) {
      byKey = new Map();
      for (const pair of map.items) {
        const key = pair.key;
        const keyValue = isScalar(key) ? key.value : key;
        if (keyValue === null || keyValue === undefined || byKey.has(String(keyValue))) continue;
        byKey.set(String(keyValue), { node: resolve(pair.value), key: isNode(key) ? key : null });
      }
      entries.set(map, byKey);
    }
    return byKey;
  };

  /** Walks `path`; returns the steps taken (one per segment that exists). */
  const walk = (path: ConfigPath): Step[] => {
    const steps: Step[] = [];
    let current = resolve(document.contents);
    for (const segment of path) {
      let next: Step | undefined;
      if (isMap(current)) {
        next = entriesOf(current).get(String(segment));
      } else if (isSeq(current) && typeof segment === 'number') {
        const item = current.items[segment];
        if (item !== undefined) {
          const node = resolve(item);
          next = { node, key: node };
        }
      }
      if (next === undefined) break;
      steps.push(next);
      current = next.node;
    }
    return steps;
  };

  const documentStart = (): SourcePosition => position(resolve(document.contents)) ?? { line: 1, column: 1 };

  return {
    fileName,
    text,
    hash: hashConfigText(text),
    locate(path) {
      if (path.length === 0) return documentStart();
      const steps = walk(path);
      if (steps.length !== path.length) return undefined;
      const last = steps[steps.length - 1];
      return position(last?.node ?? null) ?? position(last?.key ?? null);
    },
    locateKey(path) {
      if (path.length === 0) return documentStart();
      const steps = walk(path);
      if (steps.length !== path.length) return undefined;
      const last = steps[steps.length - 1];
      return position(last?.key ?? null) ?? position(last?.node ?? null);
    },
    locateInside(path, inner) {
      const node = walk(path).at(-1)?.node;
      if (path.length === 0 || !isScalar(node) || typeof node.value !== 'string' || node.range == null || node.type === undefined) {
        return undefined;
      }
      const [start, end] = node.range;
      const mapped = scalarPositions(text.slice(start, end), node.type as ScalarStyle);
      // Trust the map only where it decodes to what the parser read (block scalars add their
      // chomped final line breaks after the content).
      if (mapped === undefined || !node.value.startsWith(mapped.value) || !/^\n*$/.test(node.value.slice(mapped.value.length))) {
        return undefined;
      }
      const offset = offsetOfLineColumn(node.value, inner.line, inner.column);
      if (offset === undefined || offset > node.value.length) return undefined;
      const sourceOffset = mapped.offsets[Math.min(offset, mapped.value.length)];
      if (sourceOffset === undefined) return undefined;
      const { line, col } = lineCounter.linePos(start + sourceOffset);
      return { line, column: col };
    },
    locateNearest(path) {
      const steps = walk(path);
      for (let i = steps.length - 1; i >= 0; i--) {
        const step = steps[i];
        const found = position(step?.node ?? null) ?? position(step?.key ?? null);
        if (found !== undefined) return found;
      }
      return documentStart();
    },
  };
}
