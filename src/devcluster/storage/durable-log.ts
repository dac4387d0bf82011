import type { FileHandle } from 'node:fs/promises';
import type { Logger } from '../../observe/logger.js';
import { frameLine, type LogRecord } from './log-record.js';
import type { ObjectTable } from './object-table.js';
import { writeSnapshot } from './snapshot-file.js';
import { StoreError } from './types.js';
import type { Journal } from './versioned-store.js';

/** What a {@link DurableLog} appends to and compacts into. */
export interface DurableLogInit {
  /** The log file, opened for appending, holding `sizeBytes` bytes of valid records. */
  handle: FileHandle;
  /** Path of the log file (for messages). */
  logPath: string;
  /** Path of the snapshot that compaction replaces. */
  snapshotPath: string;
  /** Current size of the log in bytes. */
  sizeBytes: number;
  /** Highest revision already persisted (snapshot or log). */
  revision: number;
  /** Log size in bytes past which to compact. */
  compactAfterBytes: number;
  /**
   * The committed objects. Between two batches it holds exactly the effect of every record
   * written so far, which is what a snapshot must contain.
   */
  objects: ObjectTable;
  logger: Logger;
}

interface QueuedRecord {
  line: Buffer;
  revision: number;
  onDurable: () => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The append-only write-ahead log with group commit: records appended while an fsync runs are
 * written and fsynced together by the next one, so N concurrent writers cost about one fsync, not
 * N. After a batch, when the log has grown past `compactAfterBytes`, writes a snapshot of the
 * live objects (atomically) and empties the log.
 *
 * A failed write or fsync is fatal: that batch and everything queued behind it are rejected, and
 * so is every later append; reopening the store recovers what reached the disk.
 */
export class DurableLog implements Journal {
  readonly #init: DurableLogInit;
  #queue: QueuedRecord[] = [];
  #sizeBytes: number;
  #revision: number;
  #compactAtBytes: number;
  #running = false;
  #idle: Promise<void> = Promise.resolve();
  #closed = false;
  #failure: unknown;
  #compactions = 0;

  /** Takes over an open log file; does no I/O until the first append. */
  constructor(init: DurableLogInit) {
    this.#init = init;
    this.#sizeBytes = init.sizeBytes;
    this.#revision = init.revision;
    this.#compactAtBytes = init.compactAfterBytes;
  }

  /** Current log size in bytes. */
  get sizeBytes(): number {
    return this.#sizeBytes;
  }

  /** Number of compactions completed since open. */
  get compactions(): number {
    return this.#compactions;
  }

  append(record: LogRecord, onDurable: () => void): Promise<void> {
    if (this.#failure !== undefined) {
      return Promise.reject(this.#failure instanceof Error ? this.#failure : new Error(String(this.#failure)));
    }
    if (this.#closed) {
      return Promise.reject(new StoreError('Closed', 'the store log is closed'));
    }
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ line: frameLine(JSON.stringify(record)), revision: record.rev, onDurable, resolve, reject });
      if (!this.#running) {
        this.#running = true;
        this.#idle = this.#flushLoop();
      }
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#idle;
    await this.#init.handle.close();
  }

  /** Writes batches until the queue is empty; never rejects (failures go to the records). */
  async #flushLoop(): Promise<void> {
    let batch: QueuedRecord[] = [];
    try {
      while (this.#queue.length > 0) {
        batch = this.#queue;
        this.#queue = [];
        await this.#write(batch);
        for (const queued of batch) {
          this.#revision = queued.revision;
          queued.onDurable();
        }
        for (const queued of batch) {
          queued.resolve();
        }
        batch = [];
        if (this.#sizeBytes >= this.#compactAtBytes) {
          await this.#compact();
        }
      }
    } catch (error: unknown) {
      this.#failure = error;
      this.#init.logger.error({ err: error, file: this.#init.logPath }, 'Writing the store log failed; the store stops accepting writes');
      for (const queued of [...batch, ...this.#queue]) {
        queued.reject(error);
      }
      this.#queue = [];
    } finally {
      // Runs in the same tick as the final empty-queue check, so no append can be stranded.
      this.#running = false;
    }
  }

  async #write(batch: readonly QueuedRecord[]): Promise<void> {
    const bytes = batch.length === 1 && batch[0] !== undefined ? batch[0].line : Buffer.concat(batch.map((q) => q.line));
    let written = 0;
    while (written < bytes.length) {
      const result = await this.#init.handle.write(bytes, written, bytes.length - written);
      written += result.bytesWritten;
    }
    await this.#init.handle.datasync();
    this.#sizeBytes += bytes.length;
  }

  async #compact(): Promise<void> {
    const entries = [...this.#init.objects.entries()];
    const started = performance.now();
    try {
      await writeSnapshot(this.#init.snapshotPath, this.#revision, entries);
    } catch (error: unknown) {
      // The log still holds everything; try again once it has grown by another threshold.
      this.#compactAtBytes = this.#sizeBytes + this.#init.compactAfterBytes;
      this.#init.logger.error(
        { err: error, file: this.#init.snapshotPath },
        'Writing a store snapshot failed; the log keeps growing until a later attempt succeeds',
      );
      return;
    }
    // The snapshot now holds every record; an empty log loses nothing. A failure here is fatal
    // (the flush loop rejects), and recovery skips log records the snapshot already covers.
    await this.#init.handle.truncate(0);
    await this.#init.handle.datasync();
    const previousBytes = this.#sizeBytes;
    this.#sizeBytes = 0;
    this.#compactAtBytes = this.#init.compactAfterBytes;
    this.#compactions++;
    this.#init.logger.info(
      { revision: this.#revision, objects: entries.length, logBytes: previousBytes, durationMs: Math.round(performance.now() - started) },
      'Compacted the store log into a snapshot',
    );
  }
}
