import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { applyConfigDefaults } from './config-defaults.js';
import { compareConfigErrors, ConfigErrorCode, type ConfigError } from './config-error.js';
import { formatConfigPath, pointerToConfigPath, type ConfigPath } from './config-path.js';
import { createConfigSource, type ConfigSource } from './config-source.js';
import { checkNamespaceMappings } from './namespace-mapping-rules.js';
import { vclusterConfigSchema, type VclusterConfig, type VclusterConfigInput } from './schema.js';

/** The outcome of parsing a config: the merged, frozen config with its source, or every error. */
export type ConfigResult =
  | { readonly ok: true; readonly config: VclusterConfig; readonly source: ConfigSource }
  | { readonly ok: false; readonly errors: readonly ConfigError[] };

/**
 * Parses vcluster.yaml text: YAML syntax, the schema (types, unknown keys in the sections vcsync
 * owns), patch modes and duplicate paths, and the namespace mapping rules. Returns every error
 * found, each located (file:line:column) and sorted by position; or the config with defaults
 * merged in and deep-frozen. An empty file (or one with only comments) is valid: all defaults.
 * Pure apart from CPU: no I/O.
 */
export function parseConfig(text: string, fileName: string): ConfigResult {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const source = createConfigSource({ fileName, text, document, lineCounter });

  if (document.errors.length > 0) {
    const errors = document.errors.map((error): ConfigError => {
      const pos = error.linePos?.[0];
      return {
        code: ConfigErrorCode.YAML_SYNTAX,
        path: '',
        file: fileName,
        line: pos?.line ?? 1,
        column: pos?.col ?? 1,
        message: `invalid YAML: ${firstSentence(error.message)}`,
      };
    });
    return { ok: false, errors: errors.sort(compareConfigErrors) };
  }

  let data: unknown;
  try {
    data = toPlainData(document);
  } catch (error: unknown) {
    // toJS throws for unresolved aliases and alias bombs; they are syntax problems of the file.
    const start = source.locate([]) ?? { line: 1, column: 1 };
    return {
      ok: false,
      errors: [
        {
          code: ConfigErrorCode.YAML_SYNTAX,
          path: '',
          file: fileName,
          line: start.line,
          column: start.column,
          message: `invalid YAML: ${error instanceof Error ? error.message : String(error)}`,
        },
      ],
    };
  }

  const problems: Problem[] = [...schemaProblems(data), ...mappingProblems(data)];
  if (problems.length > 0) {
    const errors = problems.map((problem) => locateProblem(problem, source));
    return { ok: false, errors: dedupe(errors).sort(compareConfigErrors) };
  }
  return { ok: true, config: applyConfigDefaults(data as VclusterConfigInput), source };
}

/**
 * Builds a located {@link ConfigError} for a problem another component found in a parsed config
 * (the patch engine's compile errors): the position is the value at `path`, or the nearest part
 * of it that exists in the text.
 */
export function configErrorAt(source: ConfigSource, path: ConfigPath, code: string, message: string): ConfigError {
  const position = source.locate(path) ?? source.locateNearest(path);
  return {
    code,
    path: formatConfigPath(path),
    file: source.fileName,
    line: position.line,
    column: position.column,
    message,
  };
}

interface Problem {
  readonly code: string;
  readonly path: ConfigPath;
  readonly message: string;
  /** Which position to report: the value (default), the key naming it, or the nearest ancestor. */
  readonly at?: 'value' | 'key' | 'nearest';
}

let compiledValidator: ValidateFunction | undefined;

function validator(): ValidateFunction {
  // Compiled on first use rather than at import, so importing the module costs nothing.
  compiledValidator ??= new Ajv({ allErrors: true, verbose: true, strict: true }).compile(vclusterConfigSchema);
  return compiledValidator;
}

function toPlainData(document: Document): unknown {
  const data: unknown = document.toJS({ maxAliasCount: 100 });
  // An empty file, or one with only comments, is an empty config.
  return emptySectionsAsAbsent(data ?? {});
}

/** Mapping sections that may be written empty (`endpoints:` with every child commented out). */
const SECTION_PATHS: readonly ConfigPath[] = [
  ['sync'],
  ['sync', 'toHost'],
  ['sync', 'toHost', 'endpoints'],
  ['sync', 'toHost', 'namespaces'],
  ['sync', 'toHost', 'namespaces', 'mappings'],
  ['sync', 'toHost', 'namespaces', 'mappings', 'byName'],
];

/**
 * An empty section (`endpoints:` with nothing under it) is null in YAML; vcluster (Go) reads it as
 * absent, so do we, instead of reporting "must be a mapping, got an empty value". Likewise a patch's
 * `labels:` written empty means `labels: {}`. Works on the freshly parsed data, which this module owns.
 */
function emptySectionsAsAbsent(data: unknown): unknown {
  for (const path of SECTION_PATHS) {
    const parent = valueAt(data, path.slice(0, -1));
    const key = path[path.length - 1];
    if (isRecord(parent) && typeof key === 'string' && key in parent && parent[key] === null) delete parent[key];
  }
  for (const listPath of PATCH_LISTS) {
    const list = valueAt(data, listPath);
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      if (isRecord(entry) && 'labels' in entry && entry['labels'] === null) entry['labels'] = {};
    }
  }
  return data;
}

function schemaProblems(data: unknown): Problem[] {
  const validate = validator();
  if (validate(data)) return [];
  return (validate.errors ?? []).map((error) => schemaProblem(error, data));
}

function schemaProblem(error: ErrorObject, data: unknown): Problem {
  const path = pointerToConfigPath(error.instancePath, data);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params['additionalProperty']);
      const properties = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
      const allowed = Object.keys(properties ?? {});
      const hint = allowed.length > 0 ? `allowed keys: ${allowed.join(', ')}` : 'this mapping takes no keys ({})';
      return { code: ConfigErrorCode.UNKNOWN_KEY, path: [...path, key], message: `unknown key; ${hint}`, at: 'key' };
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

const PATCH_LISTS: readonly ConfigPath[] = [
  ['sync', 'toHost', 'endpoints', 'patches'],
  ['sync', 'toHost', 'namespaces', 'patches'],
];

function mappingProblems(data: unknown): Problem[] {
  const namespacesPath = ['sync', 'toHost', 'namespaces'];
  const namespaces = valueAt(data, namespacesPath);
  if (!isRecord(namespaces) || namespaces['enabled'] !== true) return [];
  const byNamePath = [...namespacesPath, 'mappings', 'byName'];
  const byName = valueAt(data, byNamePath);
  if (byName !== undefined && !isRecord(byName)) return []; // the schema reports the type
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

function valueAt(data: unknown, path: ConfigPath): unknown {
  let current = data;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isRecord(current) && typeof segment === 'string') current = current[segment];
    else return undefined;
  }
  return current;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

function firstSentence(message: string): string {
  const firstLine = message.split('\n')[0] ?? message;
  return firstLine.replace(/ at line \d+, column \d+:?$/, '');
}
