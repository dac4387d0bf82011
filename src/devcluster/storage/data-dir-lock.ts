import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger } from '../../observe/logger.js';
import { DataDirError } from './data-dir-error.js';
import { holdsLockAlive, ownStartTicks } from './process-liveness.js';

/** Name of the lock file inside a data directory. */
export const LOCK_FILE_NAME = 'LOCK';

/** An acquired data-directory lock. */
export interface DataDirLock {
  /** Absolute path of the lock file. */
  readonly path: string;
  /** Removes the lock file if it is still ours; idempotent. */
  release(): Promise<void>;
}

// Which lock files this process holds. A lock is a per-process resource by nature, so this set is
// process-wide: it tells a second store in the same process apart from a stale lock left by an
// earlier process that had our pid (pid 1 in containers, for example).
const heldLocks = new Set<string>();

/**
 * Takes the lock file of `dir` for this process: a file holding our pid and, where /proc exists,
 * our start time (`start <ticks>`), created atomically (written aside, then hard-linked into
 * place, so a reader never sees it empty). A lock is stale, and taken over, when its process is
 * gone, is a zombie (killed by `kill -9` and not yet reaped: a dead process holds no lock), or is
 * a later process that reuses the pid (its start time differs). Rejects with
 * `DataDirError('Locked')` when a live process, or another store in this process, holds it.
 *
 * Two processes taking over the same stale lock at the same instant could both succeed; the
 * devcluster starts one store per directory, and the window is a few microseconds.
 */
export async function acquireDataDirLock(dir: string, logger: Logger): Promise<DataDirLock> {
  const path = join(resolve(dir), LOCK_FILE_NAME);
  if (heldLocks.has(path)) {
    throw new DataDirError('Locked', path, `${path} is held by another store in this process; close it first`);
  }
  const startTicks = await ownStartTicks();
  const content = startTicks === undefined ? `${process.pid}\n` : `${process.pid}\nstart ${startTicks}\n`;
  const staging = `${path}.${process.pid}.tmp`;
  await writeFile(staging, content, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await link(staging, path);
        heldLocks.add(path);
        return lockHandle(path, content);
      } catch (error: unknown) {
        if (errorCode(error) !== 'EEXIST') {
          throw error;
        }
      }
      const holder = await readFile(path, 'utf8').catch((error: unknown) => {
        if (errorCode(error) === 'ENOENT') {
          return undefined; // released meanwhile: try to link again
        }
        throw error;
      });
      if (holder === undefined) {
        continue;
      }
      const { pid, startTicks: holderStart } = parseLockFile(holder);
      if (pid !== undefined && pid !== process.pid && (await holdsLockAlive(pid, holderStart))) {
        throw new DataDirError(
          'Locked',
          path,
          `${dir} is in use by process ${pid} (lock file ${path}); stop that process or use another data directory`,
        );
      }
      logger.warn({ lockFile: path, stalePid: pid ?? holder.trim() }, 'Taking over a stale data directory lock');
      await unlink(path).catch((error: unknown) => {
        if (errorCode(error) !== 'ENOENT') {
          throw error;
        }
      });
    }
    throw new DataDirError('Locked', path, `could not take the lock file ${path}: it keeps changing; is another process starting?`);
  } finally {
    await unlink(staging).catch(() => undefined); // only a staging copy; the lock is the link
  }
}

function lockHandle(path: string, content: string): DataDirLock {
  let released = false;
  return {
    path,
    release: async () => {
      if (released) {
        return;
      }
      released = true;
      heldLocks.delete(path);
      const holder = await readFile(path, 'utf8').catch(() => undefined);
      if (holder === content) {
        await unlink(path).catch((error: unknown) => {
          if (errorCode(error) !== 'ENOENT') {
            throw error;
          }
        });
      }
    },
  };
}

/**
 * Reads a lock file: the pid on its first line and, when present, `start <ticks>` on the second.
 * A file written before start times were recorded has only the pid.
 */
export function parseLockFile(text: string): { pid: number | undefined; startTicks: string | undefined } {
  const [first = '', second = ''] = text.split('\n');
  const pid = Number.parseInt(first.trim(), 10);
  const start = /^start (\d+)$/.exec(second.trim());
  return {
    pid: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined,
    startTicks: start?.[1],
  };
}

/** The `code` of a Node.js system error, if any. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}
