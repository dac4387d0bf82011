import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tarArchive, type TarEntry } from '../../../../tools/image/tar-archive.mjs';

/** GNU tar reads what we write: an independent reader is the specification. */
function gnuTar(args: readonly string[], input: Buffer): string {
  const result = spawnSync('tar', args, { input, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tar ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

const LONG_DIR = 'app/node_modules/@scope/' + 'a-rather-long-package-name/'.repeat(4) + 'lib';
/** Longer than ustar's 255 bytes of prefix and name together: needs a PAX header. */
const VERY_LONG = 'x/' + Array.from({ length: 14 }, (_, i) => `directory-number-${i}`).join('/') + '/file.js';

const ENTRIES: readonly TarEntry[] = [
  { type: 'file', path: 'usr/local/bin/node', mode: 0o755, data: Buffer.from('#!binary\n') },
  { type: 'directory', path: 'tmp', mode: 0o1777 },
  { type: 'symlink', path: 'lib64/ld-linux-x86-64.so.2', target: '/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2' },
  { type: 'file', path: `${LONG_DIR}/index.js`, mode: 0o644, data: Buffer.from('export {};\n') },
  { type: 'file', path: VERY_LONG, mode: 0o644, data: Buffer.alloc(1000, 7) },
  { type: 'symlink', path: 'x/link', target: '../' + 'far/'.repeat(30) + 'target' },
];

describe('tarArchive', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tar-archive-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('lists entries sorted by path, parents added, owner 0/0, the given mtime', () => {
    const listing = gnuTar(['-tv', '--numeric-owner', '--full-time', '-f', '-'], tarArchive(ENTRIES, { mtime: 86_400 }));
    const lines = listing.trim().split('\n');
    const paths = lines.map((line) => line.split(/\s+/)[5]);
    const trimmed = paths.map((path) => (path ?? '').replace(/\/$/, ''));
    expect(trimmed).toEqual([...trimmed].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
    expect(paths).toEqual(expect.arrayContaining(['lib64/', 'lib64/ld-linux-x86-64.so.2', 'tmp/', 'usr/', 'usr/local/', 'usr/local/bin/', 'usr/local/bin/node', 'x/link', VERY_LONG, `${LONG_DIR}/index.js`]));
    expect(new Set(paths).size).toBe(paths.length);
    for (const path of paths.filter((p) => p !== undefined && !p.endsWith('/'))) {
      const parent = path!.slice(0, path!.lastIndexOf('/') + 1);
      if (parent !== '') expect(paths).toContain(parent);
    }
    for (const line of lines) expect(line).toMatch(/^\S+ 0\/0 +\d+ 1970-01-02 00:00:00 /);
    expect(lines.find((line) => line.endsWith(' tmp/'))).toMatch(/^drwxrwxrwt /);
  });

  it('round-trips contents, modes, long names and long link targets through GNU tar', async () => {
    gnuTar(['-x', '-C', dir, '-f', '-'], tarArchive(ENTRIES, { mtime: 0 }));
    expect(await readFile(join(dir, `${LONG_DIR}/index.js`), 'utf8')).toBe('export {};\n');
    expect(await readFile(join(dir, VERY_LONG))).toEqual(Buffer.alloc(1000, 7));
    expect((await stat(join(dir, 'usr/local/bin/node'))).mode & 0o777).toBe(0o755);
    expect(await readlink(join(dir, 'x/link'))).toBe('../' + 'far/'.repeat(30) + 'target');
    expect(await readlink(join(dir, 'lib64/ld-linux-x86-64.so.2'))).toBe('/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2');
  });

  it('gives the same bytes for the same entries in any order, other bytes for another mtime', () => {
    const first = tarArchive(ENTRIES, { mtime: 0 });
    expect(tarArchive([...ENTRIES].reverse(), { mtime: 0 }).equals(first)).toBe(true);
    expect(tarArchive(ENTRIES, { mtime: 1 }).equals(first)).toBe(false);
    expect(first.length % 512).toBe(0);
  });

  it('refuses absolute paths, dot segments, duplicates and entries under a file', () => {
    const file = (path: string): TarEntry => ({ type: 'file', path, mode: 0o644, data: Buffer.alloc(0) });
    expect(() => tarArchive([file('/etc/passwd')], { mtime: 0 })).toThrow(/must be relative/);
    expect(() => tarArchive([file('app/../etc/passwd')], { mtime: 0 })).toThrow(/"\.\." segment/);
    expect(() => tarArchive([file('a'), file('a')], { mtime: 0 })).toThrow(/given twice/);
    expect(() => tarArchive([file('a'), file('a/b')], { mtime: 0 })).toThrow(/lies under a, which is a file/);
    expect(() => tarArchive([file('a')], { mtime: -1 })).toThrow(/mtime/);
  });
});
