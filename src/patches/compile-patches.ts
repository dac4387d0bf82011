import { contextReads, unionReads, type ContextReads } from './context-fields.js';
import { checkExpression } from './expression-check.js';
import {
  PatchErrorCode,
  type ConfigPathSegments,
  type PatchError,
  type PatchErrorCodeValue,
} from './patch-errors.js';
import { formatPatchPath, isProtectedPath, parsePatchPath, pathsOverlap, type CompiledPath } from './patch-path.js';
import type { SandboxProgram } from './patch-sandbox.js';
import { buildFactorySource } from './sandbox-runtime.js';
import { isJsonObject } from '../apimachinery/index.js';

/** `patches[].reference` as written in the config. */
export interface PatchReferenceEntry {
  apiVersion?: string;
  apiVersionPath?: string;
  kind?: string;
  kindPath?: string;
  namePath?: string;
  namespacePath?: string;
}

/** One `patches[]` entry as written in the config (validated again here; the types are not trusted). */
export interface PatchEntry {
  path: string;
  expression?: string;
  reverseExpression?: string;
  reference?: PatchReferenceEntry;
  labels?: Record<string, never>;
}

/** `context.vcluster` inside expressions: the virtual cluster's name, namespace and config. */
export interface VClusterContext {
  /** The virtual cluster's name. */
  readonly name: string;
  /** Its namespace in the host cluster (also the host namespace of synced objects). */
  readonly namespace: string;
  /** Its configuration merged with defaults, as plain JSON data. */
  readonly config: Readonly<Record<string, unknown>>;
}

/** Options of {@link compilePatches}. */
export interface CompilePatchesOptions {
  /** Config path of the list, e.g. `sync.toHost.endpoints.patches`; prefixes every error. */
  configPath: string;
  /**
   * What expressions see as `context.vcluster`, and the names `virtualToHostDNS` uses. Default
   * `{ name: '', namespace: '', config: {} }` (enough for `vcsync validate`).
   */
  vcluster?: VClusterContext;
}

/** Fields every compiled patch has. */
interface CompiledPatchBase {
  /** Index in the config list. */
  readonly index: number;
  /** Config path of the entry, e.g. `sync.toHost.endpoints.patches[2]`. */
  readonly configPath: string;
  /** The parsed path. */
  readonly path: CompiledPath;
  /** The path in normal form (see `formatPatchPath`). */
  readonly pathText: string;
}

/**
 * An expression patch: `expression` (virtual → host), `reverseExpression` (host → virtual), or
 * both; at least one is set. With only `reverseExpression` it is a one-way host → virtual
 * transform (valid in vcluster too): nothing is patched on the way to the host.
 */
export interface ExpressionPatch extends CompiledPatchBase {
  readonly mode: 'expression';
  readonly expression: string | undefined;
  readonly reverseExpression: string | undefined;
}

/** A `reference` patch with its relative paths parsed. */
export interface ReferencePatch extends CompiledPatchBase {
  readonly mode: 'reference';
  readonly apiVersion: string | undefined;
  readonly apiVersionPath: CompiledPath | undefined;
  readonly kind: string | undefined;
  readonly kindPath: CompiledPath | undefined;
  readonly namePath: CompiledPath | undefined;
  readonly namespacePath: CompiledPath | undefined;
}

/** A `labels` patch. */
export interface LabelsPatch extends CompiledPatchBase {
  readonly mode: 'labels';
}

/** One compiled patch. */
export type CompiledPatch = ExpressionPatch | ReferencePatch | LabelsPatch;

/**
 * A compiled patch list: immutable, built once per config load, shared by every evaluation. The
 * sandbox loads `program` once per isolate.
 */
