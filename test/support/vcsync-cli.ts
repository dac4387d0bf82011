import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The built CLI, the `vcsync` bin. */
export const VCSYNC_MAIN = join(REPO_ROOT, 'dist/cli/main.js');

/**
 * Arguments for `spawn(process.execPath, [...VCSYNC_NODE_ARGS, 'dev', …])`: the CLI as its bin and
 * the image run it, with no Node flags (the patch sandbox's workers get theirs when forked).
 */
export const VCSYNC_NODE_ARGS: readonly string[] = [VCSYNC_MAIN];

/**
 * Fails (never skips) when dist/ is missing or older than the sources of `dirs` (default: all of
 * src/); a `testbed/…` dir is checked against its own build, build/testbed/.
 */
export function assertBuilt(dirs?: readonly string[]): void {
  const rebuild = 'run `npm run build` (npm ci does it through prepare) before this test';
  if (!existsSync(VCSYNC_MAIN)) throw new Error(`${VCSYNC_MAIN} is missing: ${rebuild}`);
  const roots = dirs ?? readdirSync(join(REPO_ROOT, 'src'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => `src/${d.name}`);
  for (const dir of roots) {
    const testbed = /^testbed(\/|$)/.test(dir);
    const builtDir = testbed ? `build/${dir}` : dir.replace(/^src/, 'dist');
    const hint = testbed ? 'run `npm run build:testbed` (npm ci does it through prepare) before this test' : rebuild;
    for (const file of readdirSync(join(REPO_ROOT, dir))) {
      if (!file.endsWith('.ts')) continue;
      const built = join(REPO_ROOT, builtDir, file.replace(/\.ts$/, '.js'));
      if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(REPO_ROOT, dir, file)).mtimeMs) throw new Error(`${built} is missing or older than its source: ${hint}`);
    }
  }
  // The patch sandbox's isolate scripts are copied by `npm run build`, not compiled by tsc.
  for (const file of readdirSync(join(REPO_ROOT, 'src/patches/isolate'))) {
    const built = join(REPO_ROOT, 'dist/patches/isolate', file);
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(REPO_ROOT, 'src/patches/isolate', file)).mtimeMs) throw new Error(`${built} is missing or older than its source: ${rebuild}`);
  }
}

/** What a finished CLI run printed and returned. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of {@link runVcsync}. */
export interface RunVcsyncOptions {
  /** Environment added to (and overriding) the test's own. */
  env?: Record<string, string | undefined>;
  /** Written to the command's standard input, then closed. */
  input?: string;
  /** Run `process.execPath` with these arguments instead of the bin (e.g. without the flag). */
  nodeArgs?: readonly string[];
  /** Kill after this long (ms). Default 30 s. */
  timeoutMs?: number;
}

/** Runs the built `vcsync` bin (as a user would: the file itself, through its shebang) to completion. */
export function runVcsync(args: readonly string[], options: RunVcsyncOptions = {}): Promise<CliResult> {
  const [file, argv] = options.nodeArgs !== undefined ? [process.execPath, [...options.nodeArgs, ...args]] : [VCSYNC_MAIN, [...args]];
  return new Promise((resolvePromise, reject) => {
    const child = execFile(file, argv, { cwd: REPO_ROOT, env: { ...process.env, ...options.env }, timeout: options.timeoutMs ?? 30_000 }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') {
        reject(new Error(`vcsync ${args.join(' ')} did not finish: ${error.message}\n${stderr}`));
        return;
      }
      resolvePromise({ code: error === null ? 0 : Number(error.code), stdout, stderr });
    });
    child.stdin?.end(options.input ?? '');
  });
}
