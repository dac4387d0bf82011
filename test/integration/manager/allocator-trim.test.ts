import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, assertBuilt } from '../../support/vcsync-cli.js';

const run = promisify(execFile);

/**
 * A process that fragments glibc's heap as a burst of HTTP reads does: 2,400 buffers of ~64 KiB
 * (under malloc's mmap threshold, so they come from an arena), every 16th kept live, the rest
 * collected. `free()` keeps the pages between the live ones; the reclaimer's allocator trim must
 * give them back.
 */
const SCRIPT = `
import { readFileSync } from 'node:fs';
import { v8HeapControl } from ${JSON.stringify(join(REPO_ROOT, 'dist/manager/heap-reclaimer.js'))};
const rssMiB = () => Number(readFileSync('/proc/self/statm', 'utf8').split(' ')[1]) * 4096 / 2 ** 20;
const kept = [];
let all = [];
for (let i = 0; i < 2400; i += 1) {
  const buffer = Buffer.alloc(65536 - 64 + (i % 7) * 8, 1);
  all.push(buffer);
  if (i % 16 === 0) kept.push(buffer);
}
all = undefined;
// Backing stores are freed by the collections' sweeping, which may finish on another thread.
let before = rssMiB();
for (let round = 0; round < 20; round += 1) {
  globalThis.gc();
  await new Promise((resolve) => setTimeout(resolve, 20));
  before = rssMiB();
}
const released = v8HeapControl.trimAllocator();
console.log(JSON.stringify({ before, after: rssMiB(), released, kept: kept.length, glibc: process.report.getReport().header.glibcVersionRuntime ?? null }));
`;

describe('the heap reclaimer\'s allocator trim', () => {
  it('gives glibc\'s free pages between live buffers back to the system (and is a no-op without glibc)', async () => {
    assertBuilt(['src/manager']);
    const { stdout } = await run(process.execPath, ['--expose-gc', '--input-type=module', '-e', SCRIPT], { cwd: REPO_ROOT, timeout: 60_000 });
    const result = JSON.parse(stdout) as { before: number; after: number; released: boolean; glibc: string | null };
    if (result.glibc === null) {
      expect(result.released).toBe(false);
      return;
    }
    expect(result.released).toBe(true);
    // About 140 MiB were allocated and 15/16 of it freed; most of that must leave the RSS.
    expect(result.before - result.after).toBeGreaterThan(60);
  });
});
