import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../support/vcsync-cli.js';

/** The text between the README's bench-table markers. */
function readmeTable(readme: string): string {
  const start = readme.indexOf('<!-- bench-table -->\n');
  const end = readme.indexOf('\n<!-- /bench-table -->');
  expect(start, 'README.md has a <!-- bench-table --> block').toBeGreaterThanOrEqual(0);
  expect(end, 'README.md has a <!-- /bench-table --> end marker').toBeGreaterThan(start);
  return readme.slice(start + '<!-- bench-table -->\n'.length, end);
}

describe('README benchmark table', () => {
  it('is what benchmarks/render-table.mjs renders from benchmarks/results (run `node benchmarks/render-table.mjs --readme` after a benchmark)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(REPO_ROOT, 'benchmarks', 'render-table.mjs')], { cwd: REPO_ROOT });
    const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readmeTable(readme)).toBe(stdout.trimEnd());
  });
});
