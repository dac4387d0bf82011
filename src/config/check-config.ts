import { compareConfigErrors, type ConfigError } from './config-error.js';
import type { ConfigSource } from './config-source.js';
import { configResult, configRuleErrors, readConfigDocument, type ConfigResult } from './parse-config.js';

/**
 * A component's check of a config, beyond the schema (the patch engine's compile check). It gets
 * the data exactly as written (deep-frozen, before defaults) and runs whether or not the schema
 * passed, so one run reports every problem: it must not trust the data's types, and must not
 * throw for a bad config. It returns every problem it finds, located with `locatedConfigError`
 * (or `configErrorAt`) from `parse-config.ts`; an empty list means none.
 */
export type ConfigValidator = (
  written: unknown,
  source: ConfigSource,
) => readonly ConfigError[] | Promise<readonly ConfigError[]>;

/**
 * The complete check of config text, the one `vcsync validate`, the daemon's start and every
 * reload run: YAML, schema and cross-key rules (`parseConfig`), then every validator, in order,
 * even when the schema failed. Each problem is reported once: a validator's error at a path
 * where the schema already reported one, or about a mapping or list inside which the schema
 * reported one (the patch compiler's "no mode" for a patch with a misspelt `expresion`), is
 * dropped, and the schema's wording stands. Errors are sorted by position.
 */
export async function checkConfigText(
  text: string,
  fileName: string,
  validators: readonly ConfigValidator[],
): Promise<ConfigResult> {
  const document = readConfigDocument(text, fileName);
  if (!document.ok) return document;
  const { data, source } = document;
  const ruleErrors = configRuleErrors(data, source);
  const errors = [...ruleErrors];
  for (const validator of validators) {
    for (const error of await validator(data, source)) {
      if (!ruleErrors.some((reported) => isWithin(reported.path, error.path))) errors.push(error);
    }
  }
  if (errors.length > 0) return { ok: false, errors: errors.sort(compareConfigErrors) };
  return configResult(data, source);
}

/** Whether formatted config path `path` is `container` or lies inside it. */
function isWithin(path: string, container: string): boolean {
  if (path === container) return true;
  if (container === '' || !path.startsWith(container)) return false;
  const next = path[container.length];
  return next === '.' || next === '[';
}
