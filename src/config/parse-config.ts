import type { ErrorObject } from 'ajv';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { applyConfigDefaults } from './config-defaults.js';
import { compareConfigErrors, ConfigErrorCode, type ConfigError } from './config-error.js';
import { formatConfigPath, pointerToConfigPath, valueAtConfigPath, type ConfigPath } from './config-path.js';
import { createConfigSource, type ConfigSource, type SourcePosition } from './config-source.js';
import type { ConfigSchema } from './config-schema.js';
import { sectionPatchesPath, sectionPath, type ConfigRuleProblem } from './config-section.js';
import { deepFreeze, isJsonObject } from '../apimachinery/index.js';
import { checkNamespaceMappings } from './namespace-mapping-rules.js';
import type { VclusterConfig, VclusterConfigInput } from './schema.js';
import { describeUnknownKey } from './unknown-key-hint.js';
import { dataDeeperThan, duplicateKey, MAX_NESTING_DEPTH, nestingDeeperThan, selfReferencingAlias } from './yaml-structure-checks.js';

/** The outcome of parsing a config: the merged, frozen config with its source, or every error. */
export type ConfigResult =
  | { readonly ok: true; readonly config: VclusterConfig; readonly source: ConfigSource }
  | { readonly ok: false; readonly errors: readonly ConfigError[] };

/**
 * A config text read as YAML: its data exactly as written (deep-frozen; empty sections read as
 * absent) with its source, or the YAML syntax errors. Nothing about the schema is known yet.
 */
export type ConfigDocument =
  | { readonly ok: true; readonly data: unknown; readonly source: ConfigSource }
  | { readonly ok: false; readonly errors: readonly ConfigError[] };

/**
 * Parses vcluster.yaml text with `schema` (assembled from the resource sections, see
 * `assembleConfigSchema`): YAML syntax, the schema (types, unknown and misplaced keys along every
 * path vcsync reads), and the rules across keys (namespace mappings, each section's rules, such
 * as a sync that needs host nodes with private nodes). Returns every error found, each located
 * (file:line:column) and sorted by position; or the config with defaults merged in and
 * deep-frozen. An empty file (or one with
 * only comments) is valid: all defaults. Pure apart from CPU: no I/O.
 *
 * The sections' validators (the patch engine's checks) are not part of this: `checkConfigText`
 * adds them (and any other component's), in the same run.
 */
export function parseConfig(text: string, fileName: string, schema: ConfigSchema): ConfigResult {
  const document = readConfigDocument(text, fileName, schema);
  if (!document.ok) return document;
  const errors = configRuleErrors(document.data, document.source, schema);
  if (errors.length > 0) return { ok: false, errors };
  return configResult(document.data, document.source, schema);
}

/**
 * Reads config text as YAML (see {@link ConfigDocument}); `schema` says which sections may be
 * written empty. Pure apart from CPU.
 */
