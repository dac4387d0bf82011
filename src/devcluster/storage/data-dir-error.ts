/**
 * Stable codes of failures to open a data directory:
 * - `Corrupt`: a file holds data that is neither valid nor a torn final record;
 * - `Locked`: another live process (or another store in this process) uses the directory.
 */
export type DataDirErrorCode = 'Corrupt' | 'Locked';

/**
 * Why `openStore` could not use its data directory. The message names the file (and for
 * `Corrupt` the byte offset) and says what an operator can do.
 */
export class DataDirError extends Error {
  /** The stable failure code. */
  readonly code: DataDirErrorCode;
  /** The file at fault. */
  readonly file: string;
  /** Byte offset of the first bad byte, for `Corrupt`. */
  readonly offset: number | undefined;

  constructor(code: DataDirErrorCode, file: string, message: string, options?: { offset?: number; cause?: unknown }) {
    super(message, { cause: options?.cause });
    this.name = 'DataDirError';
    this.code = code;
    this.file = file;
    this.offset = options?.offset;
  }
}

/** The error for bad bytes at `offset` of `file`, with the operator's options. */
export function corruptDataError(file: string, offset: number, detail: string): DataDirError {
  return new DataDirError(
    'Corrupt',
    file,
    `${file} is corrupt at byte offset ${offset}: ${detail}. The store refuses to guess which ` +
      `changes are lost. Restore the directory from a backup, or move it aside (or truncate the ` +
      `file at that offset, losing the changes after it) and start again.`,
    { offset },
  );
}
