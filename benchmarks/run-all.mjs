// Runs every benchmark script in this folder (files named *-*.mjs other than this one) one after
// another in child processes, so each measures on a quiet heap. Results land in
// benchmarks/results/<name>.json; then render-table.mjs --readme renders the README table from
// every results file (those of this run and the ones it did not re-run).
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './lib/bench-run.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { positionals: only } = benchArgs({
  usage: 'usage: node --expose-gc --no-node-snapshot benchmarks/run-all.mjs [NAME…]   (npm run bench [-- NAME…])\nRuns every benchmark, or those whose file name contains a NAME. Build first: npx tsc -p tsconfig.build.json',
  positionals: true,
});
const scripts = readdirSync(here)
  .filter((f) => f.endsWith('.mjs') && f !== 'run-all.mjs' && f !== 'render-table.mjs')
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const script of scripts) {
  console.log(`\n=== ${script}`);
  const result = spawnSync(process.execPath, ['--expose-gc', '--no-node-snapshot', join(here, script)], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed += 1;
    console.error(`${script} exited with ${result.status ?? result.signal}`);
  }
}
const rendered = spawnSync(process.execPath, [join(here, 'render-table.mjs'), '--readme'], { stdio: 'inherit' });
if (rendered.status !== 0) failed += 1;
process.exit(failed === 0 ? 0 : 1);
