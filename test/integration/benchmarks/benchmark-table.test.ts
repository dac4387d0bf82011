import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/vcsync-cli.js';
import { parseXml, type XmlElement } from '../../support/xml-well-formed.js';

const CHARTS = join(REPO_ROOT, 'benchmarks', 'charts');
const REGENERATE = 'run `node benchmarks/render-table.mjs --docs` after a benchmark';
const PAGE = join(REPO_ROOT, 'docs', 'benchmarks.md');

/** The text between the bench-table markers of docs/benchmarks.md. */
function generatedTable(page: string): string {
  const start = page.indexOf('<!-- bench-table -->\n');
  const end = page.indexOf('\n<!-- /bench-table -->');
  expect(start, 'docs/benchmarks.md has a <!-- bench-table --> block').toBeGreaterThanOrEqual(0);
  expect(end, 'docs/benchmarks.md has a <!-- /bench-table --> end marker').toBeGreaterThan(start);
  return page.slice(start + '<!-- bench-table -->\n'.length, end);
}

/** Every element of `root`, depth first. */
function elements(root: XmlElement): XmlElement[] {
  return [root, ...root.children.flatMap(elements)];
}

/** The .svg files of `dir`, by name, with their text. */
async function svgFiles(dir: string): Promise<Map<string, string>> {
  const names = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.svg')).sort();
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(dir, name), 'utf8')] as const)));
}

describe('the benchmark table of docs/benchmarks.md and the charts', () => {
  it(`are what benchmarks/render-table.mjs renders from benchmarks/results (${REGENERATE})`, async () => {
    const rendered = await mkdtemp(join(tmpdir(), 'bench-charts-'));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [join(REPO_ROOT, 'benchmarks', 'render-table.mjs'), '--charts', rendered], { cwd: REPO_ROOT });
      const block = generatedTable(await readFile(PAGE, 'utf8'));
      expect(block).toBe(stdout.trimEnd());

      const expected = await svgFiles(rendered);
      const committed = await svgFiles(CHARTS);
      expect(expected.size, 'results with baselines render charts').toBeGreaterThan(0);
      expect([...committed.keys()], `benchmarks/charts/ holds exactly the charts of the results (${REGENERATE})`).toEqual([...expected.keys()]);
      for (const [name, svg] of expected) {
        expect(committed.get(name), `benchmarks/charts/${name} differs from what its result renders to (${REGENERATE})`).toBe(svg);
        const root = parseXml(svg);
        expect(root.name).toBe('svg');
        expect(root.attributes['xmlns']).toBe('http://www.w3.org/2000/svg');
        expect(elements(root).filter((e) => e.name === 'rect').length, `${name}: a bar per compared row`).toBeGreaterThan(1);
        expect(block, `docs/benchmarks.md shows ${name}`).toContain(`](../benchmarks/charts/${name})`);
      }
    } finally {
      await rm(rendered, { recursive: true, force: true });
    }
  });

  it('the XML check refuses what is not well-formed', () => {
    expect(parseXml('<?xml version="1.0"?>\n<svg a="1 &amp; 2"><g/><!-- c --><text>x &lt; y</text></svg>\n').children.map((c) => c.name)).toEqual(['g', 'text']);
    for (const bad of ['<svg><g></svg>', '<svg>a & b</svg>', '<svg a="<"/>', '<svg a="1" a="2"/>', '<svg/><svg/>', '<svg>', '<svg a=1/>', '<svg a="1"b="2"/>']) {
      expect(() => parseXml(bad), bad).toThrow(SyntaxError);
    }
  });
});
