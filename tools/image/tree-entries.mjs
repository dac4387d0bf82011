// Turns a directory on disk into tar entries under a path prefix, keeping only what an image
// needs to reproduce: the content, whether a file is executable, and symlink targets. Owners,
// timestamps and umask-dependent bits of the build machine are dropped.
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Entries for every directory, regular file and symlink under `sourceDir`, at `prefix/<relative
 * path>`: files 0755 if any execute bit is set, else 0644; directories 0755. `skip(relative)`
 * leaves a path (and what is under it) out. Throws on anything else (a socket, a device, a FIFO).
 */
export async function treeEntries(sourceDir, prefix, skip = () => false) {
  const entries = [];
  async function walk(relative) {
    const names = (await readdir(join(sourceDir, relative))).sort();
    for (const name of names) {
      const child = relative === '' ? name : `${relative}/${name}`;
      if (skip(child)) continue;
      const absolute = join(sourceDir, child);
      const path = `${prefix}/${child}`;
      const info = await lstat(absolute);
      if (info.isSymbolicLink()) entries.push({ type: 'symlink', path, target: await readlink(absolute) });
      else if (info.isDirectory()) {
        entries.push({ type: 'directory', path, mode: 0o755 });
        await walk(child);
      } else if (info.isFile()) entries.push({ type: 'file', path, mode: info.mode & 0o111 ? 0o755 : 0o644, data: await readFile(absolute) });
      else throw new Error(`${absolute} is neither a file, a directory nor a symlink: an image cannot hold it`);
    }
  }
  entries.push({ type: 'directory', path: prefix, mode: 0o755 });
  await walk('');
  return entries;
}
