// The patch sandbox's worker process (forked by src/patches/patch-sandbox.ts, one per pool slot).
// It owns one isolated-vm isolate and calls into it synchronously: a call that never returns
// (V8's fatal out-of-memory path, a builtin that never reaches a time-limit check) parks this
// process, never the daemon's event loop; the supervisor kills it and forks another. A process,
// not a worker thread: a parked thread can be neither stopped nor exited past, and
// `Array.prototype.fill.call({ length: 1e8 }, 0)` in an isolate on a worker thread crashed the
// whole process (segmentation fault) a few seconds later (measured, isolated-vm 5.0.4, Node 20).
//
// Plain JavaScript, not TypeScript, so that it runs as is from src/ (tests) and dist/ (`npm run
// build` copies this folder). Only strings cross the IPC channel and the isolate boundary.
//
// In:  { type: 'init', lockdown, runtime, memoryLimitMiB, timeoutMs, setupTimeoutMs } (first)
//      | { type: 'load', programId, factorySource, staticJson } | { type: 'unload', programId }
//      | { type: 'cross', id, programId, mode, inputJson } | { type: 'usage', id }
// Out: { type: 'ready' } | { type: 'setup-failed', detail } | { type: 'loaded', programId, ok, detail }
//      | { type: 'answer', id, ok: true, outputJson } | { type: 'answer', id, ok: false, kind, detail, replaced }
//      | { type: 'catastrophic', detail } | { type: 'usage', id, micros }
import ivm from 'isolated-vm';
import process from 'node:process';

/** Longest rejection reason quoted in a `rejected` failure (as the runtime cuts thrown messages). */
const MAX_REJECTION_DETAIL = 1000;

let lockdown, runtime, memoryLimitMiB, timeoutMs, setupTimeoutMs;
/** programId -> { factorySource, staticJson } */
const programs = new Map();
/** The live isolate: { isolate, context, createProgram, runs: Map<programId, Reference> }, or undefined. */
let state;

// A fresh isolate with every known program compiled into it: setup happens between crossings,
// never inside one, so a crossing's deadline measures only the expressions.
function createReadyState() {
  const fresh = createState();
  for (const programId of programs.keys()) programRun(fresh, programId);
  return fresh;
}

function createState() {
  const isolate = new ivm.Isolate({
    memoryLimit: memoryLimitMiB,
    onCatastrophicError: (message) => {
      state = undefined;
      send({ type: 'catastrophic', detail: String(message) });
    },
  });
  try {
    const context = isolate.createContextSync();
    context.evalSync(lockdown, { timeout: setupTimeoutMs, filename: 'vcsync:isolate/lockdown.js' });
    const createProgram = context.evalSync(runtime, { timeout: setupTimeoutMs, reference: true, filename: 'vcsync:isolate/runtime.js' });
    return { isolate, context, createProgram, runs: new Map() };
  } catch (error) {
    dispose(isolate);
    throw error;
  }
}

function dispose(isolate) {
  if (isolate.isDisposed) return;
  try {
    isolate.dispose();
  } catch {
    // Already being torn down by isolated-vm (memory limit); nothing left to release.
  }
}

function programRun(current, programId) {
  const known = current.runs.get(programId);
  if (known !== undefined) return known;
  const program = programs.get(programId);
  if (program === undefined) throw new Error(`program ${programId} was never loaded into this worker`);
  const factory = current.context.evalSync(program.factorySource, { timeout: setupTimeoutMs, reference: true, filename: 'vcsync:patch-expressions.js' });
  // derefInto hands the isolate its own function back; nothing of this realm crosses.
  const run = current.createProgram.applySync(undefined, [factory.derefInto(), program.staticJson], { timeout: setupTimeoutMs, result: { reference: true } });
  factory.release();
  current.runs.set(programId, run);
  return run;
}

function message(error) {
  return error instanceof Error ? error.message : String(error);
}

function cross({ id, programId, mode, inputJson }) {
  let current;
  let run;
  try {
    current = state ?? createReadyState();
    state = current;
    run = programRun(current, programId);
  } catch (error) {
    return { type: 'answer', id, ok: false, kind: 'unavailable', detail: message(error), replaced: false };
  }
  try {
    const output = run.applySync(undefined, [mode, inputJson], { timeout: timeoutMs });
    if (typeof output !== 'string') return { type: 'answer', id, ok: false, kind: 'unavailable', detail: 'the sandbox runtime returned no answer', replaced: false };
    return { type: 'answer', id, ok: true, outputJson: output };
  } catch (error) {
    return failure(current, error);
  }
}

// isolated-vm gives no error codes: its messages are the only signal, classified here in one place.
function failure(current, error) {
  const detail = message(error);
  if (current.isolate.isDisposed) {
    // The next call creates a fresh isolate and reloads the programs into it.
    if (state === current) state = undefined;
    const memory = /memory limit/i.test(detail);
    return memory
      ? { type: 'answer', ok: false, kind: 'memory-limit', detail: `the expression exceeded the sandbox memory limit of ${memoryLimitMiB} MiB`, replaced: true }
      : { type: 'answer', ok: false, kind: 'unavailable', detail, replaced: true };
  }
  if (/timed out/i.test(detail)) {
    return { type: 'answer', ok: false, kind: 'timeout', detail: `the evaluation exceeded the sandbox timeout of ${timeoutMs} ms`, replaced: false };
  }
  // The isolate is alive and the runtime catches every throw of an expression: what ended the
  // call is a promise an expression rejected and nobody handled.
  const reason = (error instanceof Error ? `${error.name}: ${error.message}` : `threw ${String(error)}`).slice(0, MAX_REJECTION_DETAIL);
  return { type: 'answer', ok: false, kind: 'rejected', detail: `a promise the expression created was rejected and not handled (${reason}); expressions must not leave rejected promises behind`, replaced: false };
}

function send(message) {
  process.send?.(message);
}

function init(request) {
  ({ lockdown, runtime, memoryLimitMiB, timeoutMs, setupTimeoutMs } = request);
  try {
    state = createState();
    send({ type: 'ready' });
  } catch (error) {
    send({ type: 'setup-failed', detail: message(error) });
  }
}

process.on('message', (request) => {
  switch (request.type) {
    case 'init':
      init(request);
      return;
    case 'usage': {
      const usage = process.cpuUsage();
      send({ type: 'usage', id: request.id, micros: usage.user + usage.system });
      return;
    }
    case 'load':
      programs.set(request.programId, { factorySource: request.factorySource, staticJson: request.staticJson });
      try {
        state = state ?? createState();
        programRun(state, request.programId);
        send({ type: 'loaded', programId: request.programId, ok: true });
      } catch (error) {
        programs.delete(request.programId);
        send({ type: 'loaded', programId: request.programId, ok: false, detail: message(error) });
      }
      return;
    case 'unload':
      programs.delete(request.programId);
      state?.runs.get(request.programId)?.release();
      state?.runs.delete(request.programId);
      return;
    case 'cross': {
      const answer = cross(request);
      answer.id = request.id;
      send(answer);
      if (answer.replaced) {
        // The isolate is gone (memory limit): set up the next one now, and say when it is ready.
        try {
          state = createReadyState();
          send({ type: 'ready' });
        } catch (error) {
          send({ type: 'setup-failed', detail: message(error) });
        }
      }
      return;
    }
  }
});

// The daemon went away (or dropped this worker): nothing is left to answer.
process.on('disconnect', () => process.exit(0));
