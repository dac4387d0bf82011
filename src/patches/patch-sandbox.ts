import ivm from 'isolated-vm';
import { silentLogger, type Logger } from '../observe/logger.js';
import { sandboxSources, type SandboxSources } from './sandbox-runtime.js';

/** Options of {@link PatchSandbox}. */
export interface PatchSandboxOptions {
  /** Heap limit of the isolate, in MiB. Default 32; isolated-vm's minimum is 8. */
  memoryLimitMiB?: number;
  /**
   * Wall-clock limit of one sandbox crossing, in ms. Default 50. A crossing evaluates the patches
   * of up to {@link MAX_BATCH} objects; when it runs out of time, each of its objects is evaluated
   * again in a crossing of its own, so an expression that loops forever fails only its object
   * (`PATCH_EVAL_TIMEOUT`), after at most twice this long. Crossings are synchronous calls
   * (isolated-vm's applySync): the event loop waits for them, normally microseconds.
   */
  timeoutMs?: number;
  /** Limit for setting up an isolate or loading a plan into it (our code, not user code), in ms. Default 5000. */
  setupTimeoutMs?: number;
  /**
   * Coalesce the `evaluate` calls made in one turn of the event loop into one crossing (up to
   * {@link MAX_BATCH} objects). Default true. false: each call crosses at once, on its own.
   */
  coalesce?: boolean;
  /** Logger for isolate replacement (warn) and catastrophic isolate errors (error). Default: silent. */
  logger?: Logger;
  /**
   * Called when isolated-vm reports that V8 lost control of an isolate (its docs advise ending the
   * process). The sandbox drops that isolate either way. Default: none.
   */
  onCatastrophicError?: (message: string) => void;
}

type ResolvedSandboxOptions = Readonly<Required<Omit<PatchSandboxOptions, 'onCatastrophicError'>>> & {
  readonly onCatastrophicError: ((message: string) => void) | undefined;
};

/** Returns a new frozen options object with every default filled in; rejects out-of-range values. */
export function withDefaults(options: PatchSandboxOptions = {}): ResolvedSandboxOptions {
  const resolved = {
    memoryLimitMiB: options.memoryLimitMiB ?? 32,
    timeoutMs: options.timeoutMs ?? 50,
    setupTimeoutMs: options.setupTimeoutMs ?? 5000,
    coalesce: options.coalesce ?? true,
    logger: options.logger ?? silentLogger(),
    onCatastrophicError: options.onCatastrophicError,
  };
  if (!(resolved.memoryLimitMiB >= 8)) throw new RangeError('PatchSandbox memoryLimitMiB must be at least 8 (isolated-vm minimum)');
  if (!(resolved.timeoutMs > 0)) throw new RangeError('PatchSandbox timeoutMs must be positive');
  if (!(resolved.setupTimeoutMs > 0)) throw new RangeError('PatchSandbox setupTimeoutMs must be positive');
  return Object.freeze(resolved);
}

/**
 * What the sandbox runs: a plan's expression factory (source of a strict function taking the
 * helpers and returning `[forward, reverse | null]` per expression patch) and its static data as
 * JSON. Built once by `compilePatches`; the sandbox loads each program once per isolate.
 */
export interface SandboxProgram {
  /** Source of the expression factory (see `buildFactorySource`). */
  readonly factorySource: string;
  /** JSON of `{ vcluster, patches: [{ index, path, forwardField, reverseField }] }`. */
  readonly staticJson: string;
}

/** Longest rejection reason quoted in a `rejected` failure (as the runtime cuts thrown messages). */
const MAX_REJECTION_DETAIL = 1000;

/** Most objects evaluated in one crossing; more concurrent calls take several crossings. */
export const MAX_BATCH = 64;

/**
 * Why a sandbox call failed without an answer from the runtime. `rejected`: an expression left a
 * promise rejected with no handler; isolated-vm then throws its reason instead of returning the
 * runtime's answer (the runtime itself catches everything an expression throws).
 */
export type SandboxFailureKind = 'timeout' | 'memory-limit' | 'rejected' | 'unavailable';

/** A call that got no answer from the runtime, and why. */
export interface SandboxFailure {
  readonly ok: false;
  readonly kind: SandboxFailureKind;
  readonly detail: string;
}

