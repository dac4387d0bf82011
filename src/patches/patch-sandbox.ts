import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setDeadline } from '../observe/deadline.js';
import { silentLogger, type Logger } from '../observe/logger.js';
import { sandboxSources, type SandboxSources } from './sandbox-runtime.js';

/** Options of {@link PatchSandbox}. */
export interface PatchSandboxOptions {
  /** Heap limit of each worker's isolate, in MiB. Default 32; isolated-vm's minimum is 8. */
  memoryLimitMiB?: number;
  /**
   * Wall-clock limit of one sandbox crossing, in ms. Default 50. A crossing evaluates the patches
   * of up to {@link MAX_BATCH} objects; when it runs out of time, each of its objects is evaluated
   * again in a crossing of its own, so an expression that loops forever fails only its object
   * (`PATCH_EVAL_TIMEOUT`). A crossing whose worker has not answered after twice this long is
   * abandoned (see {@link PatchSandbox}).
   */
  timeoutMs?: number;
  /** Limit for starting a worker and its isolate, or loading a plan into it (our code, not user code), in ms. Default 5000. */
  setupTimeoutMs?: number;
  /**
   * Coalesce the `evaluate` calls made while the workers are busy (and in one turn of the event
   * loop) into one crossing (up to {@link MAX_BATCH} objects). Default true. false: each call
   * crosses on its own.
   */
  coalesce?: boolean;
  /** Worker processes (each with its own isolate) evaluating at the same time. Default 2. */
  workers?: number;
  /**
   * Extra V8 flags of each worker process (e.g. `--max-opt=1` for a short-lived sandbox whose
   * workers end before TurboFan's code pays for its compiling). Default none: the daemon's workers
   * keep V8's defaults.
   */
  workerV8Flags?: readonly string[];
  /** Logger for replaced isolates and abandoned workers (warn) and catastrophic errors (error). Default: silent. */
  logger?: Logger;
  /**
   * Called when isolated-vm reports that V8 lost control of an isolate (its docs advise ending the
   * process). The worker drops that isolate either way. Default: none.
   */
  onCatastrophicError?: (message: string) => void;
  /** Called each time a worker is abandoned (a crossing unanswered after twice `timeoutMs`). Default: none. */
  onAbandoned?: () => void;
}

type ResolvedSandboxOptions = Readonly<Required<Omit<PatchSandboxOptions, 'onCatastrophicError' | 'onAbandoned'>>> & {
  readonly onCatastrophicError: ((message: string) => void) | undefined;
  readonly onAbandoned: (() => void) | undefined;
};

/** Returns a new frozen options object with every default filled in; rejects out-of-range values. */
export function withDefaults(options: PatchSandboxOptions = {}): ResolvedSandboxOptions {
  const resolved = {
    memoryLimitMiB: options.memoryLimitMiB ?? 32,
    timeoutMs: options.timeoutMs ?? 50,
    setupTimeoutMs: options.setupTimeoutMs ?? 5000,
    coalesce: options.coalesce ?? true,
    workers: options.workers ?? 2,
    workerV8Flags: Object.freeze([...(options.workerV8Flags ?? [])]),
    logger: options.logger ?? silentLogger(),
    onCatastrophicError: options.onCatastrophicError,
    onAbandoned: options.onAbandoned,
  };
  if (!(resolved.memoryLimitMiB >= 8)) throw new RangeError('PatchSandbox memoryLimitMiB must be at least 8 (isolated-vm minimum)');
  if (!(resolved.timeoutMs > 0)) throw new RangeError('PatchSandbox timeoutMs must be positive');
  if (!(resolved.setupTimeoutMs > 0)) throw new RangeError('PatchSandbox setupTimeoutMs must be positive');
  if (!(Number.isInteger(resolved.workers) && resolved.workers >= 1)) throw new RangeError('PatchSandbox workers must be a positive integer');
  if (!resolved.workerV8Flags.every((flag) => /^--[a-z][a-z0-9-]*(=[A-Za-z0-9._-]+)?$/.test(flag))) throw new RangeError('PatchSandbox workerV8Flags must be V8 flags like --max-opt=1');
  return Object.freeze(resolved);
}

/**
 * What the sandbox runs: a plan's expression factory (source of a strict function taking the
 * helpers and returning `[forward, reverse | null]` per expression patch) and its static data as
 * JSON. Built once by `compilePatches`; each worker loads each program once per isolate.
 */
