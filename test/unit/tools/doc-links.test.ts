import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The README is a user's document: past this many lines, move the material to docs/. */
const README_MAX_LINES = 550;

/**
 * Link targets another part of the product is still writing (the Helm chart's own README).
 * Listed here they may be missing; once one exists, its entry must go, so the list never hides
 * a link that broke.
 */
const AWAITED = new Set<string>();

/** A relative link of a Markdown file: where it points and on which line. */
interface DocLink {
  line: number;
  target: string;
}

/** The Markdown files users read: README.md and every page under docs/. */
function docFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  return [join(REPO, 'README.md'), ...walk(join(REPO, 'docs'))];
}

/** Every link and image target outside fenced code blocks and inline code, external ones left out. */
export function relativeLinks(markdown: string): DocLink[] {
  const links: DocLink[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, index) => {
    if (/^\s*(```|~~~)/.test(text)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    const withoutCode = text.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ line: index + 1, target });
    }
  });
  return links;
}

/** The anchors GitHub gives the headings of `markdown` (lower case, punctuation dropped, spaces to hyphens, repeats numbered). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const text of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(text)) fenced = !fenced;
    const heading = fenced ? undefined : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** What is wrong with each relative link of `file`: a missing file, or an anchor no heading has. */
export function brokenLinks(file: string, markdown: string, awaited: ReadonlySet<string> = new Set()): string[] {
  const problems: string[] = [];
  for (const { line, target } of relativeLinks(markdown)) {
    const [pathPart = '', anchor] = target.split('#', 2);
    const path = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
    const where = `${relative(REPO, file)}:${line}: (${target})`;
    if (path !== file && !existsSync(path)) {
      if (!awaited.has(relative(REPO, path))) problems.push(`${where} points at ${relative(REPO, path)}, which does not exist`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (path !== file && (statSync(path).isDirectory() || !path.endsWith('.md'))) {
      problems.push(`${where} has an anchor, but ${relative(REPO, path)} is no Markdown file`);
      continue;
    }
    const anchors = path === file ? headingAnchors(markdown) : headingAnchors(readFileSync(path, 'utf8'));
    if (!anchors.has(anchor)) problems.push(`${where}: ${relative(REPO, path)} has no heading with the anchor #${anchor}`);
  }
  return problems;
}

describe('README.md and docs/', () => {
  it(`README.md stays a user's document of at most ${README_MAX_LINES} lines (move the rest to docs/)`, () => {
    const lines = readFileSync(join(REPO, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('every relative link resolves to a file, and every anchor to a heading', () => {
    const problems = docFiles().flatMap((file) => brokenLinks(file, readFileSync(file, 'utf8'), AWAITED));
    expect(problems).toEqual([]);
  });

  it('the awaited link targets are still missing (remove an entry once its file exists)', () => {
    for (const target of AWAITED) expect(existsSync(join(REPO, target)), `${target} exists: remove it from AWAITED`).toBe(false);
  });

  it('finds a missing file, a missing anchor, and ignores code, external links and fenced blocks', () => {
    const file = join(REPO, 'docs', 'example.md');
    const markdown = [
      '# Example page',
      '## Sub `heading`, here',
      '[ok](../README.md) [ok anchor](#sub-heading-here) [ok dir](adr/) [web](https://example.com/x)',
      '[gone](missing.md) ![gone image](../benchmarks/charts/none.svg)',
      '[bad anchor](#nowhere) [bad anchor elsewhere](../README.md#no-such-section)',
      '`[in code](missing-too.md)`',
      '```',
      '[in a fence](missing-three.md)',
      '```',
    ].join('\n');
    expect(brokenLinks(file, markdown)).toEqual([
      'docs/example.md:4: (missing.md) points at docs/missing.md, which does not exist',
      'docs/example.md:4: (../benchmarks/charts/none.svg) points at benchmarks/charts/none.svg, which does not exist',
      'docs/example.md:5: (#nowhere): docs/example.md has no heading with the anchor #nowhere',
      'docs/example.md:5: (../README.md#no-such-section): README.md has no heading with the anchor #no-such-section',
    ]);
  });
});