/** Outcome of {@link PatchSandbox.run}. */
export type SandboxRunResult = { readonly ok: true; readonly outputJson: string } | SandboxFailure;

/** Outcome of {@link PatchSandbox.evaluate}: the runtime's answer for the one object (parsed JSON, untrusted). */
export type SandboxEvaluateResult = { readonly ok: true; readonly answer: unknown } | SandboxFailure;

interface IsolateState {
  readonly isolate: ivm.Isolate;
  readonly context: ivm.Context;
  readonly createProgram: ivm.Reference;
  readonly generation: number;
}

interface LoadedProgram {
  readonly generation: number;
  readonly run: Promise<ivm.Reference>;
  /** `run` once it resolved: later calls need not wait for it. */
  ready: ivm.Reference | undefined;
}

interface PendingEvaluation {
  readonly program: SandboxProgram;
  readonly itemJson: string;
  readonly resolve: (result: SandboxEvaluateResult) => void;
}

/**
 * The isolate in which patch expressions run (isolated-vm: a separate V8 heap with no Node.js
 * APIs). One per daemon. Inputs and outputs cross as JSON strings only; no host function or
 * reference is ever handed to the isolate, so an expression can reach nothing but its arguments,
 * the frozen ECMAScript built-ins and the helpers.
 *
 * Contract:
 * - The constructor reads the isolate's scripts (isolate/*.js) and throws if they are missing;
 *   the isolate itself is created on first use.
 * - `evaluate` (forward patches, one object) coalesces the calls made in one turn of the event
 *   loop into one crossing of up to {@link MAX_BATCH} objects; `run` (reverse patches) is a
 *   crossing of its own. Both are synchronous calls into the isolate with one time limit each.
 * - Neither throws for anything an expression does: a timeout, an exhausted heap or a lost
 *   isolate comes back as `{ ok: false, kind }`, for that object only: a crossing that times out
 *   or loses its isolate is retried object by object. An isolate killed by its memory limit is
 *   replaced on the next call, and programs are reloaded into the new isolate transparently.
 * - Calls may overlap; the isolate runs them one at a time, in call order.
 * - After `dispose()` every call answers `unavailable`.
 */
export class PatchSandbox {
  readonly #options: ResolvedSandboxOptions;
  readonly #sources: SandboxSources;
  #state: Promise<IsolateState> | undefined;
  /** `#state` once it resolved (same generation): calls need not wait for it. */
  #settled: IsolateState | undefined;
  #stateGeneration = 0;
  #generation = 0;
  #replacements = 0;
  #crossings = 0;
  #disposed = false;
  #programs = new WeakMap<SandboxProgram, LoadedProgram>();
  #pending: PendingEvaluation[] = [];
  #flushScheduled = false;

  /** Stores the options and reads the isolate's scripts; creates no isolate. */
  constructor(options: PatchSandboxOptions = {}) {
    this.#options = withDefaults(options);
    this.#sources = sandboxSources();
  }

  /** The resolved options (frozen). */
  get options(): ResolvedSandboxOptions {
    return this.#options;
  }

  /** How many times an isolate was discarded and replaced (memory limit, catastrophic error). */
  get replacements(): number {
    return this.#replacements;
  }

  /** How many calls into the isolate ran user code (setup not counted). */
  get crossings(): number {
    return this.#crossings;
  }

