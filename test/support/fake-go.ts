import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A `go` stand-in (a Node script): logs each call as JSON, `go build -o X` writes an executable X. */
const FAKE_GO = `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
fs.appendFileSync(process.env.FAKE_GO_LOG, JSON.stringify({ cwd: process.cwd(), args, cgo: process.env.CGO_ENABLED }) + '\\n');
if (args[0] === 'version') { console.log('go version go1.26.8 linux/amd64'); process.exit(0); }
const out = args[args.indexOf('-o') + 1];
if (process.env.FAKE_GO_FAIL !== undefined && out.endsWith('/' + process.env.FAKE_GO_FAIL)) { console.error('compile error'); process.exit(2); }
fs.writeFileSync(out, '#!/bin/sh\\n', { mode: 0o755 });
`;

/** The version the go.mod text `goMod` requires of `module`, e.g. "v4.3.1"; throws when it requires none. */
export function goModRequires(goMod: string, module: string): string {
  const match = new RegExp(`^\\s*(?:require\\s+)?${module.replace(/[./]/g, '\\$&')}\\s+(v\\S+)`, 'm').exec(goMod);
  if (match?.[1] === undefined) throw new Error(`go.mod does not require ${module}`);
  return match[1];
}

/** One call of the fake `go`. */
export interface GoCall {
  cwd: string;
  args: string[];
  cgo?: string;
}

/** The outcome of one run of a build script. */
export interface BuildRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A temp directory with a fake `go` on PATH, HOME and XDG_CACHE_HOME (`<dir>/cache`), for running
 * the Go build scripts of tools/ without Go: `env` is their whole environment.
 */
export class FakeGo {
  private constructor(
    readonly dir: string,
    readonly env: Record<string, string>,
  ) {}

  static async create(prefix: string): Promise<FakeGo> {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'go'), FAKE_GO);
    await chmod(join(bin, 'go'), 0o755);
    return new FakeGo(dir, { PATH: bin, HOME: dir, XDG_CACHE_HOME: join(dir, 'cache'), FAKE_GO_LOG: join(dir, 'go.log') });
  }

  /** Every call of `go` so far, in order. */
  async calls(): Promise<GoCall[]> {
    const text = await readFile(join(this.dir, 'go.log'), 'utf8').catch(() => '');
    return text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as GoCall);
  }

  /** Runs the Node script `script` with {@link env} plus `extra`. */
  run(script: string, extra: Record<string, string> = {}): Promise<BuildRun> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [script], { env: { ...this.env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, stdout, stderr }));
    });
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