export interface SandboxProgram {
  /** Source of the expression factory (see `buildFactorySource`). */
  readonly factorySource: string;
  /** JSON of `{ vcluster, patches: [{ index, path, forwardField, reverseField }] }`. */
  readonly staticJson: string;
}

/** Most objects evaluated in one crossing; more concurrent calls take several crossings. */
export const MAX_BATCH = 64;

/**
 * Why a sandbox call failed without an answer from the runtime. `rejected`: an expression left a
 * promise rejected with no handler; isolated-vm then throws its reason instead of returning the
 * runtime's answer (the runtime itself catches everything an expression throws). `timeout` also
 * covers a worker that did not answer within twice the time limit and was abandoned.
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

/** One call waiting for (or in) a crossing. Forward calls may share a crossing; reverse calls never do. */
interface Pending {
  readonly program: SandboxProgram;
  readonly mode: 'forward' | 'reverse';
  readonly inputJson: string;
  /** Crosses alone: a reverse call, or a forward call retried after its shared crossing failed. */
  readonly solo: boolean;
  /** Forward: the object's answer (parsed); reverse: the runtime's JSON text. */
  readonly resolve: (result: Settled) => void;
}

type Settled = { readonly ok: true; readonly value: unknown } | SandboxFailure;

/** What the worker process answers (see worker/sandbox-worker.mjs). */
type WorkerMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'usage'; readonly id: number; readonly micros: number }
  | { readonly type: 'loaded'; readonly programId: number; readonly ok: boolean; readonly detail?: string }
  | { readonly type: 'setup-failed'; readonly detail: string }
  | { readonly type: 'catastrophic'; readonly detail: string }
  | { readonly type: 'answer'; readonly id: number; readonly ok: true; readonly outputJson: string }
  | { readonly type: 'answer'; readonly id: number; readonly ok: false; readonly kind: SandboxFailureKind; readonly detail: string; readonly replaced: boolean };

interface PoolWorker {
  readonly worker: ChildProcess;
  readonly serial: number;
  ready: boolean;
  /**
   * The crossing in flight (one at a time, so its deadline measures only its own run); `loading`
   * while the worker compiles the crossing's program first (under the setup limit).
   */
  busy: { readonly id: number; readonly batch: readonly Pending[]; deadline: NodeJS.Timeout; loading: boolean; readonly programId: number } | undefined;
  /** Programs sent to this worker (by id). */
  readonly loaded: Set<number>;
  /** Fails the worker's setup when it does not report ready in time. */
  setupTimer: NodeJS.Timeout | undefined;
}

const WORKER_PATH = fileURLToPath(new URL('./worker/sandbox-worker.mjs', import.meta.url));

/**
 * Every live worker process of every sandbox, killed when this process exits: a worker parked in
 * its isolate never sees its IPC channel close. Process-wide by nature (one exit), so one set and
 * one listener for all sandboxes instead of one listener each.
 */
const liveWorkers = new Set<ChildProcess>();
let exitHookInstalled = false;

function track(worker: ChildProcess): void {
  liveWorkers.add(worker);
  worker.once('exit', () => liveWorkers.delete(worker));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const live of liveWorkers) kill(live);
  });
}

function kill(worker: ChildProcess): void {
  // SIGKILL: a worker parked by isolated-vm handles no signal; kill() never throws for a gone process.
  worker.kill('SIGKILL');
}

/**
 * The sandbox in which patch expressions run: a supervised pool of worker processes, each owning
 * an isolated-vm isolate (a separate V8 heap with no Node.js APIs). Inputs and outputs cross as JSON
 * strings only; no host function or reference is ever handed to an isolate, so an expression can
 * reach nothing but its arguments, the frozen ECMAScript built-ins and the helpers.
 *
 * Contract:
 * - The constructor reads the isolate's scripts (isolate/*.js) and throws if they are missing;
 *   workers are started on demand (the first call), up to `workers`, and do not keep the process
 *   alive.
 * - The main event loop never waits on an expression: workers call their isolate synchronously
 *   in their own processes; this process only sends strings and reads answers.
 * - `evaluate` (forward patches, one object) coalesces the calls waiting for a worker into one
 *   crossing of up to {@link MAX_BATCH} objects; `run` (reverse patches) is a crossing of its own.
 * - Neither throws for anything an expression does: a timeout, an exhausted heap, a lost isolate
 *   or a stuck worker comes back as `{ ok: false, kind }`, for that object only: a shared crossing
 *   that fails is retried object by object. A worker that has not answered a crossing after twice
 *   `timeoutMs` is abandoned (killed, never awaited again), its crossing fails with `timeout`, and
 *   a fresh worker takes its place. So an object whose expression never
 *   returns fails within twice `timeoutMs` of its crossing's start (a shared crossing first, then
 *   its own: up to four times when it was coalesced with others).
 * - Calls may overlap; each worker runs one crossing at a time, calls are taken in order.
 * - After `dispose()` every call answers `unavailable`.
 */
