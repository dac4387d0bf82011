// Prints the benchmark table of docs/benchmarks.md (Markdown) from every benchmarks/results/*.json that has a
// `table` field: an array of `{ benchmark, metric, value, baseline?, ratio? }` rows. Each result's
// command, node version and date follow the table so every figure can be reproduced, then one
// chart per result file that compares figures with baselines (benchmarks/charts/<result>.svg,
// lib/ratio-chart.mjs). With `--docs` it replaces the table between the bench-table markers of
// docs/benchmarks.md instead of printing it, and writes the charts (`npm run bench` does that after
// the benchmarks ran); `--charts DIR` writes the charts into DIR instead (the table's test compares them).
//
//   node benchmarks/render-table.mjs > /tmp/table.md
//   node benchmarks/render-table.mjs --docs
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs, repoDir } from './lib/bench-run.mjs';
import { ratioChart } from './lib/ratio-chart.mjs';

const { docs, charts: chartsOption } = benchArgs({
  usage: 'usage: node benchmarks/render-table.mjs [--docs] [--charts DIR] > table.md\nPrints the benchmark table from benchmarks/results/*.json; --docs writes it into docs/benchmarks.md between the bench-table markers and the charts into benchmarks/charts/; --charts DIR writes the charts into DIR.',
  flags: ['docs'],
  strings: { charts: undefined },
});

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results');

function cell(value) {
  if (value === undefined || value === null) return '';
  return String(value).replaceAll('|', '\\|').replaceAll('\n', ' ');
}

const documents = readdirSync(resultsDir)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => ({ file, document: JSON.parse(readFileSync(join(resultsDir, file), 'utf8')) }))
  .filter(({ document }) => Array.isArray(document.table) && document.table.length > 0);

if (documents.length === 0) {
  console.error(`no results with a "table" field in ${resultsDir}`);
  process.exit(1);
}

const lines = ['| Benchmark | Metric | Value | Baseline | Ratio |', '| --- | --- | ---: | ---: | ---: |'];
for (const { document } of documents) {
  for (const row of document.table) {
    lines.push(`| ${cell(row.benchmark)} | ${cell(row.metric)} | ${cell(row.value)} | ${cell(row.baseline)} | ${cell(row.ratio)} |`);
  }
}
lines.push('');
for (const { file, document } of documents) {
  const when = document.date ? document.date.slice(0, 10) : 'unknown date';
  const quick = document.quick === true ? ', quick mode' : '';
  const load = Array.isArray(document.machine?.loadAverage) ? `, load average ${document.machine.loadAverage.join(' / ')} on ${document.machine.cpus} CPUs` : '';
  lines.push(`- \`${file}\`: \`${document.command ?? 'unknown command'}\` (Node ${document.node ?? '?'}, ${when}${quick}${load})`);
}
const charts = documents
  .map(({ file, document }) => {
    const name = file.replace(/\.json$/, '');
    return { name, svg: ratioChart({ title: name, rows: document.table }) };
  })
  .filter((chart) => chart.svg !== undefined);
if (charts.length > 0) {
  lines.push('', 'Each result\'s figures against their baselines (ratio, log scale; hover a bar for the figures):', '');
  for (const { name } of charts) lines.push(`![${name}: figures against baselines](../benchmarks/charts/${name}.svg)`);
}
const table = lines.join('\n');

/** Writes the charts into `dir` as <result>.svg, removing any other .svg there (a result that went away). */
function writeCharts(dir) {
  mkdirSync(dir, { recursive: true });
  const names = new Set(charts.map(({ name }) => `${name}.svg`));
  for (const file of readdirSync(dir)) if (file.endsWith('.svg') && !names.has(file)) rmSync(join(dir, file));
  for (const { name, svg } of charts) writeFileSync(join(dir, `${name}.svg`), svg);
}
if (chartsOption !== undefined) writeCharts(chartsOption);
if (docs) {
  const file = join(repoDir, 'docs', 'benchmarks.md');
  const text = readFileSync(file, 'utf8');
  const start = '<!-- bench-table -->\n';
  const end = '\n<!-- /bench-table -->';
  const from = text.indexOf(start);
  const to = text.indexOf(end, from);
  if (from < 0 || to < 0) {
    console.error(`docs/benchmarks.md has no "<!-- bench-table -->" … "<!-- /bench-table -->" block to replace (${file})`);
    process.exit(1);
  }
  writeFileSync(file, `${text.slice(0, from + start.length)}${table}${text.slice(to)}`);
  writeCharts(join(repoDir, 'benchmarks', 'charts'));
  console.log(`docs/benchmarks.md: benchmark table rendered from ${documents.length} result files, ${charts.length} charts in benchmarks/charts/`);
} else {
  console.log(table);
}
