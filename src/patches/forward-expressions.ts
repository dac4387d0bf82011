import type { PatchPlan } from './compile-patches.js';
import { isJsonObject, jsonEqual } from '../apimachinery/index.js';
import { PatchEvaluationError, PatchEvaluationErrorCode, type PatchEvaluationErrorCodeValue } from './patch-errors.js';
import type { AppliedPatch } from './patch-result.js';
import type { PatchSandbox } from './patch-sandbox.js';
import { type ConcretePath, defineValue, formatConcretePath, matchPath } from './path-match.js';
import { malformedAnswer, sandboxFailureError } from './run-program.js';

/** Inputs of {@link runForwardExpressions}; none of them is modified. */
export interface ForwardExpressionsInput {
  /** The object the expression patches change (after reference and labels patches). */
  readonly object: Record<string, unknown>;
  readonly hostObject: unknown;
  readonly virtualObject: unknown;
  /** Build an `applied` record per location (preview, tests); the syncer does not need them. */
  readonly record: boolean;
}

/** Outcome of {@link runForwardExpressions}. */
export type ForwardExpressionsResult =
  | {
      readonly ok: true;
      readonly object: Record<string, unknown>;
      readonly applied: readonly AppliedPatch[];
      /** Indexes of the patches that set or removed a value somewhere (whether or not `record`). */
      readonly changed: ReadonlySet<number>;
    }
  | { readonly ok: false; readonly error: PatchEvaluationError };

interface Location {
  readonly slot: number;
  readonly at: ConcretePath;
  readonly value: unknown;
}

const RUNTIME_CODES = new Set<string>([PatchEvaluationErrorCode.THREW, PatchEvaluationErrorCode.RESULT_NOT_JSON]);

/**
 * The forward expression patches of one object. This side matches the paths (path-match.ts),
 * compares the results and writes them back; only what the expressions need crosses into the
 * sandbox: per location its patch slot, its value and (when an expression reads `context.path`)
 * its path, plus `context.hostObject` / `context.virtualObject` only when an expression reads
 * them (`plan.forwardReads`). One crossing per stage (`plan.stages`), shared with the objects
 * other callers evaluate in the same turn of the event loop.
 *
 * The result is copy-on-write: containers along written paths are new, everything else is shared
 * with `input.object` (callers treat patched objects as immutable).
 */
export async function runForwardExpressions(
  plan: PatchPlan,
  sandbox: PatchSandbox,
  input: ForwardExpressionsInput,
): Promise<ForwardExpressionsResult> {
  const program = plan.program;
  if (program === undefined) return { ok: true, object: { ...input.object }, applied: [], changed: new Set() };
  const reads = plan.forwardReads;
  const head = `[${reads.hostObject ? JSON.stringify(input.hostObject ?? null) : 'null'},${reads.virtualObject ? JSON.stringify(input.virtualObject ?? null) : 'null'}`;
  const target = new CopyOnWrite(input.object);
  const [name, namespace] = identityOf(input.object);
  const applied: AppliedPatch[] = [];
  const changed = new Set<number>();
  for (const stage of plan.stages) {
    const locations: Location[] = [];
    let item = head;
    for (const slot of stage) {
      const patch = plan.expressionPatches[slot];
      if (patch === undefined) continue;
      for (const match of matchPath(target.root, patch.path)) {
        // JSON has no undefined: such a member is not there for the patches (nor in what is written).
        if (isProtectedLocation(match.path) || match.value === undefined) continue;
        locations.push({ slot, at: match.path, value: match.value });
        item += `,${slot},${reads.path ? JSON.stringify(formatConcretePath(match.path)) : '""'},${JSON.stringify(match.value)}`;
      }
    }
    if (locations.length === 0) continue;
    const answer = await sandbox.evaluate(program, `${item}]`);
    if (!answer.ok) return { ok: false, error: sandboxFailureError(plan, answer) };
    const results = answer.answer;
    if (!Array.isArray(results)) return { ok: false, error: malformedAnswer(plan) };
    if (results[0] !== 1) return { ok: false, error: runtimeError(plan, results, locations) };
    if (results.length !== locations.length + 1) return { ok: false, error: malformedAnswer(plan) };
    let next = 0;
    for (const slot of stage) {
      const patch = plan.expressionPatches[slot];
      if (patch === undefined) continue;
      const removals: ConcretePath[] = [];
      for (; next < locations.length && locations[next]?.slot === slot; next += 1) {
        const location = locations[next] as Location;
        const result: unknown = results[next + 1];
        let outcome: AppliedPatch['outcome'] = 'unchanged';
        if (result === null) {
          removals.push(location.at);
          outcome = 'removed';
        } else if (!jsonEqual(location.value, result)) {
          target.set(location.at, result);
          outcome = 'set';
        }
        if (outcome !== 'unchanged') changed.add(patch.index);
        if (input.record) applied.push({ patchIndex: patch.index, path: formatConcretePath(location.at), outcome });
      }
      target.remove(removals);
      if (removals.length > 0) target.endStage();
      const [newName, newNamespace] = identityOf(target.root);
      if (newName !== name || newNamespace !== namespace) {
        return {
          ok: false,
          error: new PatchEvaluationError({
            code: PatchEvaluationErrorCode.PROTECTED_FIELD,
            patchIndex: patch.index,
            configPath: `${patch.configPath}.expression`,
            objectPath: '',
            detail: 'the patch changed metadata.name or metadata.namespace, which only the syncer sets',
          }),
        };
      }
    }
  }
  return { ok: true, object: target.root, applied, changed };
}