  /**
   * Evaluates the forward expressions of one object: `itemJson` is the runtime's item
   * (`[hostObject, virtualObject, slot, path, value, ...]`, see isolate/runtime.js). Calls made
   * in the same turn of the event loop share a crossing; the answer is this object's alone.
   */
  evaluate(program: SandboxProgram, itemJson: string): Promise<SandboxEvaluateResult> {
    return new Promise((resolve) => {
      const pending = { program, itemJson, resolve };
      if (!this.#options.coalesce) {
        void this.#batch(program, [pending]);
        return;
      }
      this.#pending.push(pending);
      if (this.#flushScheduled) return;
      this.#flushScheduled = true;
      setImmediate(() => void this.#flush());
    });
  }

  /**
   * Runs `program`'s reverse pass on `inputJson` (one whole object, every patch) in a crossing of
   * its own and returns the runtime's JSON answer, or why there is none.
   */
  run(program: SandboxProgram, inputJson: string): Promise<SandboxRunResult> {
    return this.#cross(program, 'reverse', inputJson);
  }

  async #flush(): Promise<void> {
    const pending = this.#pending;
    this.#pending = [];
    this.#flushScheduled = false;
    const byProgram = new Map<SandboxProgram, PendingEvaluation[]>();
    for (const item of pending) {
      const list = byProgram.get(item.program);
      if (list === undefined) byProgram.set(item.program, [item]);
      else list.push(item);
    }
    for (const [program, items] of byProgram) {
      for (let start = 0; start < items.length; start += MAX_BATCH) {
        await this.#batch(program, items.slice(start, start + MAX_BATCH));
      }
    }
  }

  async #batch(program: SandboxProgram, items: readonly PendingEvaluation[]): Promise<void> {
    const result = await this.#cross(program, 'forward', `[${items.map((item) => item.itemJson).join(',')}]`);
    if (result.ok) {
      // Produced by the runtime's own captured JSON.stringify, but still parsed as untrusted data.
      const answers: unknown = JSON.parse(result.outputJson);
      if (!Array.isArray(answers) || answers.length !== items.length) {
        const malformed: SandboxFailure = { ok: false, kind: 'unavailable', detail: 'the sandbox runtime returned a malformed answer' };
        for (const item of items) item.resolve(malformed);
        return;
      }
      items.forEach((item, index) => item.resolve({ ok: true, answer: answers[index] }));
      return;
    }
    if (items.length === 1 || result.kind === 'unavailable') {
      for (const item of items) item.resolve(result);
      return;
    }
    // The crossing ran out of time, lost its isolate or ended with an unhandled rejection: one
    // object did, most likely. Each object gets a crossing of its own, so only the one that did fails.
    for (const item of items) await this.#batch(program, [item]);
  }