export class PatchSandbox {
  readonly #options: ResolvedSandboxOptions;
  readonly #sources: SandboxSources;
  readonly #workers = new Set<PoolWorker>();
  readonly #programIds = new WeakMap<SandboxProgram, number>();
  // Unloads a collected program from the workers, so config reloads do not accumulate plans.
  readonly #programs = new FinalizationRegistry<number>((programId) => {
    for (const entry of this.#workers) {
      if (entry.loaded.delete(programId)) entry.worker.send({ type: 'unload', programId });
    }
  });
  #queue: Pending[] = [];
  #pumpScheduled = false;
  #nextProgramId = 0;
  #nextCrossingId = 0;
  #nextWorkerSerial = 0;
  #replacements = 0;
  #crossings = 0;
  #abandoned = 0;
  #nextUsageId = 0;
  readonly #usageRequests = new Map<number, (micros: number) => void>();
  #disposed = false;

  /** Stores the options and reads the isolate's scripts; starts no worker. */
  constructor(options: PatchSandboxOptions = {}) {
    this.#options = withDefaults(options);
    this.#sources = sandboxSources();
  }

  /** The resolved options (frozen). */
  get options(): ResolvedSandboxOptions {
    return this.#options;
  }

  /** How many times an isolate was discarded and replaced (memory limit, catastrophic error) or its worker abandoned. */
  get replacements(): number {
    return this.#replacements;
  }

  /** How many crossings carried user code to a worker (setup not counted). */
  get crossings(): number {
    return this.#crossings;
  }

  /** How many workers were abandoned because a crossing did not answer within twice the time limit. */
  get abandoned(): number {
    return this.#abandoned;
  }

  /**
   * CPU time (user + system, µs) the live worker processes have used: what evaluation costs
   * outside this process (benchmarks add it to `process.cpuUsage()`).
   */
  async workerCpuMicros(): Promise<number> {
    const answers = [...this.#workers].filter((entry) => entry.ready).map((entry) => new Promise<number>((resolve) => {
      const id = ++this.#nextUsageId;
      // Workers do not keep this process alive: the timer does while the answer is due (a busy
      // worker answers after its crossing; one that never does counts as 0).
      const timer = setDeadline(() => {
        if (this.#usageRequests.delete(id)) resolve(0);
      }, this.#options.setupTimeoutMs);
      this.#usageRequests.set(id, (micros) => {
        clearTimeout(timer);
        resolve(micros);
      });
      entry.worker.send({ type: 'usage', id });
    }));
    return (await Promise.all(answers)).reduce((sum, micros) => sum + micros, 0);
  }

  /**
   * Evaluates the forward expressions of one object: `itemJson` is the runtime's item
   * (`[hostObject, virtualObject, slot, path, value, ...]`, see isolate/runtime.js). Calls waiting
   * for a worker at the same time share a crossing; the answer is this object's alone.
   */
  evaluate(program: SandboxProgram, itemJson: string): Promise<SandboxEvaluateResult> {
    return new Promise((resolve) => {
      this.#enqueue({
        program,
        mode: 'forward',
        inputJson: itemJson,
        solo: !this.#options.coalesce,
        resolve: (result) => resolve(result.ok ? { ok: true, answer: result.value } : result),
      });
    });
  }

  /**
   * Runs `program`'s reverse pass on `inputJson` (one whole object, every patch) in a crossing of
   * its own and returns the runtime's JSON answer, or why there is none.
   */
  run(program: SandboxProgram, inputJson: string): Promise<SandboxRunResult> {
    return new Promise((resolve) => {
      this.#enqueue({
        program,
        mode: 'reverse',
        inputJson,
        solo: true,
        resolve: (result) => resolve(result.ok ? { ok: true, outputJson: result.value as string } : result),
      });
    });
  }

  /** Stops the workers. Idempotent; waiting and later calls answer `unavailable`. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    const queued = this.#queue;
    this.#queue = [];
    for (const entry of [...this.#workers]) {
      const batch = entry.busy?.batch ?? [];
      this.#remove(entry);
      kill(entry.worker);
      for (const pending of batch) pending.resolve(disposedFailure());
    }
    for (const pending of queued) pending.resolve(disposedFailure());
  }

  #enqueue(pending: Pending): void {
    if (this.#disposed) {
      pending.resolve(disposedFailure());
      return;
    }
    this.#queue.push(pending);
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    // One turn of the event loop lets the callers of this turn join the same crossing.
    setImmediate(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  // Hands waiting calls to idle workers, starting workers up to the pool size.
  #pump(): void {
    while (this.#queue.length > 0 && !this.#disposed) {
      let idle: PoolWorker | undefined;
      let starting = 0;
      for (const entry of this.#workers) {
        if (entry.ready && entry.busy === undefined) idle = entry;
        else if (!entry.ready) starting += 1;
      }
      if (idle === undefined) {
        // Start a worker when none is already starting for this queue and the pool has room.
        if (starting === 0 && this.#workers.size < this.#options.workers) this.#start();
        return;
      }
      this.#dispatch(idle, this.#takeBatch());
    }
  }

  // The first waiting call, and the forward calls of the same program that may share its crossing.
  #takeBatch(): Pending[] {
    const first = this.#queue.shift() as Pending;
    if (first.solo) return [first];
    const batch = [first];
    const rest: Pending[] = [];
    for (const pending of this.#queue) {
      if (batch.length < MAX_BATCH && !pending.solo && pending.program === first.program) batch.push(pending);
      else rest.push(pending);
    }
    this.#queue = rest;
    return batch;
  }

  #dispatch(entry: PoolWorker, batch: readonly Pending[]): void {
    const program = (batch[0] as Pending).program;
    let programId = this.#programIds.get(program);
    if (programId === undefined) {
      programId = ++this.#nextProgramId;
      this.#programIds.set(program, programId);
      this.#programs.register(program, programId);
    }
    const id = ++this.#nextCrossingId;
    if (!entry.loaded.has(programId)) {
      // A program new to this worker is compiled first: our code, under the setup limit.
      entry.loaded.add(programId);
      const deadline = setDeadline(() => this.#abandon(entry, id), this.#options.setupTimeoutMs);
      entry.busy = { id, batch, deadline, loading: true, programId };
      entry.worker.send({ type: 'load', programId, factorySource: program.factorySource, staticJson: program.staticJson });
      return;
    }
    entry.busy = { id, batch, deadline: setDeadline(() => this.#abandon(entry, id), 2 * this.#options.timeoutMs), loading: false, programId };
    this.#cross(entry);
  }

  #cross(entry: PoolWorker): void {
    const busy = entry.busy as NonNullable<PoolWorker['busy']>;
    const first = busy.batch[0] as Pending;
    const inputJson = first.mode === 'forward' ? `[${busy.batch.map((pending) => pending.inputJson).join(',')}]` : first.inputJson;
    this.#crossings += 1;
    entry.worker.send({ type: 'cross', id: busy.id, programId: busy.programId, mode: first.mode, inputJson });
  }

  #loaded(entry: PoolWorker, message: Extract<WorkerMessage, { type: 'loaded' }>): void {
    const busy = entry.busy;
    if (busy === undefined || !busy.loading || busy.programId !== message.programId) return;
    clearTimeout(busy.deadline);
    if (!message.ok) {
      entry.loaded.delete(message.programId);
      entry.busy = undefined;
      const failure: SandboxFailure = { ok: false, kind: 'unavailable', detail: `the patch expressions could not be loaded into the sandbox: ${message.detail ?? 'unknown error'}` };
      for (const pending of busy.batch) pending.resolve(failure);
      this.#pump();
      return;
    }
    busy.loading = false;
    busy.deadline = setDeadline(() => this.#abandon(entry, busy.id), 2 * this.#options.timeoutMs);
    this.#cross(entry);
  }

  #answer(entry: PoolWorker, message: Extract<WorkerMessage, { type: 'answer' }>): void {
    const busy = entry.busy;
    if (busy === undefined || busy.id !== message.id) return;
    clearTimeout(busy.deadline);
    entry.busy = undefined;
    if (message.ok) {
      this.#settleAnswer(busy.batch, message.outputJson);
    } else {
      if (message.replaced) {
        // The worker sets up a fresh isolate now and reports ready again.
        this.#replacements += 1;
        entry.ready = false;
        entry.setupTimer = setDeadline(() => this.#setupFailed(entry, `the sandbox worker did not set up a new isolate within ${this.#options.setupTimeoutMs} ms`), this.#options.setupTimeoutMs);
        this.#options.logger.warn({ worker: entry.serial, kind: message.kind }, 'Patch sandbox isolate lost; the worker sets up a new one');
      }
      this.#settleFailure(busy.batch, { ok: false, kind: message.kind, detail: message.detail });
    }
    this.#pump();
  }

  #settleAnswer(batch: readonly Pending[], outputJson: string): void {
    const first = batch[0] as Pending;
    if (first.mode === 'reverse') {
      first.resolve({ ok: true, value: outputJson });
      return;
    }
    // Produced by the runtime's own captured JSON.stringify, but still parsed as untrusted data.
    const answers: unknown = JSON.parse(outputJson);
    if (!Array.isArray(answers) || answers.length !== batch.length) {
      for (const pending of batch) pending.resolve(malformedFailure());
      return;
    }
    batch.forEach((pending, index) => pending.resolve({ ok: true, value: answers[index] }));
  }

  #settleFailure(batch: readonly Pending[], failure: SandboxFailure): void {
    if (batch.length === 1 || failure.kind === 'unavailable') {
      for (const pending of batch) pending.resolve(failure);
      return;
    }
    // The crossing ran out of time, lost its isolate or its worker, or ended with an unhandled
    // rejection: one object did, most likely. Each object gets a crossing of its own, ahead of
    // the queue, so only the one that did fails.
    this.#queue = [...batch.map((pending) => ({ ...pending, solo: true })), ...this.#queue];
  }

  // A crossing did not answer in twice its limit: its worker is stuck (isolated-vm parks a call
  // that takes V8's fatal out-of-memory path; some builtins never reach a time-limit check). It is
  // killed and never awaited again; a fresh worker takes its place.
  #abandon(entry: PoolWorker, id: number): void {
    const busy = entry.busy;
    if (busy === undefined || busy.id !== id || !this.#workers.has(entry)) return;
    entry.busy = undefined;
    this.#remove(entry);
    kill(entry.worker);
    this.#abandoned += 1;
    this.#replacements += 1;
    this.#options.logger.warn(
      { worker: entry.serial, objects: busy.batch.length, limitMs: 2 * this.#options.timeoutMs },
      'Patch sandbox worker did not answer within twice the time limit; killed and replaced',
    );
    this.#options.onAbandoned?.();
    this.#settleFailure(busy.batch, {
      ok: false,
      kind: 'timeout',
      detail: `the evaluation did not end within twice the sandbox timeout of ${this.#options.timeoutMs} ms (an allocation or builtin that never reaches the time-limit check); its worker was replaced`,
    });
    this.#pump();
  }

  #start(): void {
    const worker = fork(WORKER_PATH, [], {
      // isolated-vm needs it on Node 20+ (V8's startup snapshot and its isolates do not mix; the
      // failure is a crash, not an error). Only workers load isolated-vm, so only they need it;
      // nothing else of this process' flags applies to a worker, only the V8 flags the sandbox
      // was given.
      execArgv: ['--no-node-snapshot', ...this.#options.workerV8Flags],
      // V8 prints its out-of-memory trace to stderr: the supervisor logs what matters instead.
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      // JSON framing: one crossing's round trip measured ~80 µs CPU against ~200 µs with 'advanced'.
      serialization: 'json',
    });
    track(worker);
    // Workers do not keep this process alive; a crossing's deadline timer does while it runs.
    worker.unref();
    worker.channel?.unref();
    const entry: PoolWorker = { worker, serial: ++this.#nextWorkerSerial, ready: false, busy: undefined, loaded: new Set(), setupTimer: undefined };
    entry.setupTimer = setDeadline(() => this.#setupFailed(entry, `the sandbox worker did not start within ${this.#options.setupTimeoutMs} ms`), this.#options.setupTimeoutMs);
    this.#workers.add(entry);
    worker.on('message', (message: WorkerMessage) => this.#onMessage(entry, message));
    worker.on('error', (error: Error) => this.#lost(entry, `the sandbox worker failed: ${error.message}`));
    worker.on('exit', (code: number | null, signal: string | null) => this.#lost(entry, `the sandbox worker ended (${signal ?? `code ${code}`})`));
    worker.send({
      type: 'init',
      lockdown: this.#sources.lockdown,
      runtime: this.#sources.runtime,
      memoryLimitMiB: this.#options.memoryLimitMiB,
      timeoutMs: this.#options.timeoutMs,
      setupTimeoutMs: this.#options.setupTimeoutMs,
    });
  }

  #onMessage(entry: PoolWorker, message: WorkerMessage): void {
    switch (message.type) {
      case 'ready':
        clearTimeout(entry.setupTimer);
        entry.ready = true;
        this.#pump();
        return;
      case 'setup-failed':
        this.#setupFailed(entry, message.detail);
        return;
      case 'loaded':
        this.#loaded(entry, message);
        return;
      case 'usage':
        this.#usageRequests.get(message.id)?.(message.micros);
        this.#usageRequests.delete(message.id);
        return;
      case 'catastrophic':
        this.#replacements += 1;
        this.#options.logger.error({ worker: entry.serial, detail: message.detail }, 'Patch sandbox isolate failed catastrophically');
        this.#options.onCatastrophicError?.(message.detail);
        return;
      case 'answer':
        this.#answer(entry, message);
        return;
    }
  }

  // A worker that could not set up its isolate: the calls waiting for it fail (our code failed,
  // not theirs), so a broken installation does not retry forever.
  #setupFailed(entry: PoolWorker, detail: string): void {
    // Ready meanwhile: its report was read after the deadline had passed, not sent after it.
    if (!this.#workers.has(entry) || entry.ready) return;
    this.#remove(entry);
    kill(entry.worker);
    this.#options.logger.error({ worker: entry.serial, detail }, 'Patch sandbox worker could not start its isolate');
    if ([...this.#workers].some((other) => other.ready)) {
      this.#pump();
      return;
    }
    const queued = this.#queue;
    this.#queue = [];
    for (const pending of queued) pending.resolve({ ok: false, kind: 'unavailable', detail });
  }

  // A worker that ended on its own. During a crossing, the expressions ended it: V8 ends a process
  // whose isolate's allocation fails past the memory limit on some paths (SIGABRT, SIGSEGV), so
  // its objects fail with the memory limit (a shared crossing is retried object by object first).
  #lost(entry: PoolWorker, detail: string): void {
    if (!this.#workers.has(entry)) return;
    const busy = entry.busy;
    entry.busy = undefined;
    this.#remove(entry);
    if (!this.#disposed) this.#options.logger.warn({ worker: entry.serial, detail, crossing: busy !== undefined && !busy.loading }, 'Patch sandbox worker ended; a new one starts for the next crossing');
    if (busy !== undefined && !busy.loading) {
      this.#replacements += 1;
      this.#settleFailure(busy.batch, {
        ok: false,
        kind: 'memory-limit',
        detail: `the worker evaluating the expression ended (${detail.replace(/^the sandbox worker ended \((.*)\)$/, '$1')}), as V8 ends a process whose heap cannot grow past the sandbox memory limit of ${this.#options.memoryLimitMiB} MiB`,
      });
    } else if (busy !== undefined) {
      for (const pending of busy.batch) pending.resolve({ ok: false, kind: 'unavailable', detail });
    }
    this.#pump();
  }

  #remove(entry: PoolWorker): void {
    clearTimeout(entry.setupTimer);
    if (entry.busy !== undefined) clearTimeout(entry.busy.deadline);
    this.#workers.delete(entry);
  }
}

function disposedFailure(): SandboxFailure {
  return { ok: false, kind: 'unavailable', detail: 'the patch sandbox was disposed' };
}

function malformedFailure(): SandboxFailure {
  return { ok: false, kind: 'unavailable', detail: 'the sandbox runtime returned a malformed answer' };
}