// `[0, code, location, detail]` from the runtime: the first location that failed.
function runtimeError(plan: PatchPlan, answer: readonly unknown[], locations: readonly Location[]): PatchEvaluationError {
  const [, code, index, detail] = answer;
  const location = typeof index === 'number' ? locations[index] : undefined;
  const patch = location === undefined ? undefined : plan.expressionPatches[location.slot];
  return new PatchEvaluationError({
    code: typeof code === 'string' && RUNTIME_CODES.has(code) ? (code as PatchEvaluationErrorCodeValue) : PatchEvaluationErrorCode.THREW,
    patchIndex: patch?.index ?? -1,
    configPath: patch === undefined ? plan.configPath : `${patch.configPath}.expression`,
    objectPath: location === undefined ? '' : formatConcretePath(location.at),
    detail: typeof detail === 'string' ? detail : 'the expression failed',
  });
}

const isProtectedLocation = (at: ConcretePath): boolean =>
  at.length === 2 && at[0] === 'metadata' && (at[1] === 'name' || at[1] === 'namespace');

function identityOf(object: Record<string, unknown>): [unknown, unknown] {
  const metadata = object['metadata'];
  return isJsonObject(metadata) ? [metadata['name'], metadata['namespace']] : [undefined, undefined];
}

/**
 * Writes into an object without modifying it: the first write through a container copies it
 * (shallowly) into the new tree; containers no write passes through stay shared. The copies are
 * remembered by path, so call `endStage()` once array elements were removed (indexes move).
 */
class CopyOnWrite {
  readonly root: Record<string, unknown>;
  #copies: CopyNode;

  constructor(object: Record<string, unknown>) {
    this.root = { ...object };
    this.#copies = { container: this.root, children: undefined };
  }

  /** Forgets which paths were copied (the copies stay in the tree, a later write copies again). */
  endStage(): void {
    this.#copies = { container: this.root, children: undefined };
  }

  /** Replaces the value at an existing location. */
  set(at: ConcretePath, value: unknown): void {
    const parent = this.#parentOf(at);
    const key = at[at.length - 1];
    if (Array.isArray(parent) && typeof key === 'number') parent[key] = value;
    else if (isJsonObject(parent) && typeof key === 'string') setKey(parent, key, value);
  }

  /**
   * Removes existing locations of one patch: map keys are deleted; array elements are removed
   * after that, highest index first, so the indexes found before refer to the array as it was.
   */
  remove(locations: readonly ConcretePath[]): void {
    const splices: { parent: unknown[]; index: number }[] = [];
    for (const at of locations) {
      const parent = this.#parentOf(at);
      const key = at[at.length - 1];
      if (Array.isArray(parent) && typeof key === 'number') splices.push({ parent, index: key });
      else if (isJsonObject(parent) && typeof key === 'string') delete parent[key];
    }
    splices.sort((a, b) => b.index - a.index);
    for (const { parent, index } of splices) parent.splice(index, 1);
  }

  // The container holding `at`'s last step, copied (with every container above it) on first use.
  #parentOf(at: ConcretePath): unknown {
    let node = this.#copies;
    for (let depth = 0; depth < at.length - 1; depth += 1) {
      const step = at[depth] as string | number;
      let next = node.children?.get(step);
      if (next === undefined) {
        const container = node.container as Record<string | number, unknown>;
        const child = container[step];
        if (typeof child !== 'object' || child === null) return undefined;
        const copy = Array.isArray(child) ? [...(child as unknown[])] : { ...(child as Record<string, unknown>) };
        if (Array.isArray(container)) container[step as number] = copy;
        else setKey(container, step as string, copy);
        next = { container: copy, children: undefined };
        (node.children ??= new Map()).set(step, next);
      }
      node = next;
    }
    return node.container;
  }
}

interface CopyNode {
  readonly container: object;
  children: Map<string | number, CopyNode> | undefined;
}

// The key exists already (it was matched): assignment writes it, except `__proto__`, whose
// assignment would invoke the prototype setter.
function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') defineValue(target, key, value);
  else target[key] = value;
}
