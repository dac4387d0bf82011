/**
 * The patch engine's error catalogue. Two families, both with stable codes that callers match on
 * (never on message text):
 *
 * - {@link PatchError}: a problem in the patch configuration, found once at config load by
 *   `compilePatches`. Plain data, located by config path (string and segments) and, for paths and
 *   expressions, by line and column inside the offending string.
 * - {@link PatchEvaluationError}: running a compiled plan on one object failed (timeout, memory
 *   limit, a thrown error, a non-JSON result, …). Returned as data by `applyPatches` /
 *   `reversePatches`; the syncer decides about retries, logs, metrics and events.
 */

/** Codes of configuration problems found by `compilePatches`. */
export const PatchErrorCode = {
  /** The entry is not an object, or a field has the wrong type (e.g. `path: 3`). */
  ENTRY_INVALID: 'PATCH_ENTRY_INVALID',
  /** The path (or a reference's relative path) does not parse. */
  PATH_INVALID: 'PATCH_PATH_INVALID',
  /** The path targets `metadata.name` or `metadata.namespace`, which the syncer owns. */
  PATH_PROTECTED: 'PATCH_PATH_PROTECTED',
  /** Two patches of one list target the same path (after normalising its spelling). */
  PATH_DUPLICATE: 'PATCH_PATH_DUPLICATE',
  /** The patch sets none of `expression` / `reverseExpression`, `reference`, `labels`. */
  MODE_MISSING: 'PATCH_MODE_MISSING',
  /** The patch sets more than one of `expression` (and/or `reverseExpression`), `reference`, `labels`. */
  MODE_CONFLICT: 'PATCH_MODE_CONFLICT',
  /** The expression is not exactly one JavaScript expression (syntax error, trailing code, …). */
  EXPRESSION_SYNTAX: 'PATCH_EXPRESSION_SYNTAX',
  /** The expression parses but uses a construct the sandbox forbids (`import()`). */
  EXPRESSION_FORBIDDEN: 'PATCH_EXPRESSION_FORBIDDEN',
  /** The `reference` block is incomplete (no kind) or has a field of the wrong type. */
  REFERENCE_INVALID: 'PATCH_REFERENCE_INVALID',
  /** `labels` is not an empty object. */
  LABELS_INVALID: 'PATCH_LABELS_INVALID',
} as const;

/** One of the values of {@link PatchErrorCode}. */
export type PatchErrorCodeValue = (typeof PatchErrorCode)[keyof typeof PatchErrorCode];

/** A path into the config document: map keys are strings, list indexes are numbers. */
export type ConfigPathSegments = readonly (string | number)[];

/**
 * One configuration problem of a patch list. `message` is complete and ready to print, e.g.
 * `sync.toHost.endpoints.patches[2].expression: column 7: Unexpected token; an expression must be
 * a single JavaScript expression such as value + "-suffix"`.
 */
export interface PatchError {
  /** Stable code from {@link PatchErrorCode}. */
  readonly code: PatchErrorCodeValue;
  /** Index of the patch in its list. */
  readonly patchIndex: number;
  /** The config path of the offending field, e.g. `sync.toHost.endpoints.patches[2].expression`. */
  readonly configPath: string;
  /** The same path as segments (`['sync','toHost','endpoints','patches',2,'expression']`), for YAML line lookup. */
  readonly configPathSegments: ConfigPathSegments;
  /** 1-based line inside the offending string (path or expression); 0 when not about a position. */
  readonly line: number;
  /** 1-based column inside that line; 0 when not about a position. */
  readonly column: number;
  /** What is wrong and what is allowed, without the location prefix. */
  readonly reason: string;
  /** `<configPath>: [line L, ]column C: <reason>` (the position part only when known). */
  readonly message: string;
}

/** Codes of failures while evaluating a plan on one object. */
export const PatchEvaluationErrorCode = {
  /** The evaluation of one object ran longer than the sandbox's `timeoutMs`. */
  TIMEOUT: 'PATCH_EVAL_TIMEOUT',
  /** The sandbox isolate exceeded its memory limit; it was discarded and is replaced on the next call. */
  MEMORY_LIMIT: 'PATCH_EVAL_MEMORY_LIMIT',
  /** The expression threw (including ReferenceError for unknown names, TypeError, …). */
  THREW: 'PATCH_EVAL_THREW',
  /** The result is not JSON data (function, symbol, BigInt, cycle, NaN, class instance, …). */
  RESULT_NOT_JSON: 'PATCH_EVAL_RESULT_NOT_JSON',
  /** A patch changed `metadata.name` or `metadata.namespace` (e.g. by replacing `metadata`). */
  PROTECTED_FIELD: 'PATCH_EVAL_PROTECTED_FIELD',
  /** A `reference` patch found a value that is neither a name nor an object. */
  REFERENCE_INVALID: 'PATCH_EVAL_REFERENCE_INVALID',
  /** A `labels` patch found a value that is not a label map or a label selector. */
  LABELS_INVALID: 'PATCH_EVAL_LABELS_INVALID',
  /** The sandbox could not run (disposed by its owner, isolate lost for another reason). */
  SANDBOX_UNAVAILABLE: 'PATCH_EVAL_SANDBOX_UNAVAILABLE',
} as const;

/** One of the values of {@link PatchEvaluationErrorCode}. */
export type PatchEvaluationErrorCodeValue =
  (typeof PatchEvaluationErrorCode)[keyof typeof PatchEvaluationErrorCode];

/** Fields of a {@link PatchEvaluationError}. */
export interface PatchEvaluationErrorInit {
  /** Stable code from {@link PatchEvaluationErrorCode}. */
  code: PatchEvaluationErrorCodeValue;
  /** Index of the failing patch in its list; -1 when the failure is not tied to one patch (timeout, memory limit). */
  patchIndex: number;
  /** Config path of the failing patch field (e.g. `…patches[1].expression`), or of the list when `patchIndex` is -1. */
  configPath: string;
  /** The concrete object path being evaluated when it failed, e.g. `subsets[0].addresses[2].ip`; `''` when unknown. */
  objectPath: string;
  /** What went wrong, e.g. `TypeError: Cannot read properties of undefined (reading 'x')`. */
  detail: string;
  /** The underlying error, when there is one in this realm. */
  cause?: unknown;
}

/**
 * Running a patch plan on one object failed. Nothing of the object was changed (results are all or
 * nothing per object). The error is data: `applyPatches` / `reversePatches` return it rather than
 * throw, so the syncer can retry with backoff, count it and record an event.
 */
export class PatchEvaluationError extends Error {
  /** Stable code from {@link PatchEvaluationErrorCode}. */
  readonly code: PatchEvaluationErrorCodeValue;
  /** Index of the failing patch, -1 when not tied to one patch. */
  readonly patchIndex: number;
  /** Config path of the failing patch field, or of the whole list. */
  readonly configPath: string;
  /** Concrete object path under evaluation, `''` when unknown. */
  readonly objectPath: string;
  /** The failure without location, e.g. `TypeError: x is not a function`. */
  readonly detail: string;

  /** Builds the error; `message` is `<configPath>: <detail>` plus ` (at <objectPath>)` when known. */
  constructor(init: PatchEvaluationErrorInit) {
    const at = init.objectPath === '' ? '' : ` (at ${init.objectPath})`;
    super(`${init.configPath}: ${init.detail}${at}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'PatchEvaluationError';
    this.code = init.code;
    this.patchIndex = init.patchIndex;
    this.configPath = init.configPath;
    this.objectPath = init.objectPath;
    this.detail = init.detail;
  }
}