export function readConfigDocument(text: string, fileName: string, schema: ConfigSchema): ConfigDocument {
  const lineCounter = new LineCounter();
  // YAML 1.1's tags (!!binary, !!omap, !!set, !!timestamp) are read as the plain string, list or
  // mapping they tag, as vcluster reads them: resolved, they became a Uint8Array, Map or Set that
  // the schema could not see into. logLevel: the library's warnings are not ours to print.
  // Duplicate keys are found below (the library's own check compares every pair of keys).
  const document = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: false, resolveKnownTags: false, logLevel: 'error' });
  const source = createConfigSource({ fileName, text, document, lineCounter });

  // Nesting is limited in levels, not by the call stack: a file accepted by `vcsync validate`
  // must not overflow the daemon's deeper stack on reload, nor the other way round. So whether
  // the parser ran out of stack or the parsed document is too deep, the answer is the same one
  // error, at the file's start.
  if (document.errors.some((error) => error.code === 'RESOURCE_EXHAUSTION') || nestingDeeperThan(document, MAX_NESTING_DEPTH)) {
    return { ok: false, errors: [tooDeep(fileName)] };
  }

  const duplicate = document.errors.length === 0 ? duplicateKey(document, lineCounter) : undefined;
  if (duplicate !== undefined) {
    return { ok: false, errors: [{ code: ConfigErrorCode.YAML_SYNTAX, path: '', file: fileName, ...duplicate, message: 'invalid YAML: Map keys must be unique' }] };
  }

  if (document.errors.length > 0) {
    const errors = document.errors.map((error): ConfigError => {
      const pos = error.linePos?.[0];
      return {
        code: ConfigErrorCode.YAML_SYNTAX,
        path: '',
        file: fileName,
        line: pos?.line ?? 1,
        column: pos?.col ?? 1,
        message: error.code === 'MULTIPLE_DOCS' ? MULTIPLE_DOCUMENTS : `invalid YAML: ${firstSentence(error.message)}`,
      };
    });
    return { ok: false, errors: errors.sort(compareConfigErrors) };
  }

  const cycle = selfReferencingAlias(document, lineCounter);
  if (cycle !== undefined) {
    const message = `the alias *${cycle.name} is inside the value its anchor &${cycle.name} names, so that value would never end; copy the content instead`;
    return { ok: false, errors: [syntaxError(fileName, cycle, message)] };
  }

  try {
    const data = toPlainData(document, schema);
    // Aliases inside anchored values can nest the data deeper than the text.
    if (dataDeeperThan(data, MAX_NESTING_DEPTH)) return { ok: false, errors: [tooDeep(fileName)] };
    return { ok: true, data: deepFreeze(data), source };
  } catch (error: unknown) {
    if (error instanceof RangeError) return { ok: false, errors: [tooDeep(fileName)] }; // the call stack, through aliases
    // toJS throws for unresolved aliases and alias bombs; they are syntax problems of the file.
    const start = source.locate([]) ?? { line: 1, column: 1 };
    return { ok: false, errors: [syntaxError(fileName, start, error instanceof Error ? error.message : String(error))] };
  }
}

/**
 * Every schema and cross-key rule error of config data as written, located and sorted by
 * position; empty when the data is a valid config. Pure.
 */
export function configRuleErrors(data: unknown, source: ConfigSource, schema: ConfigSchema): ConfigError[] {
  const problems: Problem[] = [...schemaProblems(data, schema), ...mappingProblems(data), ...schema.rules.flatMap((rule) => rule(data))];
  return dedupe(problems.map((problem) => locateProblem(problem, source))).sort(compareConfigErrors);
}

/** The valid result for data that passed every check: defaults merged in, deep-frozen. */
export function configResult(data: unknown, source: ConfigSource, schema: ConfigSchema): ConfigResult {
  return { ok: true, config: applyConfigDefaults(data as VclusterConfigInput, schema.sections), source };
}

/**
 * Builds a located {@link ConfigError} for a problem another component found in a parsed config
 * (the patch engine's compile errors): the position is the value at `path`, or the nearest part
 * of it that exists in the text.
 */
export function configErrorAt(source: ConfigSource, path: ConfigPath, code: string, message: string): ConfigError {
  return locatedConfigError(source, { path, code, message });
}

/** A problem another component found in a config, for {@link locatedConfigError}. */
export interface ConfigProblem {
  /** Where: the value at this path (or the nearest part of it that exists in the text). */
  readonly path: ConfigPath;
  /** The component's stable code, e.g. `PATCH_EXPRESSION_SYNTAX`. */
  readonly code: string;
  /** What is wrong and what to do, without any position. */
  readonly message: string;
  /**
   * 1-based line and column inside the string value at `path` (a position inside an expression
   * or a patch path). The error then names that character's position in the file.
   */
  readonly inside?: SourcePosition;
}

/**
 * Builds a located {@link ConfigError} with exactly one file position: the character `inside`
 * the value when given, else the value at `path`, else the nearest part of it. In the rare case
 * that a position inside cannot be mapped to the file (see `ConfigSource.locateInside`), the
 * value's position is used and the message ends with where inside the value the problem is.
 */