export interface PatchPlan {
  /** Config path of the list. */
  readonly configPath: string;
  /** `context.vcluster` for expressions. */
  readonly vcluster: VClusterContext;
  /** Every patch, in config order. */
  readonly patches: readonly CompiledPatch[];
  /** Expression patches, in config order. */
  readonly expressionPatches: readonly ExpressionPatch[];
  /** Reference and labels patches, in config order. */
  readonly hostPatches: readonly (ReferencePatch | LabelsPatch)[];
  /** The sandbox program of the expression patches; undefined when there are none. */
  readonly program: SandboxProgram | undefined;
  /**
   * Which per-object parts of `context` the forward expressions read (see `contextReads`): only
   * those cross into the sandbox with each object.
   */
  readonly forwardReads: ContextReads;
  /**
   * The forward expression patches (indexes into `expressionPatches`) in stages, in order: one
   * sandbox crossing per stage and object. A patch starts a new stage when its path overlaps one
   * in the current stage (it must see their writes) or when the stage holds a patch that can
   * change `metadata.name`/`namespace` (that fails the object before later patches run).
   */
  readonly stages: readonly (readonly number[])[];
}

/** Result of {@link compilePatches}: a plan, or every problem found (never just the first). */
export type CompilePatchesResult =
  | { readonly ok: true; readonly plan: PatchPlan }
  | { readonly ok: false; readonly errors: readonly PatchError[] };

const DEFAULT_VCLUSTER: VClusterContext = Object.freeze({ name: '', namespace: '', config: Object.freeze({}) });

/**
 * Compiles a patch list at config load: parses every path, checks every expression with acorn
 * (exactly one expression each), validates modes, duplicates and protected fields, and reports
 * all problems with their config path and, where it applies, line and column. Pure: no isolate
 * is touched; the returned plan carries the sandbox program as source text.
 */
export function compilePatches(entries: readonly unknown[], options: CompilePatchesOptions): CompilePatchesResult {
  const listPath = options.configPath;
  const listSegments = configPathSegments(listPath);
  const errors: PatchError[] = [];
  const patches: CompiledPatch[] = [];
  const seenPaths = new Map<string, number>();

  entries.forEach((raw, index) => {
    const at = (...rest: (string | number)[]): Location => ({ index, segments: [...listSegments, index, ...rest] });
    const report = (code: PatchErrorCodeValue, where: Location, reason: string, position?: { line: number; column: number }): void => {
      errors.push(makeError(code, where, reason, position));
    };
    if (!isJsonObject(raw)) {
      report(PatchErrorCode.ENTRY_INVALID, at(), 'each patch must be an object with a path and one of expression, reference or labels');
      return;
    }
    const before = errors.length;
    const path = compilePath(raw['path'], at('path'), report, true);
    if (path !== undefined) {
      const text = formatPatchPath(path);
      const first = seenPaths.get(text);
      if (first !== undefined) {
        report(PatchErrorCode.PATH_DUPLICATE, at('path'), `${text} is already patched by ${listPath}[${first}]; combine the two patches`);
      } else {
        seenPaths.set(text, index);
      }
    }

    const expression = stringField(raw, 'expression', at, report);
    const reverseExpression = stringField(raw, 'reverseExpression', at, report);
    if (expression !== undefined) checkExpressionField(expression, at('expression'), report);
    if (reverseExpression !== undefined) checkExpressionField(reverseExpression, at('reverseExpression'), report);

    // `expression` and `reverseExpression` are one mode; either alone is valid (vcluster's rule).
    const expressionFields = (['expression', 'reverseExpression'] as const).filter((field) => raw[field] !== undefined);
    const modes = [
      ...(expressionFields.length > 0 ? [expressionFields.join(' with ')] : []),
      ...(['reference', 'labels'] as const).filter((mode) => raw[mode] !== undefined),
    ];
    if (modes.length === 0) {
      report(PatchErrorCode.MODE_MISSING, at(), 'the patch sets no mode; set exactly one of expression (and/or reverseExpression), reference or labels');
    } else if (modes.length > 1) {
      report(PatchErrorCode.MODE_CONFLICT, at(),
        `the patch sets ${modes.join(' and ')}; set exactly one of expression (and/or reverseExpression), reference or labels`);
    }

    const reference = raw['reference'] === undefined ? undefined : compileReference(raw['reference'], at, report);
    if (raw['labels'] !== undefined && !(isJsonObject(raw['labels']) && Object.keys(raw['labels']).length === 0)) {
      report(PatchErrorCode.LABELS_INVALID, at('labels'), 'labels takes no settings; write labels: {} to treat the value as a label selector');
    }

    if (errors.length !== before || path === undefined) return;
    const base = { index, configPath: `${listPath}[${index}]`, path, pathText: formatPatchPath(path) };
    if (expression !== undefined || reverseExpression !== undefined) {
      patches.push(Object.freeze({ ...base, mode: 'expression' as const, expression, reverseExpression }));
    } else if (reference !== undefined) {
      patches.push(Object.freeze({ ...base, mode: 'reference' as const, ...reference }));
    } else {
      patches.push(Object.freeze({ ...base, mode: 'labels' as const }));
    }
  });

  if (errors.length > 0) return { ok: false, errors };
  const vcluster = options.vcluster ?? DEFAULT_VCLUSTER;
  const expressionPatches = patches.filter((p): p is ExpressionPatch => p.mode === 'expression');
  const plan: PatchPlan = Object.freeze({
    configPath: listPath,
    vcluster,
    patches: Object.freeze(patches),
    expressionPatches: Object.freeze(expressionPatches),
    hostPatches: Object.freeze(patches.filter((p): p is ReferencePatch | LabelsPatch => p.mode !== 'expression')),
    program: expressionPatches.length === 0 ? undefined : buildProgram(expressionPatches, vcluster),
    forwardReads: unionReads(expressionPatches.flatMap((patch) => (patch.expression === undefined ? [] : [contextReads(patch.expression)]))),
    stages: forwardStages(expressionPatches),
  });
  return { ok: true, plan };
}

