import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest directory at or above `dir` holding a package.json. */
function packageRoot(dir: string): string {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, 'package.json'))) return at;
    if (dirname(at) === at) throw new Error(`no package.json above ${dir}: the testbed runs from the vcsync repository`);
  }
}

/** The repository root, from testbed/chaos (tests) or build/testbed/chaos (benchmarks). */
export const REPO_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)));

/** The built CLI the chaos run spawns (run `npm run build` first). */
export const VCSYNC_MAIN = join(REPO_ROOT, 'dist/cli/main.js');

/**
 * Every spawned process still running, killed when this process exits, so a test that times out
 * or a benchmark that crashes leaves no devcluster or vcsync behind. Module-level on purpose: the
 * exit hook is per process, and so is this list (as control-plane-process.ts does).
 */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function killAllOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

/** A spawned `vcsync …` process: what it printed, and how it ends. */
export class VcsyncProcess {
  readonly child: ChildProcess;
  #output = '';
  #errors = '';
  readonly #exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  /**
   * Spawns `vcsync ARGS` (logs at warn). With `logFile`, logs at `logLevel` (default debug) and
   * everything it prints is appended to that file too.
   */
  constructor(
    readonly label: string,
    args: readonly string[],
    options: { logFile?: string | undefined; logLevel?: string } = {},
  ) {
    const logFile = options.logFile;
    this.child = spawn(process.execPath, [VCSYNC_MAIN, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, VCSYNC_LOG_LEVEL: logFile !== undefined ? (options.logLevel ?? 'debug') : 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    killAllOnExit();
    running.add(this.child);
    this.#exited = new Promise((resolvePromise) =>
      this.child.once('exit', (code, signal) => {
        running.delete(this.child);
        resolvePromise({ code, signal });
      }),
    );
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.#output = (this.#output + chunk.toString()).slice(-8_000);
      if (logFile !== undefined) appendFileSync(logFile, chunk);
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.#errors = (this.#errors + chunk.toString()).slice(-8_000);
      if (logFile !== undefined) appendFileSync(logFile, chunk);
    });
  }

  /** The last 8 000 characters of stdout and of stderr. */
  output(): string {
    return `${this.#output}\n${this.#errors}`;
  }

  /** Whether the process has exited. */
  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Resolves with the first match of `pattern` in stdout; rejects on exit or after `timeoutMs`. */
  async waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(this.#output);
      if (match !== null) return match;
      if (this.exited) throw new Error(`${this.label} exited before printing ${pattern}: ${this.output()}`);
      if (Date.now() > deadline) throw new Error(`${this.label} printed no ${pattern} within ${timeoutMs} ms: ${this.output()}`);
      await new Promise((resolvePromise) => setTimeout(resolvePromise, 20));
    }
  }

  /** Sends `signal` (SIGTERM: SIGKILL after `graceMs`) and waits for the exit. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGKILL', graceMs = 10_000): Promise<void> {
    if (this.exited) return;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.#exited;
    clearTimeout(timer);
  }
}

/**
 * A `vcsync devcluster --data-dir DIR` that can be restarted on the same port and data: the
 * chaos run's API server whose restarts lose nothing it acknowledged.
 */
export class DurableDevcluster {
  #process: VcsyncProcess | undefined;
  #port = 0;
  url = '';

  constructor(
    readonly name: string,
    readonly dataDir: string,
    readonly logFile?: string,
  ) {}

  /** Starts it (the first time on an ephemeral port, later on the same one) and waits until it listens. */
  async start(): Promise<void> {
    const child = new VcsyncProcess(`devcluster ${this.name}`, ['devcluster', '--listen', `127.0.0.1:${this.#port}`, '--data-dir', this.dataDir], { logFile: this.logFile, logLevel: 'info' });
    this.#process = child;
    const match = await child.waitForOutput(/devcluster listening on (http\S+)/, 30_000);
    this.url = match[1] as string;
    this.#port = Number(new URL(this.url).port);
  }

  /** SIGTERM (or SIGKILL), then start again on the same port and data dir. */
  async restart(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    await this.#process?.stop(signal);
    await this.start();
  }

  async stop(): Promise<void> {
    await this.#process?.stop('SIGTERM');
  }
}
