// Devcluster body limits: how long a devcluster process takes to answer bodies past the limits
// (each must be refused quickly, before parsing) and the costliest bodies within them. Every body
// is POSTed `--runs` times (default 5) to a devcluster in its own process, one at a time; accepted
// bodies use dryRun=All so nothing is stored. Imports nothing from dist/ but runs
// dist/cli/main.js, so build first: `npx tsc -p tsconfig.build.json`.
// Results: benchmarks/results/devcluster-body-limits.json (no README table rows).
import { loadavg } from 'node:os';
import { benchArgs, median, printSummary, round, tempDir, writeResult } from './lib/bench-run.mjs';
import { startDevClusterProcess } from './lib/cluster-processes.mjs';

const { runs: RUNS } = benchArgs({
  usage: 'usage: node benchmarks/devcluster-body-limits.mjs [--runs 5]\n(build first: npx tsc -p tsconfig.build.json)',
  numbers: { runs: 5 },
});
const MiB = 1024 * 1024;
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

const configMapYaml = (name, rest) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${rest}`;

function billionLaughs() {
  const lines = [`a: &a [${Array(9).fill('lol').join(', ')}]`];
  for (const [index, name] of [...'bcdefghi'].entries()) lines.push(`${name}: &${name} [${Array(9).fill(`*${'abcdefghi'[index]}`).join(', ')}]`);
  return configMapYaml('laughs', `${lines.join('\n')}\n`);
}

/** [name, content type, body, expected status] */
const CASES = [
  ['100,000 [ as YAML', 'application/yaml', '['.repeat(100_000), 400],
  ['100,000 [ as JSON', 'application/json', '['.repeat(100_000), 400],
  ['valid JSON nested 100,000 deep', 'application/json', `{"metadata":{"name":"deep"},"extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, 400],
  ['YAML nested 150 deep (block)', 'application/yaml', configMapYaml('block', `extra:\n${Array.from({ length: 150 }, (_, level) => `${' '.repeat(level + 1)}k${level}:`).join('\n')} x\n`), 400],
  ['YAML billion laughs (9 x 9 aliases)', 'application/yaml', billionLaughs(), 400],
  ['YAML alias cycle', 'application/yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cycle, annotations: &a {x: *a}}\n', 400],
  ['YAML 3,000 keys (21,000 tokens)', 'application/yaml', configMapYaml('tokens', `data:\n${Array.from({ length: 3000 }, (_, index) => `  k${index}: v`).join('\n')}\n`), 400],
  ['YAML block scalar of 150,000 lines', 'application/yaml', configMapYaml('lines', `data:\n  a: |\n    x\n${'\n'.repeat(150_000)}    y\n`), 400],
  ['YAML scalar past 3 MiB', 'application/yaml', configMapYaml('huge', `data:\n  a: ${'x'.repeat(3 * MiB)}\n`), 413],
  ['JSON scalar past 3 MiB', 'application/json', JSON.stringify({ metadata: { name: 'huge' }, data: { a: 'x'.repeat(3 * MiB) } }), 413],
  ['YAML plain scalar of 3 MiB - 1 KiB', 'application/yaml', configMapYaml('plain', `data:\n  a: ${'x'.repeat(3 * MiB - 1024)}\n`), 413],
  ['YAML double-quoted scalar of 3 MiB - 1 KiB', 'application/yaml', configMapYaml('quoted', `data:\n  a: "${'x'.repeat(3 * MiB - 1024)}"\n`), 413],
  ['JSON string of 3 MiB - 1 KiB', 'application/json', JSON.stringify({ metadata: { name: 'json' }, data: { a: 'x'.repeat(3 * MiB - 1024) } }), 413],
  ['YAML 1,200 keys (9,631 tokens)', 'application/yaml', configMapYaml('keys', `data:\n${Array.from({ length: 1200 }, (_, index) => `  k${index}: v`).join('\n')}\n`), 201],
];

async function post(url, contentType, body) {
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });
  const text = await response.text();
  return { status: response.status, ms: performance.now() - started, text };
}

const dir = await tempDir('body-limits');
const server = await startDevClusterProcess('body-limits', dir.path);
const results = [];
try {
  for (const [name, contentType, body, expected] of CASES) {
    const url = `${server.url}${CONFIGMAPS}${expected === 201 ? '?dryRun=All' : ''}`;
    const times = [];
    for (let run = 0; run < RUNS; run += 1) {
      const answer = await post(url, contentType, body);
      if (answer.status !== expected) throw new Error(`${name}: expected ${expected}, got ${answer.status}: ${answer.text.slice(0, 300)}`);
      times.push(answer.ms);
    }
    const health = await fetch(`${server.url}/healthz`);
    if (health.status !== 200) throw new Error(`${name}: the devcluster stopped answering`);
    results.push({ case: name, contentType, bytes: Buffer.byteLength(body), status: expected, medianMs: round(median(times), 1), maxMs: round(Math.max(...times), 1) });
  }
} finally {
  await server.stop();
  await dir.dispose();
}

printSummary(
  `POST ${CONFIGMAPS}, ${RUNS} runs each (median / max ms)`,
  results.map((result) => [`${result.status} ${result.case}`, `${result.medianMs} / ${result.maxMs}`]),
);
// The machine's load matters here: these are single-threaded parses on a shared machine.
const file = await writeResult('devcluster-body-limits', { runs: RUNS, loadAverage: loadavg().map((load) => round(load, 2)), cases: results });
console.log(`\nwrote ${file}`);