interface Location {
  readonly index: number;
  readonly segments: ConfigPathSegments;
}

type Report = (code: PatchErrorCodeValue, where: Location, reason: string, position?: { line: number; column: number }) => void;

function buildProgram(patches: readonly ExpressionPatch[], vcluster: VClusterContext): SandboxProgram {
  // A reverse-only patch gets the identity as its forward function: the isolate never runs it
  // forward (it is in no stage), and reverses it one way (`oneWay`: no round trip to check).
  const factorySource = buildFactorySource(
    patches.map((patch) => ({ forward: patch.expression ?? 'value', reverse: patch.reverseExpression })),
  );
  const staticJson = JSON.stringify({
    vcluster,
    patches: patches.map((patch) => ({
      index: patch.index,
      path: patch.path,
      oneWay: patch.expression === undefined,
      forwardField: `${patch.configPath}.expression`,
      reverseField: `${patch.configPath}.reverseExpression`,
    })),
  });
  return Object.freeze({ factorySource, staticJson });
}

const IDENTITY_PATHS: readonly CompiledPath[] = [
  [{ kind: 'key', key: 'metadata' }, { kind: 'key', key: 'name' }],
  [{ kind: 'key', key: 'metadata' }, { kind: 'key', key: 'namespace' }],
];

function forwardStages(patches: readonly ExpressionPatch[]): number[][] {
  const stages: number[][] = [];
  let current: number[] = [];
  let closed = false;
  patches.forEach((patch, slot) => {
    // A reverse-only patch does nothing on the way to the host.
    if (patch.expression === undefined) return;
    if (closed || current.some((other) => pathsOverlap(patches[other]?.path ?? [], patch.path))) {
      stages.push(current);
      current = [];
    }
    current.push(slot);
    closed = IDENTITY_PATHS.some((identity) => pathsOverlap(identity, patch.path));
  });
  if (current.length > 0) stages.push(current);
  return stages;
}

function compilePath(raw: unknown, where: Location, report: Report, top: boolean): CompiledPath | undefined {
  if (typeof raw !== 'string') {
    report(PatchErrorCode.ENTRY_INVALID, where, raw === undefined
      ? 'path is required: the field to patch, e.g. metadata.annotations'
      : `must be a string such as metadata.annotations, got ${describeType(raw)}`);
    return undefined;
  }
  const parsed = parsePatchPath(raw);
  if (!parsed.ok) {
    report(PatchErrorCode.PATH_INVALID, where, parsed.reason, { line: 1, column: parsed.column });
    return undefined;
  }
  if (top && isProtectedPath(parsed.segments)) {
    report(PatchErrorCode.PATH_PROTECTED, where,
      `${formatPatchPath(parsed.segments)} cannot be patched: the syncer sets the host name and namespace`);
    return undefined;
  }
  return parsed.segments;
}

