// Runs every benchmark script in this folder (files named *-*.mjs other than this one) one after
// another in child processes, so each measures on a quiet heap; the syncer benchmarks that measure
// one synced resource at a time run once per resource (`--resource endpoints`, then
// `--resource endpointslices`). Results land in benchmarks/results/<name>.json; then
// render-table.mjs --docs renders the table of docs/benchmarks.md from every results file (those of this run
// and the ones it did not re-run).
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './lib/bench-run.mjs';

const here = dirname(fileURLToPath(import.meta.url));
/** The scripts that measure one synced resource per run (their `--resource`), and the resources (SYNC_RESOURCES of lib/endpoints-fixtures.mjs). */
const PER_RESOURCE = ['syncer-bulk.mjs', 'syncer-latency.mjs', 'syncer-memory.mjs'];
const RESOURCES = ['endpoints', 'endpointslices'];
const { positionals: only } = benchArgs({
  usage:
    'usage: node --expose-gc --no-node-snapshot benchmarks/run-all.mjs [NAME…]   (npm run bench [-- NAME…])\n' +
    `Runs every benchmark, or those whose file name contains a NAME; ${PER_RESOURCE.join(', ')} run once per synced resource ` +
    `(${RESOURCES.map((r) => `--resource ${r}`).join(', ')}), and a NAME may also be the resource (\`npm run bench -- endpointslices\`). ` +
    'Build first: npx tsc -p tsconfig.build.json',
  positionals: true,
});
const runs = readdirSync(here)
  .filter((f) => f.endsWith('.mjs') && f !== 'run-all.mjs' && f !== 'render-table.mjs')
  .sort()
  .flatMap((f) => (PER_RESOURCE.includes(f) ? RESOURCES.map((resource) => [f, '--resource', resource]) : [[f]]))
  .filter((run) => only.length === 0 || only.some((o) => run.join(' ').includes(o)));
let failed = 0;
for (const [script, ...args] of runs) {
  const label = [script, ...args].join(' ');
  console.log(`\n=== ${label}`);
  const result = spawnSync(process.execPath, ['--expose-gc', '--no-node-snapshot', join(here, script), ...args], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed += 1;
    console.error(`${label} exited with ${result.status ?? result.signal}`);
  }
}
const rendered = spawnSync(process.execPath, [join(here, 'render-table.mjs'), '--docs'], { stdio: 'inherit' });
if (rendered.status !== 0) failed += 1;
process.exit(failed === 0 ? 0 : 1);
