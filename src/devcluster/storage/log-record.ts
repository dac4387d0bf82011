import { crc32 } from 'node:zlib';
import type { ResourceId, StoredObject } from './types.js';

/**
 * One committed change as the write-ahead log keeps it. `object` is the full object after the
 * change (for `delete`, its last state carrying the deletion's resourceVersion), so that replaying
 * the log rebuilds both the objects and the watch window.
 */
export interface LogRecord {
  rev: number;
  op: 'create' | 'update' | 'delete';
  resource: ResourceId;
  object: StoredObject;
}

/**
 * Frames one JSON text as a line: eight lowercase hex digits of the CRC-32 of the UTF-8 JSON, a
 * space, the JSON, a newline. JSON.stringify escapes newlines inside strings, so a newline only
 * ever ends a frame.
 */
export function frameLine(json: string): Buffer {
  const body = Buffer.from(json, 'utf8');
  const line = Buffer.allocUnsafe(body.length + 10);
  line.write(crc32(body).toString(16).padStart(8, '0'), 0, 'latin1');
  line[8] = 0x20;
  body.copy(line, 9);
  line[line.length - 1] = 0x0a;
  return line;
}

/** One line found by {@link scanFramedLines}. */
export interface FramedLine {
  /** Byte offset of the line's first byte in the scanned buffer. */
  offset: number;
  /** Byte offset just past the line (past its newline when it has one). */
  end: number;
  /** The parsed JSON when the line is complete and its checksum matches; undefined otherwise. */
  value: unknown;
  /** Whether the line ends with a newline (a crash mid-append leaves a final line without one). */
  terminated: boolean;
}

/** Splits a buffer into framed lines and checks each one's checksum and JSON. */
export function* scanFramedLines(buffer: Buffer): Generator<FramedLine> {
  let offset = 0;
  while (offset < buffer.length) {
    const newline = buffer.indexOf(0x0a, offset);
    const terminated = newline !== -1;
    const end = terminated ? newline + 1 : buffer.length;
    const value = terminated ? parseFrame(buffer.subarray(offset, newline)) : undefined;
    yield { offset, end, value, terminated };
    offset = end;
  }
}

function parseFrame(frame: Buffer): unknown {
  if (frame.length < 10 || frame[8] !== 0x20) {
    return undefined;
  }
  const checksum = frame.toString('latin1', 0, 8);
  if (!/^[0-9a-f]{8}$/.test(checksum)) {
    return undefined;
  }
  const body = frame.subarray(9);
  if (Number.parseInt(checksum, 16) !== crc32(body)) {
    return undefined;
  }
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    // A matching checksum over invalid JSON means the writer was broken; report as invalid.
    return undefined;
  }
}

/** Whether a parsed line is a well-formed {@link LogRecord}. */
export function isLogRecord(value: unknown): value is LogRecord {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const record = value as Record<string, unknown>;
  const object = record['object'];
  return (
    typeof record['rev'] === 'number' &&
    Number.isSafeInteger(record['rev']) &&
    record['rev'] > 0 &&
    (record['op'] === 'create' || record['op'] === 'update' || record['op'] === 'delete') &&
    typeof record['resource'] === 'string' &&
    typeof object === 'object' &&
    object !== null &&
    typeof (object as { metadata?: { name?: unknown } }).metadata?.name === 'string'
  );
}