function stringField(raw: Record<string, unknown>, field: string, at: (...rest: string[]) => Location, report: Report): string | undefined {
  const value = raw[field];
  if (value === undefined || typeof value === 'string') return value;
  report(PatchErrorCode.ENTRY_INVALID, at(field), `must be a string holding a JavaScript expression, got ${describeType(value)}`);
  return undefined;
}

function checkExpressionField(text: string, where: Location, report: Report): void {
  const checked = checkExpression(text);
  if (checked.ok) return;
  const code = checked.kind === 'forbidden' ? PatchErrorCode.EXPRESSION_FORBIDDEN : PatchErrorCode.EXPRESSION_SYNTAX;
  report(code, where, checked.reason, { line: checked.line, column: checked.column });
}

type CompiledReference = Omit<ReferencePatch, keyof CompiledPatchBase | 'mode'>;

function compileReference(raw: unknown, at: (...rest: string[]) => Location, report: Report): CompiledReference | undefined {
  if (!isJsonObject(raw)) {
    report(PatchErrorCode.REFERENCE_INVALID, at('reference'), 'reference must be an object such as { apiVersion: v1, kind: Secret }');
    return undefined;
  }
  let valid = true;
  const text = (field: keyof PatchReferenceEntry): string | undefined => {
    const value = raw[field];
    if (value === undefined || typeof value === 'string') return value;
    report(PatchErrorCode.REFERENCE_INVALID, at('reference', field), `must be a string, got ${describeType(value)}`);
    valid = false;
    return undefined;
  };
  const relative = (field: 'apiVersionPath' | 'kindPath' | 'namePath' | 'namespacePath'): CompiledPath | undefined => {
    const value = text(field);
    if (value === undefined) return undefined;
    const compiled = compilePath(value, at('reference', field), report, false);
    if (compiled === undefined) valid = false;
    return compiled;
  };
  const reference: CompiledReference = {
    apiVersion: text('apiVersion'),
    apiVersionPath: relative('apiVersionPath'),
    kind: text('kind'),
    kindPath: relative('kindPath'),
    namePath: relative('namePath'),
    namespacePath: relative('namespacePath'),
  };
  if (raw['kind'] === undefined && raw['kindPath'] === undefined) {
    report(PatchErrorCode.REFERENCE_INVALID, at('reference'), 'reference needs kind (or kindPath): the kind of the referenced object, e.g. Secret');
    valid = false;
  }
  return valid ? reference : undefined;
}

function makeError(code: PatchErrorCodeValue, where: Location, reason: string, position?: { line: number; column: number }): PatchError {
  const configPath = formatConfigPath(where.segments);
  const line = position?.line ?? 0;
  const column = position?.column ?? 0;
  const place = position === undefined ? '' : line > 1 ? `line ${line}, column ${column}: ` : `column ${column}: `;
  return Object.freeze({
    code,
    patchIndex: where.index,
    configPath,
    configPathSegments: Object.freeze([...where.segments]),
    line,
    column,
    reason,
    message: `${configPath}: ${place}${reason}`,
  });
}

const PLAIN_CONFIG_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Renders config path segments: `sync.toHost.endpoints.patches[2].expression`. */
export function formatConfigPath(segments: ConfigPathSegments): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_CONFIG_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Splits a config path such as `sync.toHost.endpoints.patches` (or `a["b.c"][0]`) into segments. */
export function configPathSegments(configPath: string): (string | number)[] {
  if (configPath === '') return [];
  const parsed = parsePatchPath(configPath);
  if (!parsed.ok) return [configPath];
  return parsed.segments.map((segment) =>
    segment.kind === 'index' ? segment.index : segment.kind === 'key' ? segment.key : '*',
  );
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`;
}
