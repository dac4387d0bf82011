import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The folders whose files may import each other: the product and the test machinery beside it. */
const ROOTS = [join(REPO_ROOT, 'src'), join(REPO_ROOT, 'testbed')];

/** Every TypeScript file under `dir`, as absolute paths. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * The project files `file` imports: static imports (type-only ones too: a type circle is still a
 * circle in the drawing), re-exports and dynamic `import()` of a literal, read by TypeScript's own
 * pre-processor. Specifiers are relative (or testbed's `#vcsync/`) with a `.js` suffix (module: nodenext), which
 * names the `.ts` beside it.
 */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets: string[] = [];
  for (const { fileName } of importedFiles) {
    const specifier = fileName.startsWith(VCSYNC_IMPORT) ? join(REPO_ROOT, 'src', fileName.slice(VCSYNC_IMPORT.length)) : fileName;
    if (!specifier.startsWith('.') && !specifier.startsWith('/')) continue;
    const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
    if (known.has(target)) targets.push(target);
  }
  return targets;
}

/** testbed/'s name for a module of src/ (package.json "imports"): `#vcsync/<folder>/<file>.js`. */
const VCSYNC_IMPORT = '#vcsync/';

/** The import graph of `files`: file → the project files it imports. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(files.map((file) => [file, importsOf(file, known)]));
}

/**
 * The strongly connected components of more than one file (or a file importing itself), by
 * Tarjan's algorithm: each is a set of files that import each other in a circle.
 */
function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;

  const visit = (file: string): void => {
    index.set(file, next);
    lowLink.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        lowLink.set(file, Math.min(lowLink.get(file) ?? 0, lowLink.get(target) ?? 0));
      } else if (onStack.has(target)) {
        lowLink.set(file, Math.min(lowLink.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (lowLink.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) circles.push(component.sort());
  };

  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

describe('import graph of src/ and testbed/', () => {
  const graph = importGraph(ROOTS.flatMap(sourceFiles));

  it('reads a real graph (every folder is in it and files import each other)', () => {
    expect(graph.size).toBeGreaterThan(100);
    const edges = [...graph.values()].reduce((total, targets) => total + targets.length, 0);
    expect(edges).toBeGreaterThan(graph.size);
    const intoSrc = [...graph].filter(([file, targets]) => file.startsWith(ROOTS[1] ?? '') && targets.some((target) => target.startsWith(ROOTS[0] ?? '')));
    expect(intoSrc.length).toBeGreaterThan(0);
  });

  it('finds a circle when there is one', () => {
    const circle = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
    ]);
    expect(importCircles(circle)).toEqual([['a', 'b', 'c'], ['e']]);
  });

  it('has no import circle', () => {
    const named = importCircles(graph).map((circle) => circle.map((file) => relative(REPO_ROOT, file)));
    expect(named).toEqual([]);
  });
});
