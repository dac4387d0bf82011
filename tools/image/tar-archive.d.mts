/** A regular file: its bytes and its permission bits (e.g. 0o644, 0o755). */
export interface TarFile {
  readonly type: 'file';
  /** Relative path inside the archive, `/`-separated, no leading slash (e.g. `usr/local/bin/node`). */
  readonly path: string;
  readonly mode: number;
  readonly data: Buffer;
}

/** A directory and its permission bits (e.g. 0o755, 0o1777 for a sticky /tmp). */
export interface TarDirectory {
  readonly type: 'directory';
  readonly path: string;
  readonly mode: number;
}

/** A symbolic link to `target` (absolute or relative, as the link should read). */
export interface TarSymlink {
  readonly type: 'symlink';
  readonly path: string;
  readonly target: string;
}

export type TarEntry = TarFile | TarDirectory | TarSymlink;

/**
 * The archive of `entries` with every timestamp set to `mtime` (seconds since the epoch), owner
 * 0:0 without names, entries sorted by path and missing parent directories added (0755): the same
 * entries give the same bytes. Throws on an absolute path, a `.`/`..`/empty segment, or a path
 * given twice.
 */
export function tarArchive(entries: Iterable<TarEntry>, options: { readonly mtime: number }): Buffer;