export function locatedConfigError(source: ConfigSource, problem: ConfigProblem): ConfigError {
  const { path, inside } = problem;
  const exact = inside === undefined ? undefined : source.locateInside(path, inside);
  const position = exact ?? source.locate(path) ?? source.locateNearest(path);
  const unmapped =
    inside === undefined || exact !== undefined
      ? ''
      : ` (${inside.line > 1 ? `line ${inside.line}, ` : ''}column ${inside.column} inside the value)`;
  return {
    code: problem.code,
    path: formatConfigPath(path),
    file: source.fileName,
    line: position.line,
    column: position.column,
    message: `${problem.message}${unmapped}`,
  };
}

/** A problem before it is located (at the value by default, or the key naming it, or the nearest ancestor). */
type Problem = ConfigRuleProblem;

const MULTIPLE_DOCUMENTS = 'invalid YAML: the file holds more than one YAML document (a line with ---); vcluster.yaml is one document: remove the --- and what follows, or merge the documents';
/** The one error of a document nested deeper than {@link MAX_NESTING_DEPTH} levels. */
/** A YAML_SYNTAX error of the whole document at `at`: "invalid YAML: " + `message`. */
function syntaxError(fileName: string, at: { line: number; column: number }, message: string): ConfigError {
  return { code: ConfigErrorCode.YAML_SYNTAX, path: '', file: fileName, line: at.line, column: at.column, message: `invalid YAML: ${message}` };
}

function tooDeep(fileName: string): ConfigError {
  const message = `the document is nested more than ${MAX_NESTING_DEPTH} levels deep (lists, mappings, or aliases inside them); vcluster.yaml needs about ten: look for runs of [ or {, or aliases that include each other`;
  return syntaxError(fileName, { line: 1, column: 1 }, message);
}

function toPlainData(document: Document, schema: ConfigSchema): unknown {
  const data: unknown = document.toJS({ maxAliasCount: 100 });
  // An empty file, or one with only comments, is an empty config.
  return emptySectionsAsAbsent(data ?? {}, schema);
}

/**
 * Mapping sections that may be written empty (`endpoints:` with every child commented out): these
 * and each resource section of the schema.
 */
const SECTION_PATHS: readonly ConfigPath[] = [
  ['sync'],
  ['privateNodes'],
  ['sync', 'toHost'],
  ['sync', 'fromHost'],
  ['sync', 'toHost', 'namespaces'],
  ['sync', 'toHost', 'namespaces', 'mappings'],
  ['sync', 'toHost', 'namespaces', 'mappings', 'byName'],
];

/** The patch lists vcsync owns: each resource section's, and `sync.toHost.namespaces.patches`. */
function patchListPaths(schema: ConfigSchema): ConfigPath[] {
  return [...schema.sections.map((section) => [...sectionPatchesPath(section)]), ['sync', 'toHost', 'namespaces', 'patches']];
}

/**
 * An empty section (`endpoints:` with nothing under it) is null in YAML; vcluster (Go) reads it as
 * absent, so do we, instead of reporting "must be a mapping, got an empty value". Likewise a patch's
 * `labels:` written empty means `labels: {}`. Works on the freshly parsed data, which this module owns.
 */
function emptySectionsAsAbsent(data: unknown, schema: ConfigSchema): unknown {
  for (const path of [...SECTION_PATHS, ...schema.sections.map((section) => [...sectionPath(section)])]) {
    const parent = valueAtConfigPath(data, path.slice(0, -1));
    const key = path[path.length - 1];
    if (isJsonObject(parent) && typeof key === 'string' && key in parent && parent[key] === null) delete parent[key];
  }
  for (const listPath of patchListPaths(schema)) {
    const list = valueAtConfigPath(data, listPath);
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      if (isJsonObject(entry) && 'labels' in entry && entry['labels'] === null) entry['labels'] = {};
    }
  }
  return data;
}

