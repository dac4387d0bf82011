// What every benchmark shares about a run: its command line (--help, --quick, options), the temp folder, the
// results file (command, node version, date, raw numbers, ratios, docs/benchmarks.md table rows), and small
// statistics. Benchmarks import the built code from ../dist, so build first:
// `npx tsc -p tsconfig.build.json`.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os, { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export const benchmarksDir = dirname(dirname(fileURLToPath(import.meta.url)));
export const repoDir = dirname(benchmarksDir);
export const mainJs = join(repoDir, 'dist', 'cli', 'main.js');

/**
 * Parses a benchmark's command line before it does anything: `--help` prints `usage` and exits 0;
 * an unknown option, a bad number or a value outside its `choices` prints the problem and `usage`
 * and exits 2 (node:util parseArgs, strict). `numbers` and `strings` map option names to defaults
 * (a function of `quick` for sizes that shrink with `--quick`); `choices` maps a string option to
 * the values it takes; `flags` names boolean options (true when given). `--quick` or
 * BENCH_QUICK=1 sets `quick`.
 */
export function benchArgs({ usage, numbers = {}, strings = {}, choices = {}, flags = [], positionals = false }, argv = process.argv.slice(2)) {
  const options = { help: { type: 'boolean' }, quick: { type: 'boolean' } };
  for (const name of flags) options[name] = { type: 'boolean' };
  for (const name of [...Object.keys(numbers), ...Object.keys(strings)]) options[name] = { type: 'string' };
  const fail = (message) => {
    console.error(`${message}\n\n${usage}`);
    process.exit(2);
  };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: positionals });
  } catch (error) {
    fail(error.message);
  }
  if (parsed.values.help === true) {
    console.log(usage);
    process.exit(0);
  }
  const quick = parsed.values.quick === true || process.env['BENCH_QUICK'] === '1';
  const result = { quick, positionals: parsed.positionals };
  for (const name of flags) result[name] = parsed.values[name] === true;
  const fallback = (value) => (typeof value === 'function' ? value(quick) : value);
  for (const [name, value] of Object.entries(numbers)) {
    const raw = parsed.values[name];
    const number = raw === undefined ? fallback(value) : Number(raw);
    if (!Number.isFinite(number)) fail(`--${name} needs a number, got "${raw}"`);
    result[name] = number;
  }
  for (const [name, value] of Object.entries(strings)) {
    result[name] = parsed.values[name] ?? fallback(value);
    const allowed = choices[name];
    if (allowed !== undefined && !allowed.includes(result[name])) fail(`--${name} takes ${allowed.join(' or ')}, got "${result[name]}"`);
  }
  return result;
}

/** The command line that reproduces this run, relative to the repository. */
export function commandLine(argv = process.argv) {
  const script = relative(repoDir, argv[1] ?? '');
  const env = process.env['BENCH_QUICK'] === '1' ? 'BENCH_QUICK=1 ' : '';
  return `${env}node ${[script, ...argv.slice(2)].join(' ')}`;
}

/** A fresh temp folder removed by the returned `dispose()`. */
export async function tempDir(prefix) {
  const path = await mkdtemp(join(tmpdir(), `vcsync-${prefix}-`));
  return { path, dispose: () => rm(path, { recursive: true, force: true }) };
}

/**
 * Writes benchmarks/results/<name>.json with the run's provenance in front of `body`. `body.table`
 * holds the table rows (`{ benchmark, metric, value, baseline?, ratio? }`) render-table.mjs reads.
 */
export async function writeResult(name, body) {
  const dir = join(benchmarksDir, 'results');
  await mkdir(dir, { recursive: true });
  const document = {
    benchmark: name,
    command: commandLine(),
    node: process.version,
    date: new Date().toISOString(),
    // The load average (1, 5, 15 min) at the end of the run: on a shared machine it says how noisy the figures are.
    machine: { cpus: os.cpus().length, platform: process.platform, arch: process.arch, loadAverage: os.loadavg().map((value) => round(value)) },
    ...body,
  };
  const file = join(dir, `${name}.json`);
  await writeFile(file, `${JSON.stringify(document, null, 2)}\n`);
  return file;
}

/** The p-th percentile (0..100) of `values` by nearest rank; `undefined` when empty. */
export function percentile(values, p) {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}

/** The median of `values` (mean of the two middle values for an even count); `undefined` when empty. */
export function median(values) {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Rounds to `digits` decimals (numbers in results stay readable). */
export function round(value, digits = 2) {
  if (value === undefined || !Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** `--host`: where the syncer benchmarks' host cluster runs. */
export const HOST_CHOICES = ['devcluster', 'real'];

/** The usage line of `--host`, shared by the benchmarks that take it. */
export const HOST_USAGE =
  '--host devcluster|real: the host cluster is a devcluster process (default) or the real control plane (etcd + kube-apiserver ' +
  'from the kube-assets in VCSYNC_KUBE_ASSETS: `export VCSYNC_KUBE_ASSETS=$(npm run --silent kube-assets | tail -n 1)`); ' +
  'with real, one server holds every measurement of the run, the baseline included, each in its own namespace';

/** Resolves after `ms`. */
export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs `task(item)` over `items` with at most `concurrency` in flight; rejects on the first failure. */
export async function forEachConcurrent(items, concurrency, task) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      await task(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** Prints an aligned two-column summary. */
export function printSummary(title, rows) {
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log(`\n${title}`);
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
}
