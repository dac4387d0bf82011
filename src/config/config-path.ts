/** A path into the config document: map keys are strings, list indexes are numbers. */
export type ConfigPath = readonly (string | number)[];
import { isJsonObject } from '../apimachinery/index.js';

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Renders a path the way users read it in error messages: dots between plain keys, `[2]` for list
 * indexes, and `["team-*"]` for keys that are not plain identifiers (dashes, dots, `*`, …).
 * Example: `['sync','toHost','endpoints','patches',2,'expression']` →
 * `sync.toHost.endpoints.patches[2].expression`.
 */
export function formatConfigPath(path: ConfigPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') {
      out += `[${segment}]`;
    } else if (PLAIN_KEY.test(segment)) {
      out += out === '' ? segment : `.${segment}`;
    } else {
      out += `[${JSON.stringify(segment)}]`;
    }
  }
  return out;
}

/**
 * Converts an ajv instance path (a JSON pointer such as `/sync/toHost/endpoints/patches/2`) to a
 * {@link ConfigPath}, using the validated data to tell list indexes from map keys.
 */
export function pointerToConfigPath(pointer: string, data: unknown): (string | number)[] {
  if (pointer === '') return [];
  const path: (string | number)[] = [];
  let current: unknown = data;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) {
      const index = Number(token);
      path.push(index);
      current = current[index];
    } else {
      path.push(token);
      current = isJsonObject(current) ? current[token] : undefined;
    }
  }
  return path;
}

/**
 * The value at `path` in parsed config data, or `undefined` when the path does not exist (a
 * segment is missing, or a string segment meets a list or a number meets a mapping).
 */
export function valueAtConfigPath(data: unknown, path: ConfigPath): unknown {
  let current = data;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isJsonObject(current) && typeof segment === 'string') current = current[segment];
    else return undefined;
  }
  return current;
}

