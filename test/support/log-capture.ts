import { pino } from 'pino';
import type { Logger } from '../../src/observe/logger.js';

/** One JSON log line as pino wrote it. */
export type LogLine = Record<string, unknown> & { msg?: string };

/** A logger whose lines tests can wait on: the components' own account of what they did. */
export interface CapturedLog {
  readonly logger: Logger;
  readonly lines: readonly LogLine[];
  /** Lines with message `msg` whose fields include `fields` (compared with ===). */
  matching(msg: string, fields?: Record<string, unknown>): LogLine[];
}

/**
 * A pino logger at `level` (default `debug`) that keeps every line in memory. Set
 * `VCSYNC_TEST_LOGS=1` to also echo the lines to stderr when a test needs debugging.
 */
export function captureLogger(level: 'debug' | 'info' = 'debug'): CapturedLog {
  const lines: LogLine[] = [];
  const echo = process.env['VCSYNC_TEST_LOGS'] === '1';
  const logger = pino(
    { level },
    {
      write(text: string) {
        if (echo) process.stderr.write(text);
        lines.push(JSON.parse(text) as LogLine);
      },
    },
  );
  return {
    logger,
    lines,
    matching: (msg, fields = {}) => lines.filter((line) => line.msg === msg && Object.entries(fields).every(([k, v]) => line[k] === v)),
  };
}
