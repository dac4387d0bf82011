import { ConfigErrorCode } from './config-error.js';
import { formatConfigPath, valueAtConfigPath, type ConfigPath } from './config-path.js';
import { suggestKey } from './suggest-key.js';
import { isJsonObject } from '../apimachinery/index.js';

/** What to tell the user about a key a closed mapping does not take. */
export interface UnknownKeyHint {
  /** `CONFIG_MISPLACED_KEY` when the key is known one level down or up, else `CONFIG_UNKNOWN_KEY`. */
  readonly code: typeof ConfigErrorCode.UNKNOWN_KEY | typeof ConfigErrorCode.MISPLACED_KEY;
  /** E.g. `unknown key; did you mean "toHost"? allowed keys: toHost, fromHost`. */
  readonly message: string;
}

/** Options of {@link describeUnknownKey}. */
export interface DescribeUnknownKeyOptions {
  /** The root JSON Schema (TypeBox) the data was validated with. */
  readonly schema: unknown;
  /** The data as written (the root of the document). */
  readonly data: unknown;
  /** Path of the mapping that does not take `key`. */
  readonly path: ConfigPath;
  /** The key as written. */
  readonly key: string;
}

/** Lists longer than this are left out of a message that already makes a suggestion. */
const SHORT_LIST = 8;

/**
 * Explains an unknown key in a closed mapping, most specific first:
 * 1. the key is a key of a section right below this mapping (wrong indentation, one level too far
 *    left): where it belongs, preferring the section written just above it;
 * 2. the key is a key of the mapping one level up (one level too far right);
 * 3. it is close to a key of this mapping (a typo): "did you mean";
 * 4. otherwise: which keys are allowed.
 * Pure: reads the schema and the data, changes neither.
 */
export function describeUnknownKey(options: DescribeUnknownKeyOptions): UnknownKeyHint {
  const { schema, data, path, key } = options;
  const mapping = schemaAt(schema, path);
  const known = propertyNames(mapping);
  const where = describePath(path);

  const homes = known.filter((child) => takesKey(childSchema(mapping, child), key));
  // Only a key some section below takes looks at its siblings: a mapping of many unknown keys
  // must not cost a scan of the mapping per key (quadratic in the number of keys written).
  const above = homes.length > 0 ? keyWrittenAbove(valueAtConfigPath(data, path), key) : undefined;
  const home = above !== undefined && homes.includes(above) ? above : homes.length === 1 ? homes[0] : undefined;
  if (home !== undefined) {
    return misplaced(`it belongs under ${formatConfigPath([...path, home])}, not ${where} (indent it below "${home}:")`);
  }
  const parentPath = path.slice(0, -1);
  if (path.length > 0 && takesKey(schemaAt(schema, parentPath), key)) {
    return misplaced(`it belongs one level up, under ${describePath(parentPath)}, not ${where} (indent it less)`);
  }
  if (homes.length > 1) {
    const sections = homes.map((child) => formatConfigPath([...path, child])).join(' or ');
    return misplaced(`it is a key of ${sections}, not of ${where} (indent it below the section it belongs to)`);
  }

  const allowed = known.length > 0 ? `allowed keys: ${known.join(', ')}` : 'this mapping takes no keys ({})';
  const suggestion = suggestKey(key, known);
  if (suggestion === undefined) return { code: ConfigErrorCode.UNKNOWN_KEY, message: `unknown key; ${allowed}` };
  const list = known.length <= SHORT_LIST ? ` ${allowed}` : '';
  return { code: ConfigErrorCode.UNKNOWN_KEY, message: `unknown key; did you mean "${suggestion}"?${list}` };
}

/** The key written just before `key` in the mapping `written`, if any. */
function keyWrittenAbove(written: unknown, key: string): string | undefined {
  if (!isJsonObject(written)) return undefined;
  const siblings = Object.keys(written);
  return siblings[siblings.indexOf(key) - 1];
}

function misplaced(detail: string): UnknownKeyHint {
  return { code: ConfigErrorCode.MISPLACED_KEY, message: `misplaced key: ${detail}` };
}

function describePath(path: ConfigPath): string {
  return path.length === 0 ? 'the top level' : formatConfigPath(path);
}

/** The schema of the value at `path`, following properties, list items and map values. */
function schemaAt(schema: unknown, path: ConfigPath): unknown {
  let current = schema;
  for (const segment of path) current = childSchema(current, segment);
  return current;
}

function childSchema(schema: unknown, segment: string | number): unknown {
  if (!isJsonObject(schema)) return undefined;
  if (typeof segment === 'number') return schema['items'];
  const properties = schema['properties'];
  if (isJsonObject(properties) && Object.hasOwn(properties, segment)) return properties[segment];
  const patterns = schema['patternProperties'];
  if (isJsonObject(patterns)) return Object.values(patterns)[0];
  return isJsonObject(schema['additionalProperties']) ? schema['additionalProperties'] : undefined;
}

function propertyNames(schema: unknown): string[] {
  const properties = isJsonObject(schema) ? schema['properties'] : undefined;
  return isJsonObject(properties) ? Object.keys(properties) : [];
}

/** Whether `schema` is a mapping that names `key` among its properties. */
function takesKey(schema: unknown, key: string): boolean {
  const properties = isJsonObject(schema) ? schema['properties'] : undefined;
  return isJsonObject(properties) && Object.hasOwn(properties, key);
}

