import type { PatchPlan } from './compile-patches.js';
import {
  PatchEvaluationError,
  PatchEvaluationErrorCode,
  type PatchEvaluationErrorCodeValue,
} from './patch-errors.js';
import type { AppliedPatch, SkippedPatch } from './patch-result.js';
import type { PatchSandbox, SandboxFailure, SandboxFailureKind } from './patch-sandbox.js';
import { isJsonObject } from '../apimachinery/index.js';

/** What the sandbox runtime answers for one object. */
export interface ProgramOutput {
  readonly object: unknown;
  readonly applied: readonly AppliedPatch[];
  readonly skipped: readonly SkippedPatch[];
}

/** The reverse request the runtime understands (one whole object). */
export interface ProgramInput {
  readonly object: unknown;
  readonly hostObject: unknown;
  readonly virtualObject: unknown;
  readonly lastSyncedHostObject: unknown;
}

const RUNTIME_CODES = new Set<string>([
  PatchEvaluationErrorCode.THREW,
  PatchEvaluationErrorCode.RESULT_NOT_JSON,
  PatchEvaluationErrorCode.PROTECTED_FIELD,
]);

const FAILURE_CODES: Record<SandboxFailureKind, PatchEvaluationErrorCodeValue> = {
  timeout: PatchEvaluationErrorCode.TIMEOUT,
  'memory-limit': PatchEvaluationErrorCode.MEMORY_LIMIT,
  rejected: PatchEvaluationErrorCode.THREW,
  unavailable: PatchEvaluationErrorCode.SANDBOX_UNAVAILABLE,
};

/**
 * Runs the plan's reverse expressions on one object in a single sandbox call (JSON in, JSON out)
 * and turns every failure into a {@link PatchEvaluationError}. (Forward expressions:
 * forward-expressions.ts.)
 */
export async function runProgram(
  plan: PatchPlan,
  sandbox: PatchSandbox,
  input: ProgramInput,
): Promise<{ ok: true; output: ProgramOutput } | { ok: false; error: PatchEvaluationError }> {
  const program = plan.program;
  if (program === undefined) return { ok: true, output: { object: input.object, applied: [], skipped: [] } };
  const answer = await sandbox.run(program, JSON.stringify(input));
  if (!answer.ok) return { ok: false, error: sandboxFailureError(plan, answer) };
  // The string comes out of the isolate; it is produced by the runtime's own captured
  // JSON.stringify, but it is still parsed as untrusted data.
  const parsed: unknown = JSON.parse(answer.outputJson);
  if (!isJsonObject(parsed)) return { ok: false, error: malformedAnswer(plan) };
  if (parsed['ok'] !== true) {
    const code = typeof parsed['code'] === 'string' && RUNTIME_CODES.has(parsed['code'])
      ? (parsed['code'] as PatchEvaluationErrorCodeValue)
      : PatchEvaluationErrorCode.THREW;
    const field = typeof parsed['field'] === 'string' && parsed['field'] !== '' ? parsed['field'] : plan.configPath;
    return {
      ok: false,
      error: new PatchEvaluationError({
        code,
        patchIndex: typeof parsed['patchIndex'] === 'number' ? parsed['patchIndex'] : -1,
        configPath: field,
        objectPath: typeof parsed['objectPath'] === 'string' ? parsed['objectPath'] : '',
        detail: typeof parsed['detail'] === 'string' ? parsed['detail'] : 'the expression failed',
      }),
    };
  }
  const applied = parsed['applied'];
  const skipped = parsed['skipped'];
  if (!Array.isArray(applied) || !Array.isArray(skipped) || !isJsonObject(parsed['object'])) {
    return { ok: false, error: malformedAnswer(plan) };
  }
  return {
    ok: true,
    output: {
      object: parsed['object'],
      applied: applied as AppliedPatch[],
      skipped: skipped as SkippedPatch[],
    },
  };
}

/** The error of an object whose sandbox call got no answer (timeout, memory limit, no sandbox). */
export function sandboxFailureError(plan: PatchPlan, failure: SandboxFailure): PatchEvaluationError {
  return new PatchEvaluationError({
    code: FAILURE_CODES[failure.kind],
    patchIndex: -1,
    configPath: plan.configPath,
    objectPath: '',
    detail: failure.detail,
  });
}

/** The error of an object whose sandbox answer has not the runtime's shape. */
export function malformedAnswer(plan: PatchPlan): PatchEvaluationError {
  return new PatchEvaluationError({
    code: PatchEvaluationErrorCode.SANDBOX_UNAVAILABLE,
    patchIndex: -1,
    configPath: plan.configPath,
    objectPath: '',
    detail: 'the sandbox runtime returned a malformed answer',
  });
}

