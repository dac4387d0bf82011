import { open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { deepFreeze } from '../../apimachinery/index.js';
import { corruptDataError } from './data-dir-error.js';
import { errorCode } from './data-dir-lock.js';
import { frameLine, scanFramedLines } from './log-record.js';
import type { ResourceId, StoredObject } from './types.js';

/** The snapshot format name and version written in every snapshot's header line. */
export const SNAPSHOT_FORMAT = 'vcsync-devcluster-snapshot';
/** The snapshot format version this code reads and writes. */
export const SNAPSHOT_VERSION = 1;

/** One live object of a snapshot. */
export interface SnapshotEntry {
  resource: ResourceId;
  object: StoredObject;
}

/** A snapshot as read back: the revision it reflects and its (frozen) objects. */
export interface Snapshot {
  revision: number;
  entries: SnapshotEntry[];
}

interface SnapshotHeader {
  format: string;
  version: number;
  revision: number;
  objects: number;
}

const CHUNK_BYTES = 1024 * 1024;

/**
 * Writes a snapshot atomically: header and objects to `<path>.tmp`, fsync, rename over `path`,
 * fsync the directory. A crash at any point leaves either the old snapshot or the new one.
 */
export async function writeSnapshot(path: string, revision: number, entries: readonly SnapshotEntry[]): Promise<void> {
  const staging = `${path}.tmp`;
  const handle = await open(staging, 'w', 0o600);
  try {
    const header: SnapshotHeader = { format: SNAPSHOT_FORMAT, version: SNAPSHOT_VERSION, revision, objects: entries.length };
    let chunk: Buffer[] = [frameLine(JSON.stringify(header))];
    let chunkBytes = 0;
    for (const entry of entries) {
      const line = frameLine(JSON.stringify(entry));
      chunk.push(line);
      chunkBytes += line.length;
      if (chunkBytes >= CHUNK_BYTES) {
        await handle.writeFile(Buffer.concat(chunk));
        chunk = [];
        chunkBytes = 0;
      }
    }
    await handle.writeFile(Buffer.concat(chunk));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(staging, path);
  await fsyncDirectory(dirname(path));
}

/**
 * Reads the snapshot at `path`; undefined when there is none. Any invalid byte is corruption (a
 * snapshot only ever appears complete, by rename) and fails with `DataDirError('Corrupt')`.
 */
export async function readSnapshot(path: string): Promise<Snapshot | undefined> {
  let buffer: Buffer;
  try {
    buffer = await readFile(path);
  } catch (error: unknown) {
    if (errorCode(error) === 'ENOENT') {
      return undefined;
    }
    throw error;
  }
  let header: SnapshotHeader | undefined;
  const entries: SnapshotEntry[] = [];
  for (const line of scanFramedLines(buffer)) {
    if (!line.terminated || line.value === undefined) {
      throw corruptDataError(path, line.offset, 'a line has a bad checksum or is incomplete');
    }
    if (header === undefined) {
      if (!isHeader(line.value)) {
        throw corruptDataError(path, line.offset, `the first line is not a ${SNAPSHOT_FORMAT} version ${SNAPSHOT_VERSION} header`);
      }
      header = line.value;
      continue;
    }
    if (!isEntry(line.value)) {
      throw corruptDataError(path, line.offset, 'a line is not a {resource, object} entry');
    }
    entries.push(deepFreeze(line.value));
  }
  if (header === undefined) {
    throw corruptDataError(path, 0, 'the file is empty');
  }
  if (entries.length !== header.objects) {
    throw corruptDataError(path, buffer.length, `the header announces ${header.objects} objects but ${entries.length} follow`);
  }
  return { revision: header.revision, entries };
}

/** fsyncs a directory so that a rename or a new file in it survives a crash. */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isHeader(value: unknown): value is SnapshotHeader {
  const header = value as Partial<SnapshotHeader> | null;
  return (
    typeof header === 'object' &&
    header !== null &&
    header.format === SNAPSHOT_FORMAT &&
    header.version === SNAPSHOT_VERSION &&
    Number.isSafeInteger(header.revision) &&
    Number.isSafeInteger(header.objects)
  );
}

function isEntry(value: unknown): value is SnapshotEntry {
  const entry = value as Partial<SnapshotEntry> | null;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof entry.resource === 'string' &&
    typeof entry.object === 'object' &&
    entry.object !== null &&
    typeof entry.object.metadata?.name === 'string'
  );
}
