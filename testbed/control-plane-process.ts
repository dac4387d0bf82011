import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';

/**
 * Every process still running, killed when the test worker exits, so a worker that dies or a test
 * that never reaches close() leaves no etcd or kube-apiserver behind. Module-level on purpose: the
 * exit hook is per process, and so is this list.
 */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function killAllOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = (): void => {
    for (const child of running) child.kill('SIGKILL');
  };
  process.on('exit', killAll);
  // Vitest ends its fork workers with a signal, which skips 'exit' handlers. Kill the children,
  // then let the signal do what it would have done: the runner's own handler if it has one, else
  // the default (terminate), re-raised now that this one-shot listener is gone.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killAll();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

/**
 * One binary of the real control plane: started with its stdout and stderr appended to
 * `logFile`, tracked until it exits, and killed on process exit if a test never stopped it.
 */
export class ControlPlaneProcess {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #exitDescription: string | undefined;

  private constructor(
    readonly name: string,
    readonly logFile: string,
    child: ChildProcess,
  ) {
    this.#child = child;
    running.add(child);
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        running.delete(child);
        this.#exitDescription = signal !== null ? `killed by ${signal}` : `exited with code ${code}`;
        resolve();
      });
      child.once('error', (err) => {
        running.delete(child);
        this.#exitDescription = `could not start: ${err.message}`;
        resolve();
      });
    });
  }

  /** Starts `binary` with `args`; output goes to `logFile` (created or appended). */
  static start(name: string, binary: string, args: readonly string[], logFile: string): ControlPlaneProcess {
    killAllOnExit();
    const fd = openSync(logFile, 'a');
    try {
      const child = spawn(binary, args, { stdio: ['ignore', fd, fd] });
      return new ControlPlaneProcess(name, logFile, child);
    } finally {
      closeSync(fd); // the child holds its own copy
    }
  }

  /** How the process ended, or undefined while it runs. */
  get exitDescription(): string | undefined {
    return this.#exitDescription;
  }

  /** The last `lines` lines of the log, for error messages. */
  logTail(lines = 40): string {
    let text: string;
    try {
      text = readFileSync(this.logFile, 'utf8');
    } catch (err) {
      return `(no log: ${err instanceof Error ? err.message : String(err)})`;
    }
    return text.split('\n').slice(-lines - 1).join('\n');
  }

  /**
   * Sends SIGTERM, and SIGKILL if the process has not exited after `graceMs`; resolves once it
   * has exited. Idempotent.
   */
  async stop(graceMs: number): Promise<void> {
    if (this.#exitDescription !== undefined) return;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    try {
      await this.#exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
