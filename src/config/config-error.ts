/**
 * The catalogue of configuration error codes. Codes are stable: tests, tools and other components
 * (the patch engine adds its own `PATCH_*` codes to the same `ConfigError` shape) match on them,
 * never on message text.
 */
export const ConfigErrorCode = {
  /** The file could not be read (missing, unreadable, a directory). */
  READ_FAILED: 'CONFIG_READ_FAILED',
  /** The text is not valid YAML (syntax, duplicate keys, bad indentation). */
  YAML_SYNTAX: 'CONFIG_YAML_SYNTAX',
  /** A value has the wrong type (a string where a boolean belongs, …). */
  INVALID_TYPE: 'CONFIG_INVALID_TYPE',
  /** A key that does not exist in a mapping vcsync checks (usually a typo; the message may suggest one). */
  UNKNOWN_KEY: 'CONFIG_UNKNOWN_KEY',
  /**
   * A key that belongs one level down or up (usually wrong indentation: `patches` under
   * `sync.toHost` instead of `sync.toHost.endpoints`); the message says where it belongs.
   */
  MISPLACED_KEY: 'CONFIG_MISPLACED_KEY',
  /** A required key is absent. */
  MISSING_KEY: 'CONFIG_MISSING_KEY',
  /** A value has the right type but is not allowed (empty string, …). */
  INVALID_VALUE: 'CONFIG_INVALID_VALUE',
  /** A `sync.toHost.namespaces.mappings.byName` entry breaks the mapping rules. */
  NAMESPACE_MAPPING: 'CONFIG_NAMESPACE_MAPPING',
  /**
   * Two settings that cannot be used together: a resource sync that needs host nodes (e.g.
   * `sync.toHost.endpoints.enabled`, true by default) with private nodes
   * (`privateNodes.enabled: true`).
   */
  INCOMPATIBLE_SETTINGS: 'CONFIG_INCOMPATIBLE_SETTINGS',
  /** A valid change the running daemon cannot apply without a restart (reported on reload only). */
  NEEDS_RESTART: 'CONFIG_NEEDS_RESTART',
  /**
   * The file holds nothing but white space on reload (reported on reload only; at start an empty
   * file means all defaults): what a non-atomic save looks like half-way, so it is never applied.
   */
  EMPTY_ON_RELOAD: 'CONFIG_EMPTY_ON_RELOAD',
} as const;

/** One of the codes in {@link ConfigErrorCode}. */
export type ConfigErrorCodeValue = (typeof ConfigErrorCode)[keyof typeof ConfigErrorCode];

/**
 * One problem in a config file, located. `line` and `column` are 1-based; both are 0 when the
 * problem has no position in the text (the file could not be read).
 */
export interface ConfigError {
  /** Stable code: one of {@link ConfigErrorCode}, or another component's code (e.g. `PATCH_*`). */
  readonly code: string;
  /** The YAML path, e.g. `sync.toHost.endpoints.patches[2].expression`; `''` for the whole file. */
  readonly path: string;
  /** The file name as given to the parser. */
  readonly file: string;
  /** 1-based line, 0 when unknown. */
  readonly line: number;
  /** 1-based column, 0 when unknown. */
  readonly column: number;
  /** What was wrong and what is allowed, e.g. `must be a boolean (true or false), got "yes"`. */
  readonly message: string;
}

/**
 * Formats an error the way compilers do, so editors and terminals can jump to it:
 * `config/vcluster.yaml:14:9 sync.toHost.endpoints.enabled: must be a boolean (true or false), got "yes"`.
 */
export function formatConfigError(error: ConfigError): string {
  const where = error.line > 0 ? `${error.file}:${error.line}:${error.column}` : error.file;
  return error.path === '' ? `${where} ${error.message}` : `${where} ${error.path}: ${error.message}`;
}

/** Orders errors by position in the file, then by path, so output is stable and reads top-down. */
export function compareConfigErrors(a: ConfigError, b: ConfigError): number {
  return a.line - b.line || a.column - b.column || a.path.localeCompare(b.path);
}