  async #cross(program: SandboxProgram, mode: 'forward' | 'reverse', inputJson: string): Promise<SandboxRunResult> {
    if (this.#disposed) return { ok: false, kind: 'unavailable', detail: 'the patch sandbox was disposed' };
    let state = this.#settled;
    let run = state === undefined ? undefined : this.#loaded(state, program);
    if (state === undefined || run === undefined) {
      try {
        state = await this.#ready();
        run = await this.#load(state, program);
      } catch (error: unknown) {
        return this.#failure(undefined, error, 'setup');
      }
      if (this.#disposed) return { ok: false, kind: 'unavailable', detail: 'the patch sandbox was disposed' };
    }
    try {
      this.#crossings += 1;
      const output: unknown = run.applySync(undefined, [mode, inputJson], { timeout: this.#options.timeoutMs });
      if (typeof output !== 'string') {
        return { ok: false, kind: 'unavailable', detail: 'the sandbox runtime returned no answer' };
      }
      return { ok: true, outputJson: output };
    } catch (error: unknown) {
      return this.#failure(state, error, 'run');
    }
  }

  /** Releases the isolate. Idempotent; later calls to `run` answer `unavailable`. */
  dispose(): void {
    this.#disposed = true;
    const state = this.#state;
    this.#state = undefined;
    this.#settled = undefined;
    if (state !== undefined) {
      // A failed setup has nothing to release; its error was already reported to its caller.
      state.then((s) => disposeIsolate(s.isolate), () => undefined).catch(() => undefined);
    }
  }

  #ready(): Promise<IsolateState> {
    const current = this.#state;
    if (current !== undefined) return current;
    const generation = ++this.#generation;
    const created = this.#create(generation);
    this.#state = created;
    this.#stateGeneration = generation;
    created.then((settled) => {
      if (this.#state === created) this.#settled = settled;
    }, () => undefined);
    // A failed setup must not stick: forget it so the next call tries again.
    created.catch(() => {
      if (this.#state === created) this.#state = undefined;
    });
    return created;
  }

  async #create(generation: number): Promise<IsolateState> {
    const isolate = new ivm.Isolate({
      memoryLimit: this.#options.memoryLimitMiB,
      onCatastrophicError: (message: string) => {
        this.#options.logger.error({ generation, detail: message }, 'Patch sandbox isolate failed catastrophically');
        this.#forget(generation);
        this.#options.onCatastrophicError?.(message);
      },
    });
    try {
      const context = await isolate.createContext();
      const timeout = this.#options.setupTimeoutMs;
      await context.eval(this.#sources.lockdown, { timeout, filename: 'vcsync:isolate/lockdown.js' });
      const createProgram = (await context.eval(this.#sources.runtime, {
        timeout,
        reference: true,
        filename: 'vcsync:isolate/runtime.js',
      })) as ivm.Reference;
      return { isolate, context, createProgram, generation };
    } catch (error: unknown) {
      disposeIsolate(isolate);
      throw error;
    }
  }

  #loaded(state: IsolateState, program: SandboxProgram): ivm.Reference | undefined {
    const loaded = this.#programs.get(program);
    return loaded !== undefined && loaded.generation === state.generation ? loaded.ready : undefined;
  }

  #load(state: IsolateState, program: SandboxProgram): Promise<ivm.Reference> {
    const loaded = this.#programs.get(program);
    if (loaded !== undefined && loaded.generation === state.generation) return loaded.run;
    const run = this.#compileProgram(state, program);
    const entry: LoadedProgram = { generation: state.generation, run, ready: undefined };
    this.#programs.set(program, entry);
    run.then((ready) => {
      entry.ready = ready;
    }, () => {
      if (this.#programs.get(program) === entry) this.#programs.delete(program);
    });
    return run;
  }

  async #compileProgram(state: IsolateState, program: SandboxProgram): Promise<ivm.Reference> {
    const timeout = this.#options.setupTimeoutMs;
    const factory = (await state.context.eval(program.factorySource, {
      timeout,
      reference: true,
      filename: 'vcsync:patch-expressions.js',
    })) as ivm.Reference;
    // derefInto hands the isolate its own function back; nothing of this realm crosses.
    const run = (await state.createProgram.apply(undefined, [factory.derefInto(), program.staticJson], {
      timeout,
      result: { reference: true },
    })) as ivm.Reference;
    factory.release();
    return run;
  }

  #failure(state: IsolateState | undefined, error: unknown, phase: 'setup' | 'run'): SandboxFailure {
    const detail = error instanceof Error ? error.message : String(error);
    if (this.#disposed) return { ok: false, kind: 'unavailable', detail: 'the patch sandbox was disposed' };
    if (state !== undefined && state.isolate.isDisposed) {
      this.#forget(state.generation, state.isolate);
      // isolated-vm gives no error code; the message is the only signal that the memory limit,
      // rather than another disposal, ended the isolate.
      const memory = /memory limit/i.test(detail);
      return memory
        ? { ok: false, kind: 'memory-limit', detail: `the expression exceeded the sandbox memory limit of ${this.#options.memoryLimitMiB} MiB` }
        : { ok: false, kind: 'unavailable', detail };
    }
    if (phase === 'run' && /timed out/i.test(detail)) {
      return { ok: false, kind: 'timeout', detail: `the evaluation exceeded the sandbox timeout of ${this.#options.timeoutMs} ms` };
    }
    if (phase === 'run' && state !== undefined) {
      // The isolate is alive and the runtime catches every throw of an expression: what ended the
      // call is a promise an expression rejected and nobody handled.
      const reason = (error instanceof Error ? `${error.name}: ${error.message}` : `threw ${String(error)}`).slice(0, MAX_REJECTION_DETAIL);
      return { ok: false, kind: 'rejected', detail: `a promise the expression created was rejected and not handled (${reason}); expressions must not leave rejected promises behind` };
    }
    return { ok: false, kind: 'unavailable', detail };
  }

  // Drops an isolate that can no longer run code; the next call creates a fresh one. Synchronous,
  // so a call that starts right after a failure already gets the new isolate.
  #forget(generation: number, isolate?: ivm.Isolate): void {
    if (isolate !== undefined) disposeIsolate(isolate);
    if (this.#state === undefined || this.#stateGeneration !== generation) return;
    const state = this.#state;
    this.#state = undefined;
    this.#settled = undefined;
    this.#replacements += 1;
    this.#options.logger.warn({ generation }, 'Patch sandbox isolate lost; a new one is created on the next evaluation');
    state.then((s) => disposeIsolate(s.isolate), () => undefined).catch(() => undefined);
  }
}

function disposeIsolate(isolate: ivm.Isolate): void {
  if (isolate.isDisposed) return;
  try {
    isolate.dispose();
  } catch {
    // Already being torn down by isolated-vm (memory limit); nothing left to release.
  }
}