function schemaProblems(data: unknown, schema: ConfigSchema): Problem[] {
  const validate = schema.validator();
  if (validate(data)) return [];
  return (validate.errors ?? []).map((error) => schemaProblem(error, data, schema));
}

function schemaProblem(error: ErrorObject, data: unknown, schema: ConfigSchema): Problem {
  const path = pointerToConfigPath(error.instancePath, data);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params['additionalProperty']);
      const hint = describeUnknownKey({ schema: schema.schema, data, path, key });
      return { code: hint.code, path: [...path, key], message: hint.message, at: 'key' };
    }
    case 'required': {
      const key = String(params['missingProperty']);
      return {
        code: ConfigErrorCode.MISSING_KEY,
        path: [...path, key],
        message: `is required but missing`,
        at: 'nearest',
      };
    }
    case 'type': {
      const expected = describeType(String(params['type']));
      const got = describeValue(error.data);
      const message =
        path.length === 0
          ? `the file must be a mapping of keys (like "sync:"), got ${got}`
          : `must be ${expected}, got ${got}`;
      return { code: ConfigErrorCode.INVALID_TYPE, path, message };
    }
    case 'minLength':
      return { code: ConfigErrorCode.INVALID_VALUE, path, message: 'must not be empty' };
    default:
      return { code: ConfigErrorCode.INVALID_VALUE, path, message: error.message ?? 'is not allowed here' };
  }
}

function mappingProblems(data: unknown): Problem[] {
  const namespacesPath = ['sync', 'toHost', 'namespaces'];
  const namespaces = valueAtConfigPath(data, namespacesPath);
  if (!isJsonObject(namespaces) || namespaces['enabled'] !== true) return [];
  const byNamePath = [...namespacesPath, 'mappings', 'byName'];
  const byName = valueAtConfigPath(data, byNamePath);
  if (byName !== undefined && !isJsonObject(byName)) return []; // the schema reports the type
  const entries = Object.entries(byName ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  if (entries.length === 0) {
    return [
      {
        code: ConfigErrorCode.NAMESPACE_MAPPING,
        path: byNamePath,
        message:
          'needs at least one mapping when sync.toHost.namespaces.enabled is true, e.g. byName: { "team-*": "${name}-team-*" }',
        at: 'nearest',
      },
    ];
  }
  return checkNamespaceMappings(Object.fromEntries(entries)).map((problem) => ({
    code: ConfigErrorCode.NAMESPACE_MAPPING,
    path: [...byNamePath, problem.virtualKey],
    message: problem.message,
    at: 'key',
  }));
}

function locateProblem(problem: Problem, source: ConfigSource): ConfigError {
  const located =
    problem.at === 'key'
      ? source.locateKey(problem.path)
      : problem.at === 'nearest'
        ? undefined
        : source.locate(problem.path);
  const position = located ?? source.locateNearest(problem.path);
  return {
    code: problem.code,
    path: formatConfigPath(problem.path),
    file: source.fileName,
    line: position.line,
    column: position.column,
    message: problem.message,
  };
}

function dedupe(errors: ConfigError[]): ConfigError[] {
  const seen = new Set<string>();
  return errors.filter((error) => {
    const key = `${error.code}\u0000${error.path}\u0000${error.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function describeType(type: string): string {
  switch (type) {
    case 'boolean':
      return 'a boolean (true or false)';
    case 'string':
      return 'a string';
    case 'array':
      return 'a list';
    case 'object':
      return 'a mapping (key: value)';
    case 'number':
    case 'integer':
      return 'a number';
    default:
      return type;
  }
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return JSON.stringify(shown);
  }
  return String(value);
}

/** Longest first line of a YAML error kept: the library quotes the offending token whole. */
const MAX_YAML_MESSAGE = 200;

function firstSentence(message: string): string {
  const firstLine = (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
  return firstLine.length > MAX_YAML_MESSAGE ? `${firstLine.slice(0, MAX_YAML_MESSAGE)}…` : firstLine;
}
