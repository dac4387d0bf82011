// Builds Go binaries from the Go modules of a tools/ folder, once, into a cache directory outside
// the repository keyed by a hash of every input, and returns that directory. A second run with the
// same inputs finds the binaries and builds nothing. Shared by tools/kube-assets/build.mjs (the
// real control plane for tests) and tools/helm/build.mjs (the helm the chart's tests run); each
// has its own cache entry, so a change to one never rebuilds the other.
//
// Environment: XDG_CACHE_HOME (default ~/.cache) chooses the cache root; the Go build and module
// caches (GOCACHE, GOMODCACHE) make a rebuild after an input change fast.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** A failure the build script reports as one line `<tool>: <message>` and exit 1. */
export class GoBinariesError extends Error {}

/** The version a go.mod requires of `modulePath`, e.g. "v1.36.3"; throws when it requires none. */
export function requiredVersion(goModFile, modulePath) {
  const text = readFileSync(goModFile, 'utf8');
  const escaped = modulePath.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm').exec(text);
  if (match?.[1] === undefined) throw new GoBinariesError(`${goModFile} does not require ${modulePath}: fix the go.mod.`);
  return match[1];
}

/** Throws, saying what to install, when `go` does not run. `command` is what to type again after. */
export function requireGo(command) {
  const goCheck = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (goCheck.error !== undefined || goCheck.status !== 0) {
    throw new GoBinariesError(
      'Go is not runnable here (' +
        (goCheck.error?.message ?? goCheck.stderr.trim()) +
        `). Install Go 1.26 or newer (https://go.dev/doc/install, or your package manager) and put \`go\` on PATH, then run \`${command}\` again.`,
    );
  }
}

/**
 * The cache directory of one set of binaries: `<cache root>/vcsync/<tool>/<label>-<hash>`, where
 * the hash covers the name and content of every input (paths relative to `baseDir`).
 */
export function cacheEntry({ tool, label, baseDir, inputs }) {
  const hash = createHash('sha256');
  for (const input of inputs) hash.update(`${input}\0`).update(readFileSync(join(baseDir, input))).update('\0');
  const cacheRoot = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'vcsync', tool);
  return { cacheRoot, dir: join(cacheRoot, `${label}-${hash.digest('hex').slice(0, 12)}`) };
}

/**
 * Builds `binaries` (each `{ name, dir, pkg, ldflags, version }`: `go build` of `pkg` run in the
 * module `dir`, written as `name`) into `entry.dir` unless all are there already, and writes
 * `versions` as versions.json beside them. Progress goes to stderr, prefixed with `tool`. Throws
 * {@link GoBinariesError} when a build fails, leaving no directory behind.
 */
export function buildCached({ tool, entry, binaries, versions }) {
  if (binaries.every((binary) => existsSync(join(entry.dir, binary.name)))) return entry.dir;
  mkdirSync(entry.cacheRoot, { recursive: true });
  // Built in a sibling temp dir and renamed into place, so a directory named like entry.dir always
  // holds a complete set, even after an interrupted build or with two builds at once.
  const buildDir = mkdtempSync(join(entry.cacheRoot, '.build-'));
  try {
    for (const binary of binaries) {
      const started = Date.now();
      process.stderr.write(`${tool}: building ${binary.name} (${binary.version})…\n`);
      const build = spawnSync(
        'go',
        ['build', '-trimpath', '-buildvcs=false', '-ldflags', binary.ldflags, '-o', join(buildDir, binary.name), binary.pkg],
        // CGO off as in the upstream release builds: static binaries, no C toolchain needed.
        { cwd: binary.dir, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, CGO_ENABLED: '0' } },
      );
      if (build.error !== undefined || build.status !== 0) {
        throw new GoBinariesError(`go build of ${binary.name} in ${binary.dir} failed (${build.error?.message ?? `exit ${build.status}`}); its errors are above.`);
      }
      process.stderr.write(`${tool}: built ${binary.name} in ${Math.round((Date.now() - started) / 1000)} s\n`);
    }
    writeFileSync(join(buildDir, 'versions.json'), `${JSON.stringify(versions, null, 2)}\n`);
    rmSync(entry.dir, { recursive: true, force: true });
    renameSync(buildDir, entry.dir);
  } finally {
    rmSync(buildDir, { recursive: true, force: true });
  }
  return entry.dir;
}

/**
 * Runs a build script's `main` (which returns the line to print) and prints that line as the last
 * line of stdout; a {@link GoBinariesError} becomes `<tool>: <message>` on stderr and exit 1.
 */
export function runBuildScript(tool, main) {
  try {
    process.stdout.write(`${main()}\n`);
  } catch (err) {
    if (!(err instanceof GoBinariesError)) throw err;
    process.stderr.write(`${tool}: ${err.message}\n`);
    process.exit(1);
  }
}
