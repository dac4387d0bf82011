import { compareConfigErrors } from './config-error.js';
import type { ConfigSchema } from './config-schema.js';
import type { ConfigValidator } from './config-section.js';
import { configResult, configRuleErrors, readConfigDocument, type ConfigResult } from './parse-config.js';

/** A section's validator type, named where the check that runs the validators is too. */
export type { ConfigValidator } from './config-section.js';

/**
 * The complete check of config text, the one `vcsync validate`, the daemon's start and every
 * reload run: YAML, schema and cross-key rules (`parseConfig` with `schema`), then the validators
 * of `schema`'s sections and `validators`, in order, even when the schema failed. Each problem is reported once: a validator's error at a path
 * where the schema already reported one, or about a mapping or list inside which the schema
 * reported one (the patch compiler's "no mode" for a patch with a misspelt `expresion`), is
 * dropped, and the schema's wording stands. Errors are sorted by position.
 */
export async function checkConfigText(
  text: string,
  fileName: string,
  schema: ConfigSchema,
  validators: readonly ConfigValidator[] = [],
): Promise<ConfigResult> {
  const document = readConfigDocument(text, fileName, schema);
  if (!document.ok) return document;
  const { data, source } = document;
  const ruleErrors = configRuleErrors(data, source, schema);
  const errors = [...ruleErrors];
  // Every path the schema reported at or inside: a validator's error there is dropped. A set, so
  // a file with thousands of errors costs no comparison of each error with every other.
  const covered = new Set(ruleErrors.flatMap((error) => pathAndContainers(error.path)));
  for (const validator of [...schema.validators, ...validators]) {
    for (const error of await validator(data, source)) {
      if (!covered.has(error.path)) errors.push(error);
    }
  }
  if (errors.length > 0) return { ok: false, errors: errors.sort(compareConfigErrors) };
  return configResult(data, source, schema);
}

/**
 * Formatted config path `path` and every mapping or list it lies inside (`a.b[0]` → `a.b[0]`,
 * `a.b`, `a`), the root excluded. A quoted key (`["a.b"]`) is one step, whatever it holds.
 */
function pathAndContainers(path: string): string[] {
  const containers = [path];
  for (let end = 1; end < path.length; end++) {
    const next = path[end];
    if (next !== '.' && next !== '[') continue;
    containers.push(path.slice(0, end));
    if (path[end + 1] === '"') end = endOfQuotedKey(path, end + 2);
  }
  return containers;
}

/** The index of the `"` closing the JSON string whose content starts at `from` (or the end). */
function endOfQuotedKey(path: string, from: number): number {
  for (let index = from; index < path.length; index++) {
    if (path[index] === '\\') index += 1;
    else if (path[index] === '"') return index;
  }
  return path.length;
}
