import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { VCSYNC_NODE_ARGS } from './vcsync-cli.js';

/** A `vcsync devcluster` running from dist/ in its own process. */
export interface DevclusterProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** The URL it printed (`devcluster listening on <url>`). */
  readonly url: string;
  /** What it wrote to stderr so far (V8's fatal errors land there). */
  stderr(): string;
}

/**
 * Starts `vcsync devcluster <args>` (add `--listen 127.0.0.1:0` for an ephemeral port) with
 * warn-level logs, and resolves once it printed its URL; rejects if it exits, or kills it and
 * rejects if it has not started within 30 s. The caller stops it ({@link stopProcess}). `nodeArgs`
 * go to Node before the CLI (e.g. `--max-old-space-size=512` to cap its heap).
 */
export function startDevclusterProcess(args: readonly string[], nodeArgs: readonly string[] = []): Promise<DevclusterProcess> {
  const child = spawn(process.execPath, [...nodeArgs, ...VCSYNC_NODE_ARGS, 'devcluster', ...args], { env: { ...process.env, VCSYNC_LOG_LEVEL: 'warn' } });
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`devcluster did not start within 30 s: ${output} ${errors}`));
    }, 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /devcluster listening on (http\S+)/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolvePromise({ child, url: match[1], stderr: () => errors });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`devcluster exited with ${code}: ${output} ${errors}`));
    });
  });
}

/** Resolves with how `child` exited, at once if it already has. */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolvePromise) => child.once('exit', (code, signal) => resolvePromise({ code, signal })));
}

/** Kills `child` with SIGKILL unless it has exited, and waits until it has (any child process). */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await exited(child);
}
