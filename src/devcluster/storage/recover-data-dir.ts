import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../observe/logger.js';
import { corruptDataError } from './data-dir-error.js';
import { errorCode } from './data-dir-lock.js';
import { deepFreeze } from '../../apimachinery/index.js';
import { isLogRecord, scanFramedLines, type LogRecord } from './log-record.js';
import { namespaceOf, ObjectTable } from './object-table.js';
import { readSnapshot } from './snapshot-file.js';
import type { StoreEvent } from './types.js';

/** Name of the write-ahead log inside a data directory. */
export const WAL_FILE_NAME = 'wal.jsonl';
/** Name of the snapshot inside a data directory. */
export const SNAPSHOT_FILE_NAME = 'snapshot.jsonl';

/** What a data directory held. */
export interface RecoveredState {
  /** The live objects (frozen). */
  objects: ObjectTable;
  /** The highest persisted revision (snapshot header or last log record); 0 when empty. */
  revision: number;
  /** The last `watchWindow` logged events after the snapshot, oldest first. */
  events: StoreEvent[];
  /** Bytes of the log that hold whole valid records; a torn tail beyond it must be cut off. */
  validLogBytes: number;
  /** Bytes of the log file as found (0 when missing). */
  logFileBytes: number;
}

const EVENT_TYPES = { create: 'ADDED', update: 'MODIFIED', delete: 'DELETED' } as const;

/**
 * Rebuilds the state of a data directory from its snapshot and the log records after it. A
 * final log record cut short by a crash (or garbage after the last valid record with no valid
 * record following it) is a torn tail: reported in `validLogBytes` and logged, never an error.
 * Any other invalid data fails with `DataDirError('Corrupt')` naming the file and byte offset.
 */
export async function recoverDataDir(dir: string, watchWindow: number, logger: Logger): Promise<RecoveredState> {
  // A staging file left by a crash during compaction is incomplete by definition.
  await rm(join(dir, `${SNAPSHOT_FILE_NAME}.tmp`), { force: true });
  const snapshotPath = join(dir, SNAPSHOT_FILE_NAME);
  const snapshot = await readSnapshot(snapshotPath);
  const objects = new ObjectTable();
  for (const entry of snapshot?.entries ?? []) {
    objects.put(entry.resource, entry.object);
  }
  const snapshotRevision = snapshot?.revision ?? 0;
  let revision = snapshotRevision;

  const logPath = join(dir, WAL_FILE_NAME);
  const log = await readFile(logPath).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') {
      return Buffer.alloc(0);
    }
    throw error;
  });
  let events: StoreEvent[] = [];
  let validLogBytes = 0;
  let lastLogRevision = 0;
  let invalidAt: number | undefined;
  for (const line of scanFramedLines(log)) {
    if (invalidAt !== undefined) {
      if (line.value !== undefined) {
        throw corruptDataError(logPath, invalidAt, 'a record has a bad checksum or is incomplete, and valid records follow it');
      }
      continue;
    }
    if (line.value === undefined) {
      invalidAt = line.offset;
      continue;
    }
    if (!isLogRecord(line.value)) {
      throw corruptDataError(logPath, line.offset, 'a line with a valid checksum is not a {rev, op, resource, object} record');
    }
    const record: LogRecord = line.value;
    if (record.rev <= lastLogRevision) {
      throw corruptDataError(logPath, line.offset, `revision ${record.rev} does not follow revision ${lastLogRevision}`);
    }
    lastLogRevision = record.rev;
    validLogBytes = line.end;
    if (record.rev <= snapshotRevision) {
      continue; // already in the snapshot: compaction stopped before it emptied the log
    }
    const object = deepFreeze(record.object);
    const previous = objects.get({ resource: record.resource, namespace: namespaceOf(object), name: object.metadata.name });
    if (record.op === 'delete') {
      objects.remove({ resource: record.resource, namespace: namespaceOf(object), name: object.metadata.name });
    } else {
      objects.put(record.resource, object);
    }
    revision = record.rev;
    events.push({ type: EVENT_TYPES[record.op], resource: record.resource, object, revision: record.rev, ...(previous !== undefined ? { previous } : {}) });
    if (events.length >= 2 * watchWindow) {
      events = events.slice(-watchWindow);
    }
  }
  if (invalidAt !== undefined) {
    logger.warn(
      { file: logPath, offset: invalidAt, droppedBytes: log.length - invalidAt },
      'Ignoring a torn final record in the store log (a crash interrupted a write that was never acknowledged)',
    );
  }
  return { objects, revision, events: events.slice(-watchWindow), validLogBytes, logFileBytes: log.length };
}
