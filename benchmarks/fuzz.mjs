// Fuzzing, longer than npm test runs it: the same fuzzers as
// test/unit/patches/expression-fuzz.test.ts and test/integration/devcluster/devcluster-fuzz.test.ts
// (testbed/fuzz/, from build/testbed/: `npm run build:testbed` first) with many more cases:
//
//   expressions  hostile and generated patch expressions through compilePatches and the real
//                isolated-vm sandbox: each compiles or is rejected with a located error, runs
//                within its limits, and a known-good expression still answers as on a fresh isolate;
//   devcluster   random HTTP requests to a devcluster requiring a token, without credentials and
//                as the admin: every answer a 2xx or 4xx Status, nothing stored without credentials.
//
// Results (counts tried, rejected, failed at run, problems found, time): benchmarks/results/fuzz.json,
// without README table rows (its figures are counts, quoted in README "Testing").
// Exits 1 when a problem was found (each printed with the seed that replays it).
import { benchArgs, round, writeResult } from './lib/bench-run.mjs';
import { runExpressionFuzz } from '../build/testbed/fuzz/expression-fuzz.js';
import { runDevclusterFuzz } from '../build/testbed/fuzz/http-fuzz.js';

const options = benchArgs({
  usage:
    'usage: node --no-node-snapshot benchmarks/fuzz.mjs [--quick] [--seed 20261123] [--expressions 5000] [--requests 3000]\n' +
    'Runs the expression and devcluster HTTP fuzzers with more cases than npm test (--requests of each: without credentials and as the admin).\n' +
    '(build first: npm run build && npm run build:testbed)',
  numbers: { seed: 20261123, expressions: (quick) => (quick ? 200 : 5000), requests: (quick) => (quick ? 100 : 3000) },
});

const started = performance.now();
const expressionStart = performance.now();
const expressions = await runExpressionFuzz({ seed: options.seed, count: options.expressions });
const expressionSeconds = (performance.now() - expressionStart) / 1000;
const httpStart = performance.now();
const devcluster = await runDevclusterFuzz({ seed: options.seed, count: options.requests });
const httpSeconds = (performance.now() - httpStart) / 1000;

const problems = [...expressions.problems, ...devcluster.problems];
for (const problem of problems.slice(0, 50)) console.error(problem);
const failedAtRun = Object.values(expressions.failedAtRun).reduce((sum, n) => sum + n, 0);
console.log(`expressions: ${expressions.tried} tried, ${expressions.rejected} rejected, ${expressions.evaluated} evaluated, ${failedAtRun} failed at run ${JSON.stringify(expressions.failedAtRun)}, ${expressions.problems.length} problems, ${round(expressionSeconds, 1)} s`);
console.log(`devcluster: ${devcluster.tried} requests ${JSON.stringify(devcluster.statuses)}, ${devcluster.problems.length} problems, ${round(httpSeconds, 1)} s`);
const file = await writeResult('fuzz', {
  quick: options.quick,
  seed: options.seed,
  expressions: { ...expressions, problems: expressions.problems.length, seconds: round(expressionSeconds, 1) },
  devcluster: { ...devcluster, problems: devcluster.problems.length, seconds: round(httpSeconds, 1) },
  problems: problems.slice(0, 100),
  seconds: round((performance.now() - started) / 1000, 1),
});
console.log(`wrote ${file}`);
process.exit(problems.length === 0 ? 0 : 1);
