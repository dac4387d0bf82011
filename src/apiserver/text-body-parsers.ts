import { Composer } from 'yaml';
import { ApiError, badRequest } from '../apimachinery/index.js';
import { rememberJsonSource } from './duplicate-fields.js';
import { jsonNestingViolation, MAX_YAML_ALIASES, positionOf, readYamlSyntax, resolvedNestingViolation, type BodyLimitViolation } from './body-limits.js';

/** The Status error for a body limit the request exceeded. */
export function bodyLimitError(violation: BodyLimitViolation): ApiError {
  return new ApiError(violation.reason, violation.message);
}

/**
 * The value of a JSON request body (the object and patch media types), or undefined for an empty
 * body. The nesting limit is checked on the text before `JSON.parse`; the text is remembered for
 * the duplicate-field check of writes (`duplicate-fields.ts`). Throws an {@link ApiError} 400 for
 * a body over the limits or not valid JSON.
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  const violation = jsonNestingViolation(text);
  if (violation !== undefined) throw bodyLimitError(violation);
  try {
    const value = JSON.parse(text) as unknown;
    rememberJsonSource(value, text);
    return value;
  } catch (error: unknown) {
    throw badRequest(`the request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The value of a YAML request body (one document, YAML 1.2 core schema, duplicate keys refused,
 * always a JSON value: YAML 1.1's `!!binary`, `!!set`, `!!omap` and `!!timestamp` are read as the
 * plain string, mapping or sequence they tag),
 * or undefined for an empty body. What yaml's `parse` does, with the body limits checked on the
 * syntax tree before any value is built, and alias expansion bounded while values are. Pure;
 * throws an {@link ApiError} 400 for a body over the limits or not valid YAML.
 */
export function parseYamlBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  const syntax = readYamlSyntax(text);
  if (!('tokens' in syntax)) throw bodyLimitError(syntax);
  // YAML 1.1's explicit tags (!!binary, !!set, !!omap, !!timestamp) would become a Uint8Array,
  // Set, Map or Date that no JSON code after the parser expects; unresolved, they stay JSON values.
  const [document, second] = new Composer({ resolveKnownTags: false }).compose(syntax.tokens, true, text.length);
  if (document === undefined) return undefined;
  if (second !== undefined) {
    throw badRequest(`the request body holds more than one YAML document (the second starts at ${positionOf(text, second.range[0])}); send one object per request`);
  }
  const [error] = document.errors;
  if (error !== undefined) throw badRequest(`the request body is not valid YAML: ${error.message} at ${positionOf(text, error.pos[0])}`);
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error: unknown) {
    // yaml throws ReferenceError for an alias before its anchor and for an anchor expanded too often.
    if (!(error instanceof ReferenceError)) throw error;
    throw badRequest(
      `the YAML request body's aliases cannot be resolved: ${error.message}; an anchor must come before its aliases and may be expanded at most ${MAX_YAML_ALIASES} times, counting the aliases inside it`,
    );
  }
  const violation = resolvedNestingViolation(value);
  if (violation !== undefined) throw bodyLimitError(violation);
  return value;
}
